"""BM25 over chunk texts with bm25s, a deterministic language-aware tokenizer and pickle-free persistence.

Scoring variant (documented choice): bm25s' default **Lucene** variant (Kamphuis et al., ECIR 2020,
"Which BM25 do you mean?"): idf = ln(1 + (N - df + 0.5) / (df + 0.5)), tf part =
tf / (tf + k1 · (1 - b + b · |d| / avgdl)), k1 = 1.5, b = 0.75. Its idf is always positive, which
matters for the small per-question chunk sets this project searches: the Robertson idf turns a
term that occurs in more than half of the chunks into zero (or negative) evidence.

`method="atire", idf_method="robertson"` reproduces rank-bm25's `BM25Okapi` exactly (measured in
tests/unit/test_bm25.py) as long as no idf is negative: rank-bm25 floors negative idfs to
epsilon · mean(idf) where bm25s clamps them to 0, so with `BM25Okapi(..., epsilon=0)` the two agree
on every corpus.

Tokenization: NFKC + casefold, Unicode word split (`\\w+`) plus operator tokens, stopwords removed
(tools/text/stopwords.py), no stemming, so the same text always gives the same tokens on every machine.
Chinese and Japanese text has no spaces: its runs are split into overlapping character bigrams
(tools/text/cjk.py), the standard dependency-free tokenization for CJK BM25.
Operators are terms in technical text — "difference between is and ==", "what does ** do" — so a
run of two or three operator characters ("==", "**", ":=", "->", "//=") is a token, and so is a
lone one that is not prose punctuation (= < > + * % | ^ ~ @; not - : / & !, which separate words).

Keywords that are stopwords: a corpus may use a stopword as a term of its own — the Python
Language Reference writes 'the "with" statement', 'the operators "and" and "or"'. A stopword that
the corpus quotes as a whole word ("with", 'in', `is`, “or”) in at least `MIN_KEYWORD_DF` texts
(and at least two letters long) is a *keyword* of that index, provided the corpus has at least
`MIN_KEYWORDS` of them (it quotes function words as a habit, as code documentation does; a novel
titled "It" in a Wikipedia sample does not make "it" a keyword): each quoted occurrence is a token of
the text (plain prose "with" is still dropped, so the keyword's idf stays high), and the keyword
is kept in queries even unquoted ("How do I make a class usable in a with statement?"). A corpus
that quotes no stopword (most prose) tokenizes exactly as before.

Persistence: a single JSON file with the parameters, the resolved language, the tokenized
corpus and optionally the id of each text (a persisted dense index stores its chunk ids, so loading
can check that BM25 and FAISS cover the same chunks); `load` rebuilds the bm25s index from the
tokens (no pickle, no re-tokenization).
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import bm25s
import numpy as np

from anchorgate.tools.text.cjk import has_cjk, split_cjk
from anchorgate.tools.text.stopwords import (
    ENGLISH_STOPWORDS,
    INDONESIAN_STOPWORDS,
    Language,
    stopwords_for,
)

LanguageOption = Literal["en", "id", "multi", "none", "auto"]
# /2: operator tokens. A file of another version was tokenized differently from the queries now.
FORMAT = "anchorgate.bm25/2"
_WORD = re.compile(r"\w+")
_OP = r"=<>!+\-*/%&|^~@:"
_TERM = re.compile(rf"\w+|(?<![{_OP}])(?:[{_OP}]{{2,3}}|[=<>+*%|^~@])(?![{_OP}])")
_QUOTED = re.compile(r"[\"'`“‘«](\w+)[\"'`”’»]")
MIN_KEYWORD_DF = 3
MIN_KEYWORDS = 3


def normalize_text(text: str) -> str:
    """NFKC-normalized, casefolded text (so "Ｑ１" and "q1", "Straße" and "strasse" match)."""
    return unicodedata.normalize("NFKC", text).casefold()


def words(text: str) -> list[str]:
    """All Unicode word tokens of `text`, normalized, stopwords kept (CJK runs as bigrams)."""
    normalized = normalize_text(text)
    found = _WORD.findall(normalized)
    return split_cjk(found) if has_cjk(normalized) else found


def terms(text: str) -> list[str]:
    """Word and operator tokens of `text`, normalized, stopwords kept ("a == b" → a, ==, b).

    Chinese/Japanese runs become character bigrams (tools/text/cjk.py: the standard dependency-free choice
    for CJK BM25), so "北京是首都" matches a query about 首都; text without CJK is unchanged.
    """
    normalized = normalize_text(text)
    found = _TERM.findall(normalized)
    return split_cjk(found) if has_cjk(normalized) else found


def tokenize(text: str, language: Language = "en") -> list[str]:
    """Word and operator tokens of `text` minus the stopwords of `language` (no stemming: deterministic)."""
    stop = stopwords_for(language)
    return [token for token in terms(text) if token not in stop]


def quoted_stopwords(text: str, language: Language = "en") -> list[str]:
    """Stopwords of `language` that `text` quotes as whole words ('the "with" statement' → with)."""
    stop = stopwords_for(language)
    return [word for word in _QUOTED.findall(normalize_text(text)) if word in stop and len(word) >= 2]


def detect_language(texts: Sequence[str]) -> Language:
    """"id" when Indonesian stopwords outnumber English ones over all `texts`, else "en".

    Counting function words is crude but deterministic, and enough to tell the two apart on any
    corpus of more than a few sentences.
    """
    english = indonesian = 0
    for text in texts:
        for token in words(text):
            english += token in ENGLISH_STOPWORDS
            indonesian += token in INDONESIAN_STOPWORDS
    return "id" if indonesian > english else "en"


class BM25Index:
    """A BM25 index over a fixed list of texts, addressed by position (0 … n-1)."""

    def __init__(
        self, k1: float = 1.5, b: float = 0.75, method: str = "lucene", idf_method: str | None = None
    ) -> None:
        self.k1 = k1
        self.b = b
        self.method = method
        self.idf_method = idf_method or method
        self.language: Language = "en"
        self.corpus_tokens: list[list[str]] = []
        self.ids: list[str] = []
        """The id of each text when the index was saved with ids (empty otherwise)."""
        self._df: Counter[str] = Counter()
        self._model: Any = None
        self.keywords: frozenset[str] = frozenset()
        """Stopwords this corpus quotes as terms (see the module docstring); kept in queries."""

    @classmethod
    def build(
        cls,
        texts: Sequence[str],
        language: LanguageOption = "auto",
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        idf_method: str | None = None,
    ) -> BM25Index:
        """Tokenize `texts` ("auto" picks en/id from the corpus itself) and index them; quoted
        stopwords are added as tokens (they become keywords where `MIN_KEYWORD_DF` texts quote them)."""
        resolved, tokens = tokenize_corpus(texts, language)
        return cls.from_tokens(tokens, resolved, k1=k1, b=b, method=method, idf_method=idf_method)

    @classmethod
    def from_tokens(
        cls,
        corpus_tokens: Sequence[Sequence[str]],
        language: Language,
        k1: float = 1.5,
        b: float = 0.75,
        method: str = "lucene",
        idf_method: str | None = None,
    ) -> BM25Index:
        """Index an already tokenized corpus (used by `load` and by differential tests)."""
        index = cls(k1=k1, b=b, method=method, idf_method=idf_method)
        index.language = language
        index.corpus_tokens = [list(doc) for doc in corpus_tokens]
        index._df = Counter(token for doc in index.corpus_tokens for token in set(doc))
        stop = stopwords_for(language)
        quoted = frozenset(t for t, df in index._df.items() if t in stop and df >= MIN_KEYWORD_DF)
        index.keywords = quoted if len(quoted) >= MIN_KEYWORDS else frozenset()
        if index._df:
            # float64 so that scores are exact enough for 1e-6 differential tests and stable ties.
            model = bm25s.BM25(
                k1=k1, b=b, method=method, idf_method=index.idf_method, dtype="float64", backend="numpy"
            )
            model.index(index.corpus_tokens, show_progress=False)
            index._model = model
        return index

    def __len__(self) -> int:
        return len(self.corpus_tokens)

    def tokenize(self, text: str) -> list[str]:
        """A query tokenized as the corpus was (same language and stopwords), keeping this corpus's
        keywords even where they are stopwords ("with" in "a with statement" for pydoc)."""
        stop = stopwords_for(self.language) - self.keywords
        return [token for token in terms(text) if token not in stop]

    def scores(self, query: str) -> np.ndarray:
        """BM25 score of every text for `query` (float64, zeros when nothing matches)."""
        return self.scores_for_tokens(self.tokenize(query))

    def scores_for_tokens(self, query_tokens: Sequence[str]) -> np.ndarray:
        """BM25 score of every text for pre-tokenized `query_tokens` (repeats count repeatedly)."""
        known = [token for token in query_tokens if token in self._df]
        if self._model is None or not known:
            return np.zeros(len(self), dtype=np.float64)
        return np.asarray(self._model.get_scores(known), dtype=np.float64)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Top-`k` (index, score) pairs with score > 0, score descending, ties by index ascending."""
        scores = self.scores(query)
        if k <= 0 or scores.size == 0:
            return []
        # lexsort sorts by the last key first: -score, then index; a stable, total order.
        order = np.lexsort((np.arange(scores.size), -scores))
        return [(int(i), float(scores[i])) for i in order[:k] if scores[i] > 0.0]

    def document_frequency(self, term: str) -> int:
        """Number of indexed texts that contain the (already normalized) `term`."""
        return self._df.get(term, 0)

    def idf(self, term: str) -> float:
        """Lucene idf of `term`, ln(1 + (N − df + 0.5)/(df + 0.5)); positive even for unseen terms."""
        n, df = len(self), self.document_frequency(term)
        return float(np.log1p((n - df + 0.5) / (df + 0.5)))

    def save(self, path: str | Path, ids: Sequence[str] | None = None) -> None:
        """Write parameters, language, tokenized corpus (and the texts' `ids`) as JSON (no pickle)."""
        params = {"k1": self.k1, "b": self.b, "method": self.method, "idf_method": self.idf_method}
        save_tokens(path, self.language, self.corpus_tokens, ids if ids is not None else self.ids, params)

    @classmethod
    def load(cls, path: str | Path) -> BM25Index:
        """Rebuild an index written by `save` (re-indexes the stored tokens)."""
        payload = read_payload(path)
        params = payload["params"]
        index = cls.from_tokens(
            payload["corpus_tokens"],
            payload["language"],
            k1=float(params["k1"]),
            b=float(params["b"]),
            method=str(params["method"]),
            idf_method=str(params["idf_method"]),
        )
        index.ids = [str(i) for i in payload.get("ids") or []]
        return index


def tokenize_corpus(texts: Sequence[str], language: LanguageOption = "auto") -> tuple[Language, list[list[str]]]:
    """(resolved language, tokens of each text) exactly as `BM25Index.build` indexes them."""
    resolved: Language = detect_language(texts) if language == "auto" else language
    return resolved, [tokenize(text, resolved) + quoted_stopwords(text, resolved) for text in texts]


def save_tokens(
    path: str | Path,
    language: Language,
    corpus_tokens: Sequence[Sequence[str]],
    ids: Sequence[str] = (),
    params: dict[str, Any] | None = None,
) -> None:
    """Write a tokenized corpus in the `save` format without building the scorer first."""
    payload = {
        "format": FORMAT,
        "params": params or {"k1": 1.5, "b": 0.75, "method": "lucene", "idf_method": "lucene"},
        "language": language,
        "corpus_tokens": [list(doc) for doc in corpus_tokens],
    }
    if ids:
        if len(ids) != len(corpus_tokens):
            raise ValueError(f"{len(ids)} ids for {len(corpus_tokens)} texts")
        payload["ids"] = list(ids)
    Path(path).write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")


def read_payload(path: str | Path) -> dict[str, Any]:
    """The JSON of a saved index, its format checked (ValueError otherwise)."""
    payload = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"{path}: not an {FORMAT} file (format={found!r})")
    return payload
