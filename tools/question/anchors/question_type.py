"""`question_type`: a cue for the shape of the answer a question asks for (seed 000 §4).

Cues, not verdicts: a wrong type only changes which finalizer rule and selection weights apply,
never the evidence requirements, so cheap English and Indonesian regexes are enough. The
false-premise cue (an impossible date, "why did …") flags 14 of 982 FalseQA questions, 8 of them
truly false premises: a hint for the gate and prompts, never a reason to refuse.
"""

from __future__ import annotations

import re
from typing import Literal

from .chinese import chinese_question_type, is_chinese

QuestionType = Literal["factoid", "list", "numeric", "comparison", "yes_no", "false_premise_suspect", "other"]

_YES_NO = re.compile(
    r"^(?:is|are|was|were|am|do|does|did|can|could|has|have|had|will|would|should|shall|benarkah|"
    r"apakah(?!\s+(?:nama|judul|arti|jenis|julukan|gelar|sebutan|singkatan|kepanjangan|tujuan|penyebab|isi|"
    r"yang|saja|fungsi|bentuk|warna|bahasa|nama-nama|pekerjaan|jabatan|profesi|peran|alasan|dampak|makna|maksud)\b))\b",
    re.IGNORECASE,
)
_NUMERIC_STRONG = re.compile(
    r"\bhow\s+(?:many|much|old|long|far|tall|high|big|large|fast|deep|wide|often)\b|"
    r"\bberapa(?:kah)?\b(?<!tahun berapa)(?<!tahun berapakah)",
    re.IGNORECASE,
)
_COMPARISON = re.compile(
    r"\b(?:compared\s+(?:to|with)|versus|vs\.?|(?:more|less|fewer|older|younger|bigger|larger|smaller|longer|"
    r"shorter|taller|higher|lower|better|worse|earlier|later)\s+than\b(?!\s+\d)|"
    r"lebih\s+\w+\s+(?:dari|daripada|dibanding)\b(?!\s+\d)|dibandingkan|mana(?:kah)?\s+yang|"
    r"(?:which|who|what|siapa|mana)\b[^?]*\s(?:or|atau)\s[^?]+\?|"
    r"(?:between|antara)\s[^?]*\s(?:and|dan)\s[^?]*\b(?:which|who|siapa|mana)\b)",
    re.IGNORECASE,
)
_NUMERIC_WEAK = re.compile(
    r"\b(?:average|averages|averaged|avg|the\s+mean|median|total|percentage|percent|proportion|sum|"
    r"rata-rata|rerata|jumlah|persentase|persen)\b|"
    r"\bwhat\s+(?:is|was|are|were)\s+(?:\S+\s+){0,3}?(?:population|revenue|income|profit|price|cost|salary|gdp)\b",
    re.IGNORECASE,
)
# A question that asks for a person, a place or a kind of thing ("who has the best batting average",
# "which method … uses averages") mentions a quantity without asking for one: the weak cues do not apply.
_NON_QUANTITY_HEAD = re.compile(
    r"^\s*(?:who|whom|whose|where|siapa(?:kah)?|di\s?mana(?:kah)?|"
    r"(?:which|what)\s+(?!(?:is|was|are|were|do|does|did|has|have|had|will|would|can|could|the|a|an|of|"
    r"average|averages|mean|median|total|percentage|percent|proportion|share|sum|number|amount|rate|ratio|"
    r"population|revenue|income|profit|price|cost|salary|gdp|size|value)\b)[a-z]+)\b",
    re.IGNORECASE,
)
_LIST = re.compile(
    r"\b(?:list|enumerate|name\s+(?:all|every|some|\d+|two|three|four|five)|what\s+are\s+(?:the|some)|"
    r"which\b[^?]*\b(?:are|were)|sebutkan|daftar|apa\s+saja|siapa\s+saja|mana\s+saja)\b",
    re.IGNORECASE,
)
_PRESUPPOSITION = re.compile(
    r"^(?:why\s+did|how\s+come|mengapa\s+\w+\s+(?:pernah|telah|sudah)|kenapa\s+\w+\s+(?:pernah|telah|sudah))\b|"
    r"\bwhy\s+is\s+it\s+(?:true|the\s+case)\s+that\b",
    re.IGNORECASE,
)
_FACTOID = re.compile(
    r"\b(?:who|whom|whose|when|where|which|what|siapa(?:kah)?|kapan(?:kah)?|(?:di|ke|dari)\s?mana(?:kah)?|apa(?:kah)?|"
    r"mana(?:kah)?|tahun\s+berapa(?:kah)?)\b",
    re.IGNORECASE,
)
_IMPOSSIBLE_DATE = re.compile(
    r"\b(?:(?:february|februari|feb)\.?\s+3[01](?:st|th)?|(?:april|june|juni|september|november|apr|jun|sep|sept|nov)"
    r"\.?\s+31(?:st)?|"
    r"3[01](?:st|th)?\s+(?:of\s+)?(?:february|februari|feb)|31(?:st)?\s+(?:of\s+)?(?:april|june|juni|september|november))\b",
    re.IGNORECASE,
)


def question_type(question: str) -> QuestionType:
    """A cue for the question's answer shape (seed 000 §4), first match wins: an impossible date
    ("June 31st") → false_premise_suspect; yes/no openers (English auxiliaries, "apakah" unless it
    means "what", as in "Apakah nama …") → yes_no; how many/much/old…, "berapa" → numeric; "than",
    "compared to", "lebih … dari", "mana yang", "which …, X or Y?" → comparison; list cues → list;
    average/total/percentage/population… → numeric, unless the question asks for a person, a place or a
    kind of thing ("which method … uses averages"); "why did", "how come", "why is it true that" →
    false_premise_suspect (a weak presupposition cue, not a verdict); wh-words → factoid; else other.
    A Chinese question is typed by its particles and question words (tools/question/anchors/chinese.py)."""
    text = " ".join(question.split())
    if is_chinese(text):
        return chinese_question_type(text)  # type: ignore[return-value]
    sentences = [s for s in re.split(r"(?<=[.?!])\s+", text) if s.strip()]
    last = sentences[-1] if sentences else ""
    if _IMPOSSIBLE_DATE.search(text):
        return "false_premise_suspect"
    if _YES_NO.match(last) and not re.search(r"\b(?:or|atau)\b[^?]*\?\s*$", last):
        return "yes_no"
    if _NUMERIC_STRONG.search(text):
        return "numeric"
    if _COMPARISON.search(text):
        return "comparison"
    if _LIST.search(text):
        return "list"
    if _NUMERIC_WEAK.search(text) and not _NON_QUANTITY_HEAD.match(last):
        return "numeric"
    if _PRESUPPOSITION.search(last):
        return "false_premise_suspect"
    return "factoid" if _FACTOID.search(text) else "other"
