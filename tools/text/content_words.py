"""Content words: the words of a text that say what it is about, its stopwords removed.

One filter for every caller; what differs between them is passed in, not built into copies:

- the tokens (the caller's tokeniser: `normalize_words` folds accents and splits CJK into bigrams,
  pruning and question validation take plain `\\w` runs of the lower-cased text);
- the stopword set (`stopwords_for("multi")` for claims and questions, the pruner's own English +
  Indonesian lists, the anchors' closed class of English function words);
- `keep`: words that count even when they are stopwords (a quoted word, a Python keyword asked about);
- `min_chars` and `short_numbers`: a one-letter word is noise for overlap measures, a lone digit may not be;
- `fold`: light suffix folding (`tools/text/suffixes.py`), so "filmed" meets "filming".
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from anchorgate.tools.text.suffixes import fold_suffix


def content_words(
    words: Iterable[str],
    stopwords: Collection[str],
    *,
    keep: Collection[str] = frozenset(),
    min_chars: int = 2,
    short_numbers: bool = False,
    fold: bool = False,
) -> list[str]:
    """`words` without stopwords (unless in `keep`) and words shorter than `min_chars` (unless
    `short_numbers` and all digits), suffixes folded when `fold`; order and repeats kept."""
    found: list[str] = []
    for word in words:
        if word in stopwords and word not in keep:
            continue
        if len(word) < min_chars and not (short_numbers and word.isdigit()):
            continue
        found.append(fold_suffix(word) if fold else word)
    return found
