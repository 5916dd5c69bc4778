"""Text handling for every language: language detection, CJK bigrams, stopwords, content words, sentences, tokens.

Here: language-level functions with no notion of questions, passages or answers. Not here: anything
that reads a question (`tools/question/`) or an answer (`tools/answer/`, whose `text.py` holds the
answer-reading functions: citation markers and refusals).
"""
