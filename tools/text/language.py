"""Which languages a corpus (or a question) is written in: cheap, deterministic, no model.

Scripts first: every letter is put in its Unicode script (from the character's name), so Chinese,
Japanese, Korean, Cyrillic, Arabic … are told apart by what they are written in. Latin-script text
is told apart by function words: English and Indonesian stopwords (tools/text/stopwords.py) plus a few
of the most frequent function words of French, Spanish, German, Portuguese, Italian and Dutch that
are no English or Indonesian word. A document whose Latin words hit none of them is "latin"
(language unknown): code, tables and name lists say nothing about the language, so such text counts
for no language when the embedding model is chosen.

A corpus is read from a fixed sample (the first `SAMPLE_DOCS` documents, at most `SAMPLE_CHARS`
characters each), so `anchorgate index` and every later query of the same corpus decide the same.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from anchorgate.tools.text.cjk import KANA
from anchorgate.tools.text.stopwords import ENGLISH_STOPWORDS, INDONESIAN_STOPWORDS

SAMPLE_DOCS = 400
SAMPLE_CHARS = 4000
MIN_ENGLISH_SHARE = 0.9
"""Share of English documents (among those whose language is recognised) at or above which an
index keeps all-MiniLM-L6-v2; below it the corpus is other or mixed and gets multilingual-e5."""
MIXED_SHARE = 0.25
MIN_OTHER_WORDS = 3

_OTHER_LATIN_WORDS = """
le la les des est et une du dans pour qui que sur avec pas au aux ces sont
el los las es y una del por con como pero sus muy
der das und ist nicht ein eine mit auf dem von zu sich auch wird
um uma não é da dos das em com ao
il gli della che è sono
het een niet zijn voor ook wordt
"""
_OTHER_LATIN = frozenset(_OTHER_LATIN_WORDS.split())
# Scripts multilingual-e5 (XLM-R's 100 languages) was trained on; a letter in any other script is
# one neither embedding model can place.
KNOWN_SCRIPTS = frozenset((
    "latin", "cjk", "hiragana", "katakana", "hangul", "cyrillic", "greek", "arabic", "hebrew", "thai", "devanagari",
    "bengali", "gurmukhi", "gujarati", "oriya", "tamil", "telugu", "kannada", "malayalam", "sinhala", "myanmar",
    "khmer", "lao", "georgian", "armenian", "ethiopic", "syriac",
))  # fmt: skip
_SCRIPT_NAMES = {"cjk": "zh", "hiragana": "ja", "katakana": "ja", "hangul": "ko"}
_LATIN_WORD = re.compile(r"[^\W\d_]+")


@lru_cache(maxsize=4096)
def script_of(ch: str) -> str:
    """The script of one letter, lower case ("latin", "cjk", "cyrillic" …; "unknown" when unnamed)."""
    try:
        name = unicodedata.name(ch)
    except ValueError:
        return "unknown"
    words = name.split()
    if "LATIN" in words or words[0] in ("MATHEMATICAL", "MODIFIER", "SCRIPT", "BLACK-LETTER", "DOUBLE-STRUCK"):
        return "latin"  # fullwidth, styled and modifier forms of Latin letters
    if words[0] == "MICRO":
        return "greek"
    if words[0] in ("CJK", "IDEOGRAPHIC"):
        return "cjk"
    return "katakana" if words[0].startswith("KATAKANA") else words[0].lower()


def latin_language(text: str) -> str:
    """"en", "id", "latin-other" (another European language) or "latin" (no function word at all)."""
    counts = Counter[str]()
    others: set[str] = set()
    for word in _LATIN_WORD.findall(text.casefold()):
        counts["en"] += word in ENGLISH_STOPWORDS
        counts["id"] += word in INDONESIAN_STOPWORDS
        if word in _OTHER_LATIN:
            counts["latin-other"] += 1
            others.add(word)
    if len(others) < MIN_OTHER_WORDS:  # "Mac OS", "EU": a stray short word names no language
        counts.pop("latin-other", None)
    best, hits = max(counts.items(), key=lambda kv: (kv[1], kv[0] == "en"), default=("latin", 0))
    return best if hits else "latin"


def text_languages(text: str) -> Counter[str]:
    """Letters of `text` by language: CJK → zh (ja with kana), Hangul → ko, Latin by function words,
    any other script by its own name ("cyrillic", "arabic" …)."""
    scripts = Counter(script_of(ch) for ch in text if ch.isalpha())
    out = Counter[str]()
    japanese = scripts["hiragana"] + scripts["katakana"] > 0 and KANA.search(text) is not None
    for script, letters in scripts.items():
        if script == "latin":
            out[latin_language(text)] += letters
        elif script in _SCRIPT_NAMES:
            out["ja" if japanese and script in ("cjk", "hiragana", "katakana") else _SCRIPT_NAMES[script]] += letters
        else:
            out[script] += letters
    return out


@dataclass(frozen=True)
class LanguageReport:
    """Languages of a sample of documents.

    `shares`: share of the documents per dominant language ("und" for a document with no
    recognised language); `mixed`: documents whose second language holds at least `MIXED_SHARE` of
    their recognised letters; `unknown_scripts`: scripts neither embedding model was trained on.
    """

    shares: dict[str, float]
    documents: int
    mixed: int = 0
    unknown_scripts: tuple[str, ...] = field(default=())

    def recognised(self) -> dict[str, float]:
        """Shares among the documents whose language was recognised."""
        known = {lang: share for lang, share in self.shares.items() if lang != "und"}
        total = sum(known.values())
        return {lang: share / total for lang, share in known.items()} if total else {}

    def dominant(self) -> str:
        """The recognised language of the most documents ("und" when none was recognised)."""
        known = self.recognised()
        return max(sorted(known), key=known.__getitem__) if known else "und"

    def summary(self) -> str:
        """"id 0.93, en 0.07 of 120 documents; 3 mixed" (largest first, at most five languages)."""
        ranked = sorted(self.shares.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
        text = ", ".join(f"{lang} {share:.2f}" for lang, share in ranked) or "no text"
        text += f" of {self.documents} document{'s' if self.documents != 1 else ''}"
        if self.mixed:
            text += f"; {self.mixed} mixed-language"
        if self.unknown_scripts:
            text += f"; script{'s' if len(self.unknown_scripts) > 1 else ''} no model knows: "
            text += ", ".join(self.unknown_scripts)
        return text

    def as_dict(self) -> dict[str, object]:
        """JSON-ready form for the index manifest."""
        return {
            "shares": self.shares,
            "documents": self.documents,
            "mixed": self.mixed,
            "unknown_scripts": list(self.unknown_scripts),
        }


def dominant_language(letters: Counter[str]) -> tuple[str, bool]:
    """(the language with most letters, whether a second one has `MIXED_SHARE` of them); "und" if none."""
    known = sorted(((n, lang) for lang, n in letters.items() if lang != "latin" and n > 0), reverse=True)
    if not known:
        return "und", False
    total = sum(n for n, _ in known)
    return known[0][1], len(known) > 1 and known[1][0] >= MIXED_SHARE * total


def detect_languages(
    texts: Iterable[str], *, max_docs: int = SAMPLE_DOCS, max_chars: int = SAMPLE_CHARS
) -> LanguageReport:
    """Each of the first `max_docs` texts (cut to `max_chars`) gets its dominant language; the report
    gives the share of documents per language."""
    counts = Counter[str]()
    scripts: set[str] = set()
    documents = mixed = 0
    for text in texts:
        if documents >= max_docs:
            break
        documents += 1
        letters = text_languages(text[:max_chars])
        scripts.update(lang for lang in letters if _is_script(lang))
        lang, is_mixed = dominant_language(letters)
        counts[lang] += 1
        mixed += is_mixed
    shares = {lang: round(n / documents, 4) for lang, n in sorted(counts.items())} if documents else {}
    unknown = tuple(sorted(s for s in scripts if s not in KNOWN_SCRIPTS))
    return LanguageReport(shares, documents, mixed, unknown)


def _is_script(lang: str) -> bool:
    """Whether a report key is a script name rather than a language code (en, id, zh, ja, ko, latin…)."""
    return lang not in ("en", "id", "zh", "ja", "ko", "latin", "latin-other")


def question_language(question: str) -> str:
    """The dominant language of one question ("und" when nothing is recognised)."""
    return detect_languages([question]).dominant()


def is_english(report: LanguageReport) -> bool:
    """True when at least `MIN_ENGLISH_SHARE` of the recognised documents are English, and no more than
    1 − `MIN_ENGLISH_SHARE` of all are mixed-language (or nothing is recognised at all)."""
    known = report.recognised()
    if not known:
        return True
    return known.get("en", 0.0) >= MIN_ENGLISH_SHARE and report.mixed <= (1 - MIN_ENGLISH_SHARE) * report.documents


def sample_texts(passages: Sequence[object], max_docs: int = SAMPLE_DOCS) -> list[str]:
    """Title and text of the first `max_docs` passages (anything with `title` and `text`)."""
    return [f"{getattr(p, 'title', '')}\n{getattr(p, 'text', '')}" for p in passages[:max_docs]]


# Languages whose questions cannot match other-language text word for word: their words share no
# letters with a Latin-script corpus, so BM25 and the anchors find nothing and only the embedding's
# cross-lingual reach is left.
_NO_SHARED_LETTERS = {"zh": "Chinese", "ja": "Japanese", "ko": "Korean"}


def language_mismatch(question_language: str, corpus_languages: Mapping[str, float] | Iterable[str]) -> str | None:
    """A note for the user when a Chinese (or Japanese, Korean) question meets a corpus with no text in
    its language, else None. `corpus_languages`: the shares recorded at index time (the manifest's
    `languages.shares`, `LanguageReport.shares`) or the language codes; a corpus whose language was
    not recognised at all gets no note, since nothing is known about it."""
    name = _NO_SHARED_LETTERS.get(question_language)
    shares = corpus_languages if isinstance(corpus_languages, Mapping) else dict.fromkeys(corpus_languages, 1.0)
    present = {lang for lang, share in shares.items() if share > 0 and lang != "und"}
    if name is None or not present or question_language in present:
        return None
    ranked = ", ".join(sorted(present))
    return (
        f"the question is in {name}, but the corpus has no {name} text (its languages: {ranked}); "
        f"answers can only come from passages in another language, so expect more refusals"
    )
