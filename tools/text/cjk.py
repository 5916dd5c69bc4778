"""Chinese and Japanese text has no spaces: how it becomes tokens for BM25, word overlap and anchors.

`\\w+` reads a whole CJK clause ("北京是中国的首都") as one word, so BM25 never matches a query term
and every overlap measure sees zero shared words. Character bigrams are the standard,
dependency-free choice for CJK retrieval and overlap (Lucene's CJKBigramFilter, the bigram runs of
the NTCIR/TREC Chinese tracks): a run of n ≥ 2 CJK characters gives its n − 1 overlapping bigrams
("北京是首都" → 北京 京是 是首 首都) and a lone character is a unigram. No dictionary segmenter: the
same text gives the same tokens on every machine, and a word of two characters (most Chinese
words) is one token either way. Text without a CJK character is tokenised exactly as before.

Hangul is written with spaces between words, so it stays with `\\w+`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Hiragana, Katakana (with ー), CJK Unified Ideographs, extension A, compatibility ideographs, 々 and
# the supplementary-plane extensions B–F.
_CJK_CLASS = "\u3005\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff"
CJK_CHAR = re.compile(f"[{_CJK_CLASS}]")
CJK_RUN = re.compile(f"[{_CJK_CLASS}]+")
_SPLIT = re.compile(f"([{_CJK_CLASS}]+)")
KANA = re.compile("[\u3040-\u30ff]")

# Question and function words that carry no retrieval signal: the bigrams of 什么 / 为什么 / 哪个 …
# (a question is mostly these) and the function characters that stand alone between Latin words.
CHINESE_STOP: frozenset[str] = frozenset((
    "什么", "为什", "么是", "是什", "哪个", "哪些", "哪里", "哪儿", "怎么", "怎样", "如何", "多少", "是否", "请问",
    "的", "了", "是", "在", "吗", "呢", "吧", "和", "与", "或", "也", "都", "就", "着", "个", "这", "那",
))  # fmt: skip


def has_cjk(text: str) -> bool:
    """Whether `text` holds any Chinese or Japanese character."""
    return CJK_CHAR.search(text) is not None


def cjk_share(text: str) -> float:
    """Share of the letters of `text` that are CJK characters (0 for text without letters)."""
    letters = [ch for ch in text if ch.isalpha()]
    return sum(1 for ch in letters if CJK_CHAR.match(ch)) / len(letters) if letters else 0.0


def bigrams(run: str) -> list[str]:
    """Overlapping character bigrams of one CJK run; a single character is its own token."""
    if len(run) < 2:
        return [run] if run else []
    return [run[i : i + 2] for i in range(len(run) - 1)]


def split_cjk(tokens: Iterable[str]) -> list[str]:
    """`tokens` with every CJK run inside a token replaced by its bigrams ("python的库" → python, 的库)."""
    out: list[str] = []
    for token in tokens:
        if not CJK_CHAR.search(token):
            out.append(token)
            continue
        for part in _SPLIT.split(token):
            if not part:
                continue
            out.extend(bigrams(part) if CJK_CHAR.match(part) else [part])
    return out

