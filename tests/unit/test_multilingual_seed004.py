"""Seed 004's failure reproduced: an Indonesian tax-objection question over a small legal corpus.

The seed's system answered "Jelaskan … keberatan pajak menurut UU KUP …" with a banking regulation
(PP 37/1999), a 1954 land-use law and a tax-collection law, because authority and recency scores
compensated for near-zero relevance. Here the same kind of corpus is indexed for real (FAISS, BM25,
the embedding model the corpus's language selects) and searched as preset A searches: relevance
floor 0.30, metadata priors multiplying only what passes the floor. With multilingual-e5 only the
tax-objection article enters the pool; with all-MiniLM-L6-v2 (the English model, what every corpus
got before issue 15) the tax-collection law ranks first on its authority prior and the labour law
passes the same floor.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from anchorgate.graph.presets import load_preset
from anchorgate.tools.corpus.chunking import ChunkingSettings
from anchorgate.tools.corpus.documents import Passage
from anchorgate.tools.index.build import build_or_load
from anchorgate.tools.index.embeddings import E5, MINILM, embedding_choice, load_embeddings
from anchorgate.tools.index.model_choice import decide_model
from anchorgate.tools.retrieval.hybrid import HybridSearcher
from anchorgate.tools.retrieval.searcher import HybridHit
from anchorgate.tools.text.language import detect_languages, sample_texts

QUESTION = """Jelaskan secara lengkap dan komprehensif tentang:
1. Prosedur pengajuan keberatan pajak menurut UU KUP beserta persyaratan dan jangka waktunya
2. Sanksi administratif dan pidana yang dapat dikenakan jika terlambat mengajukan keberatan
3. Hubungan antara keberatan pajak dengan banding di Pengadilan Pajak
4. Hak-hak wajib pajak selama proses keberatan berlangsung
5. Contoh kasus dan yurisprudensi terkait keberatan pajak"""

# Authoritative, recent, complete — and (but for the objection article) irrelevant: the seed's trap.
_AUTHORITY = {"authority": 0.95, "year": 2020}
CORPUS = [
    Passage(
        "pp-37-1999",
        "PP 37/1999 tentang Penyertaan Modal Negara untuk Rekapitalisasi Bank Umum",
        "Peraturan Pemerintah ini mengatur penyertaan modal negara ke dalam bank umum dalam rangka program"
        " rekapitalisasi. Menteri Keuangan menetapkan besarnya penyertaan modal negara berdasarkan hasil evaluasi"
        " Bank Indonesia. Bank yang menerima penyertaan modal wajib menyusun rencana kerja.",
        metadata=_AUTHORITY,
    ),
    Passage(
        "uu-1954",
        "UU 1954 tentang Penyelesaian Soal Pemakaian Tanah Perkebunan oleh Rakyat",
        "Undang-undang ini mengatur penyelesaian pemakaian tanah perkebunan oleh rakyat tanpa izin pemiliknya."
        " Pemerintah daerah menyelesaikan soal pemakaian tanah itu dengan memperhatikan kepentingan rakyat dan"
        " kepentingan perusahaan perkebunan.",
        metadata=_AUTHORITY,
    ),
    Passage(
        "uu-19-1997",
        "UU 19/1997 tentang Penagihan Pajak dengan Surat Paksa",
        "Penagihan pajak dilakukan dengan surat paksa apabila penanggung pajak tidak melunasi utang pajak setelah"
        " lewat jatuh tempo. Surat paksa mempunyai kekuatan eksekutorial dan kedudukan hukum yang sama dengan"
        " putusan pengadilan. Juru sita pajak melaksanakan surat paksa dan penyitaan.",
        metadata=_AUTHORITY,
    ),
    Passage(
        "uu-13-2003",
        "UU 13/2003 tentang Ketenagakerjaan",
        "Setiap pekerja berhak memperoleh perlakuan yang sama tanpa diskriminasi dari pengusaha. Waktu kerja lembur"
        " hanya dapat dilakukan paling banyak tiga jam dalam satu hari.",
        metadata=_AUTHORITY,
    ),
    Passage(
        "uu-kup-keberatan",
        "UU KUP (UU 28/2007) Pasal 25–27: Keberatan dan Banding",
        "Wajib pajak dapat mengajukan keberatan kepada Direktur Jenderal Pajak atas surat ketetapan pajak."
        " Keberatan diajukan secara tertulis dalam bahasa Indonesia dengan mengemukakan jumlah pajak yang terutang,"
        " dalam jangka waktu tiga bulan sejak tanggal surat ketetapan dikirim. Direktur Jenderal Pajak wajib memberi"
        " keputusan atas keberatan dalam jangka waktu dua belas bulan. Jika keberatan ditolak, wajib pajak dapat"
        " mengajukan banding ke Pengadilan Pajak dalam jangka waktu tiga bulan sejak keputusan keberatan diterima.",
    ),
]
IRRELEVANT = {"pp-37-1999", "uu-1954", "uu-13-2003"}


def _pool(model: str, root: Path) -> list[HybridHit]:
    """Preset A's gated hybrid pool for the seed question over `CORPUS` indexed with `model`."""
    config = load_preset("A")
    embeddings = load_embeddings("" if model == MINILM else model)
    index = build_or_load(CORPUS, embeddings, embedding_choice(model).fingerprint, ChunkingSettings(), root,
                          progress=False, name="seed004")  # fmt: skip
    searcher = HybridSearcher.for_index(index)
    return searcher.search(
        QUESTION, embeddings.embed_query(QUESTION), pool_k=config.retrieval.pool_k, mode="hybrid",
        fusion=config.retrieval.fusion, relevance_floor=config.retrieval.relevance_floor,
        dense_weight=config.retrieval.dense_weight,
    )  # fmt: skip


def test_the_corpus_language_selects_multilingual_e5() -> None:
    assert decide_model("", detect_languages(sample_texts(CORPUS))).model.name == E5


def test_seed_004_only_the_tax_objection_article_passes_the_relevance_gate(tmp_path: Path) -> None:
    pool = _pool(E5, tmp_path)
    assert pool and {hit.chunk.doc_id for hit in pool} == {"uu-kup-keberatan"}
    assert pool[0].relevance >= load_preset("A").retrieval.relevance_floor


@pytest.mark.parametrize("model", [MINILM])
def test_seed_004_with_the_english_model_irrelevant_regulations_pass(tmp_path: Path, model: str) -> None:
    """What issue 15 fixes: MiniLM scores Indonesian text so flatly that the floor lets the trap through."""
    pool = _pool(model, tmp_path)
    assert pool[0].chunk.doc_id == "uu-19-1997"  # tax collection, not objections, first: the seed's rank 3
    assert {hit.chunk.doc_id for hit in pool} & IRRELEVANT  # the labour law passes the floor
