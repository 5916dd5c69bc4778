"""Simplified or Traditional Chinese: which one a text is written in, and conversion between them.

A question asked in Simplified characters wants its answer in Simplified even when the passage it
was found in is Traditional (CMRC questions over zh-Hant Wikipedia, DRCD's Taiwanese passages read
by a mainland user), and the other way round; `match_script` gives a text the script of another.

The converter is OpenCC (the `OpenCC` package on PyPI, the project's own Python bindings; Apache
License 2.0, the licence of this project): its dictionaries are phrase-aware (头发 → 頭髮, 发展 →
發展, where a character table gives one or the other everywhere), maintained, and shipped inside
the wheel, so nothing is fetched at run time. Only the script is converted (configurations `s2t`
and `t2s`): the regional vocabulary conversions (`s2twp`: 软件 → 軟體) would change the answer's
words, not its characters. Traditional output is OpenCC's standard Traditional (臺, 裏), which
readers in Taiwan and Hong Kong read without trouble.

`script_of` decides by the characters that differ between the two scripts: a character counts as
Simplified when OpenCC would change it into Traditional and Big5 (the Traditional character set)
has no such character; as Traditional when OpenCC would change it into Simplified and GB2312 (the
Simplified set) lacks it. So 后, 干, 台 and 乾, which both scripts write, count for neither. Text
with kana is Japanese, whose kanji follow neither script: it is "neither" and is never converted.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

import opencc

from anchorgate.tools.text.cjk import CJK_CHAR, KANA

Script = Literal["simplified", "traditional", "neither"]

DOMINANCE = 0.8
"""Share of the script-marked characters one script must hold for the text to be in it; below it the
text mixes both (a quotation, a name) and is "neither"."""

_CONFIGS = {"simplified": "t2s.json", "traditional": "s2t.json"}


@lru_cache(maxsize=2)
def _converter(config: str) -> opencc.OpenCC:
    """One OpenCC converter per direction, built on first use (reading its dictionaries takes ~30 ms)."""
    return opencc.OpenCC(config)


def _encodable(ch: str, codec: str) -> bool:
    try:
        ch.encode(codec)
    except UnicodeEncodeError:
        return False
    return True


@lru_cache(maxsize=16384)
def char_script(ch: str) -> Script:
    """The script one character marks: "simplified", "traditional", or "neither" (not a Han character,
    or written alike in both)."""
    if not CJK_CHAR.match(ch):
        return "neither"
    if _converter("s2t.json").convert(ch) != ch and not _encodable(ch, "big5"):
        return "simplified"
    if _converter("t2s.json").convert(ch) != ch and not _encodable(ch, "gb2312"):
        return "traditional"
    return "neither"


def script_of(text: str) -> Script:
    """The Chinese script `text` is written in, from its script-marked characters; "neither" when it
    has none, mixes both (no script holds `DOMINANCE` of them) or is Japanese."""
    if KANA.search(text):
        return "neither"
    simplified = traditional = 0
    for ch in text:
        script = char_script(ch)
        simplified += script == "simplified"
        traditional += script == "traditional"
    marked = simplified + traditional
    if not marked:
        return "neither"
    if simplified >= DOMINANCE * marked:
        return "simplified"
    return "traditional" if traditional >= DOMINANCE * marked else "neither"


def to_script(text: str, script: Script) -> str:
    """`text` written in `script` (phrase-aware; Latin letters, digits and punctuation unchanged);
    "neither" leaves it as it is."""
    if script == "neither" or not CJK_CHAR.search(text):
        return text
    return str(_converter(_CONFIGS[script]).convert(text))


def match_script(text: str, reference: str) -> str:
    """`text` in the script of `reference` (e.g. an answer in its question's script): converted when
    `reference` is decidedly Simplified or Traditional and `text` holds a character of the other script
    (a whole answer, or one name quoted from a passage); otherwise returned as it is."""
    wanted = script_of(reference)
    if wanted == "neither":
        return text
    other = "traditional" if wanted == "simplified" else "simplified"
    if KANA.search(text) or not any(char_script(ch) == other for ch in text):
        return text
    return to_script(text, wanted)
