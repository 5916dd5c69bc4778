"""Small English and Indonesian stopword lists for BM25 tokenization.

Sources:
- English: the Lucene/Elasticsearch English list that bm25s ships as `bm25s.stopwords.STOPWORDS_EN`
  (33 words), plus the interrogatives and auxiliaries that make up most of a *question* and carry
  no retrieval signal ("what", "who", "does" ...), plus the fragments "s"/"t" left by splitting
  "Obama's" / "don't" on non-word characters.
- Indonesian: a hand-picked subset (function words, pronouns, interrogatives) of the 758-word list
  of Tala, F. Z. (2003), "A Study of Stemming Effects on Information Retrieval in Bahasa
  Indonesia" (the list NLTK and Sastrawi also use), plus the colloquial question words of NoMIRACL-id
  queries ("gimana", "kenapa", "dimana", "gak" …). Words that are also content words in English
  ("agar", "pun", "data") are left out so that the mixed-language union stays safe.

- Chinese: the question words and function characters of tools/text/cjk.py (`CHINESE_STOP`), as the
  character bigrams and lone characters the CJK tokenizer makes of them. They are in every list:
  no English or Indonesian token can equal a CJK string, so English tokenization is unchanged.

Lists are frozensets so membership tests are O(1) and nobody can mutate them at run time.
"""

from __future__ import annotations

from typing import Literal

from bm25s.stopwords import STOPWORDS_EN

from anchorgate.tools.text.cjk import CHINESE_STOP

Language = Literal["en", "id", "multi", "none"]

_QUESTION_WORDS_EN = (
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how",
    "do", "does", "did", "were", "has", "have", "had", "from", "its", "than", "s", "t",
)

ENGLISH_STOPWORDS: frozenset[str] = frozenset(STOPWORDS_EN) | frozenset(_QUESTION_WORDS_EN)
CHINESE_STOPWORDS: frozenset[str] = CHINESE_STOP

_INDONESIAN = """
ada adalah akan aku anda antara apa apakah atau bagaimana bagi bahwa banyak beberapa begitu
belum berapa bila bisa boleh bukan dalam dan dapat dari daripada demikian dengan di dia hal
hanya harus hingga ia ialah ini itu jadi jika juga kalau kami kamu kapan karena ke kemudian
kepada ketika kita lagi lain lalu lebih maka mana masih mengapa mereka merupakan namun oleh
pada para pula saat saja sampai sangat saya sebagai sebelum sebuah sedang sehingga sejak
selain semua seorang seperti serta setelah setiap siapa suatu sudah supaya telah tentang
tersebut tetapi tidak untuk yaitu yakni yang
gimana kenapa dimana kok gak nggak enggak aja udah
"""
INDONESIAN_STOPWORDS: frozenset[str] = frozenset(_INDONESIAN.split())
_EN, _ID = ENGLISH_STOPWORDS | CHINESE_STOPWORDS, INDONESIAN_STOPWORDS | CHINESE_STOPWORDS
_MULTI = ENGLISH_STOPWORDS | INDONESIAN_STOPWORDS | CHINESE_STOPWORDS


def stopwords_for(language: Language) -> frozenset[str]:
    """The stopword set for a resolved language ("multi" is the union, "none" is empty); Chinese
    question and function words are in every non-empty set (text of any language may quote Chinese)."""
    if language == "en":
        return _EN
    if language == "id":
        return _ID
    if language == "multi":
        return _MULTI
    if language == "none":
        return frozenset()
    raise ValueError(f"unknown stopword language {language!r}")
