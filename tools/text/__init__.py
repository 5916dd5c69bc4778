"""Text handling for every language: language detection, CJK bigrams, stopwords, content words, sentences, tokens.

Chinese in particular: its two scripts (`chinese_script.py`), its numerals as numbers (`chinese_numbers.py`,
on the Arabic reading every rule shares in `numbers.py`) and full-width input folded to ASCII (`width.py`).

Here: language-level functions with no notion of questions, passages or answers. Not here: anything
that reads a question (`tools/question/`) or an answer (`tools/answer/`, whose `text.py` holds the
answer-reading functions: citation markers and refusals).
"""
