"""Text handling for every language: language detection, CJK bigrams, stopwords, sentences, tokens."""
