"""Corpus text files in GB18030 or Big5 are read as what they say, or refused with a reason: never mojibake."""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.tools.corpus.encoding import LEGACY, common_han, decode_text, legacy_chinese, odd_share
from anchorgate.tools.corpus.load import load_corpus
from anchorgate.tools.errors import EX_NOINPUT, CorpusError

SIMPLIFIED = "北京是中华人民共和国的首都，也是全国的政治、文化中心。长城全长两万多公里，是古代修建的军事防御工程。"
TRADITIONAL = "臺北是中華民國的首都，也是全國的政治、文化與經濟中心。颱風來臨時，學校會停課，居民應留在家中。"


@pytest.mark.parametrize(
    ("text", "codec"),
    [(SIMPLIFIED, "gb18030"), (TRADITIONAL, "gb18030"), (TRADITIONAL, "big5"), (TRADITIONAL, "cp950"),
     ("国语", "gb18030"), ("國語", "big5"), ("首都", "gb18030"), ("首都", "big5")],
)  # fmt: skip
def test_legacy_chinese_bytes_decode_to_their_text(text: str, codec: str) -> None:
    assert decode_text(text.encode(codec)) == (text, "")


def test_the_wrong_reading_is_odd_and_the_right_one_is_not() -> None:
    data = TRADITIONAL.encode("big5")
    assert odd_share(data.decode("big5")) == 0.0
    assert odd_share(data.decode("gb18030")) > 0.3  # 國語 read as GBK is 瓣粂 …
    assert len(common_han()) > 6000 and "的" in common_han() and "們" in common_han()


def test_bytes_that_read_as_both_encodings_alike_are_refused() -> None:
    data = "# Notes\n\nThe capital is 北京 (Beijing).\n".encode("gb18030")  # 北京 is also two common Big5 characters
    text, why = decode_text(data)
    assert text is None and "GB18030 and as Big5" in why and "UTF-8" in why
    assert legacy_chinese(data)[0] is None


def test_utf8_latin1_and_binary_keep_their_old_outcomes() -> None:
    assert decode_text("\ufeff北京 café".encode()) == ("北京 café", "")
    assert decode_text("caf\xe9 ".encode("latin-1") * 50) == (None, "not UTF-8 text (wrong format)")
    stray = b"Mostly UTF-8 text about turtles. " * 20 + b"\xff"
    assert decode_text(stray)[0] is not None  # one stray byte in 600: read with it replaced, as before
    assert set(LEGACY) == {"GB18030", "Big5"}


def test_a_folder_with_gb18030_and_big5_files_is_indexed_as_written(tmp_path: Path) -> None:
    (tmp_path / "simplified.txt").write_bytes(SIMPLIFIED.encode("gb18030"))
    (tmp_path / "traditional.md").write_bytes(TRADITIONAL.encode("big5"))
    (tmp_path / "page.html").write_bytes(
        f'<html><head><meta charset="gb2312"><title>首都</title></head><body><p>{SIMPLIFIED}</p></body></html>'.encode(
            "gb18030"
        )
    )
    (tmp_path / "ambiguous.txt").write_bytes("北京".encode("gb18030"))
    corpus = load_corpus(str(tmp_path))
    texts = {p.id: p.text for p in corpus.passages}
    assert texts["simplified.txt"] == SIMPLIFIED and texts["traditional.md"] == TRADITIONAL
    assert SIMPLIFIED in texts["page.html"] and corpus.passages[0].title == "首都"
    assert dict(corpus.skipped)["ambiguous.txt"].startswith("not UTF-8 text; it reads as GB18030 and as Big5")


def test_a_jsonl_corpus_in_gb18030_is_read(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    path.write_bytes(f'{{"id": "a", "title": "首都", "text": "{SIMPLIFIED}"}}\n'.encode("gb18030"))
    (passage,) = load_corpus(str(path)).passages
    assert passage.text == SIMPLIFIED and passage.title == "首都"


def test_a_lone_file_that_cannot_be_told_is_a_corpus_error_with_its_exit_code(tmp_path: Path) -> None:
    path = tmp_path / "short.txt"
    path.write_bytes("北京".encode("gb18030"))
    with pytest.raises(CorpusError) as info:
        load_corpus(str(path))
    assert "reads as GB18030 and as Big5" in info.value.message and info.value.exit_code == EX_NOINPUT
