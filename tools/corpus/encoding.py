"""A corpus file's bytes as text: UTF-8, or GB18030 or Big5 when the bytes leave no doubt; never garbled.

Chinese text files saved on Windows or by older tools are often GB18030 (GBK, GB2312: Simplified)
or Big5 (Traditional) rather than UTF-8. Read as UTF-8 they are mostly replacement characters, and
read in the wrong one of the two they are mojibake that still looks like Chinese (國語 in Big5 read
as GBK is 瓣粂), which an index would embed and cite without a word. So a legacy decoding is only
kept when exactly one of the two reads the bytes cleanly and plausibly; otherwise the file is
refused with a reason that says to save it as UTF-8 (a skipped file in a folder, a CorpusError for
a file given alone, both already reported by the CLI with an exit code).

Plausible means: the characters beyond ASCII are common Chinese characters — the 3755 of GB2312's
first level (the Simplified characters of everyday text) or the 5401 of Big5's first level (the
frequent Traditional ones) — or CJK and full-width punctuation. A wrong decoding lands on rare
characters, private-use code points, bopomofo and symbol rows for a large share of its pairs; a
right one for a few percent at most (names, rare words). The sets come from the codecs themselves,
so nothing is downloaded and every machine decides alike. A general detector such as
charset-normalizer was tried and not used: on short texts it picks Big5 for GB18030 bytes ("首都",
a Markdown file with one Chinese name) and returns mojibake as its best guess.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import chain

LEGACY = {"GB18030": "gb18030", "Big5": "cp950"}  # cp950: Big5 as Windows writes it (a superset)
MAX_ODD_SHARE = 0.1
"""Share of the non-ASCII characters that may be rare or out of place in a right decoding."""
MIN_ODD_GAP = 0.15
"""How much odder the other decoding must be (when it decodes at all) for the choice to be certain."""
NOT_TEXT = "not UTF-8 text (wrong format)"
MAX_REPLACED_SHARE = 0.01  # a UTF-8 file with this few undecodable bytes is read with them replaced
SAMPLE_CHARS = 200_000  # plausibility is judged on the start of a long file (the whole must still decode)
_PUNCTUATION_BLOCKS = ((0x3000, 0x303F), (0xFF00, 0xFFEF), (0x2000, 0x206F), (0x00A0, 0x00FF), (0x2160, 0x217F))


def _level_one(codec: str, leads: range, trails: list[int]) -> set[str]:
    chars: set[str] = set()
    for lead in leads:
        for trail in trails:
            try:
                chars.add(bytes((lead, trail)).decode(codec))
            except UnicodeDecodeError:
                continue  # an unassigned code in the row
    return chars


@lru_cache(maxsize=1)
def common_han() -> frozenset[str]:
    """GB2312 level 1 (rows 0xB0–0xD7) and Big5 level 1 (rows 0xA4–0xC6): the common characters."""
    gb = _level_one("gb2312", range(0xB0, 0xD8), list(range(0xA1, 0xFF)))
    big5 = _level_one("big5", range(0xA4, 0xC7), list(chain(range(0x40, 0x7F), range(0xA1, 0xFF))))
    return frozenset(gb | big5)


def odd_share(text: str) -> float:
    """Share of the non-ASCII characters of `text` that are neither common Chinese characters nor
    CJK, full-width or general punctuation (0.0 for ASCII-only text)."""
    common = common_han()
    wide = [ch for ch in text if ord(ch) > 0x7F]
    if not wide:
        return 0.0
    odd = sum(1 for ch in wide if ch not in common and not any(lo <= ord(ch) <= hi for lo, hi in _PUNCTUATION_BLOCKS))
    return odd / len(wide)


def legacy_chinese(data: bytes) -> tuple[str | None, str]:
    """(text, encoding name) when exactly one legacy Chinese encoding reads `data` cleanly and plausibly;
    else (None, why not)."""
    readings: dict[str, tuple[str, float]] = {}
    for name, codec in LEGACY.items():
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        readings[name] = (text, odd_share(text[:SAMPLE_CHARS]))
    ranked = sorted(readings.items(), key=lambda item: (item[1][1], item[0]))
    if not ranked or ranked[0][1][1] > MAX_ODD_SHARE:  # Latin-1, Shift-JIS, binary …: not Chinese either
        return None, NOT_TEXT
    best, (text, odd) = ranked[0]
    if len(ranked) > 1 and ranked[1][1][1] - odd < MIN_ODD_GAP:
        return None, "not UTF-8 text; it reads as GB18030 and as Big5 alike (wrong format: save it as UTF-8)"
    return text, best


def decode_text(data: bytes) -> tuple[str | None, str]:
    """(text, "") for UTF-8 (a BOM dropped), GB18030 or Big5 bytes; (None, reason) for bytes that are
    none of them for certain. A UTF-8 file with a few stray bytes (at most `MAX_REPLACED_SHARE`) is read
    with them replaced, as before legacy encodings were read."""
    try:
        return data.decode("utf-8-sig"), ""
    except UnicodeDecodeError:
        pass  # not UTF-8: a legacy Chinese encoding, or a UTF-8 file with stray bytes
    legacy, why = legacy_chinese(data)
    if legacy is not None:
        return legacy, ""
    text = data.decode("utf-8-sig", errors="replace")
    if text.count("\ufffd") / max(len(text), 1) <= MAX_REPLACED_SHARE:
        return text, ""
    return None, why
