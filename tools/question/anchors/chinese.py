"""Anchors and question types of Chinese questions: no capitals and no spaces to read names from.

What a Chinese question marks explicitly is what is used: book-title brackets 《…》 and 〈…〉 (title),
corner and curly quotes 「…」『…』“…” (quoted), dates written "1986年10月9日", "1986年10月" or
"10月9日" (date; the ISO and English forms are aliases), years written "2019年" or "一九八六年" (year;
the Arabic form is an alias), Latin-script names inside the question ("Python", "NBA"; entity or
acronym). An anchor in Chinese characters also gets its Simplified and Traditional forms as aliases
(《紅樓夢》 is found in a passage that writes 《红楼梦》), so a question in one script is covered by
evidence in the other. The rest of the question is cut at its
question words, function characters and punctuation; the longest remaining runs (two characters or
more) are keywords: never essential, so the gate never abstains on a guess, but each still gets its
own retriever worker. Question types come from the particles and question words that carry them
(吗 → yes/no, 多少/几 → numeric, 哪些 → list, 还是/比 → comparison, 为什么/怎么 → other).
"""

from __future__ import annotations

import re

from anchorgate.tools.text.chinese_numbers import parse_number
from anchorgate.tools.text.chinese_script import to_script
from anchorgate.tools.text.cjk import CJK_CHAR, CJK_RUN, cjk_share

from .model import CONFIDENCE, Anchor, AnchorKind, Candidate

MIN_SHARE = 0.3  # a question at least this much CJK (by letters) is read with these rules

_TITLE = re.compile(r"《([^》]{1,60})》|〈([^〉]{1,60})〉")
_QUOTED = re.compile(r"「([^」]{1,60})」|『([^』]{1,60})』|“([^”]{1,60})”")
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})年")
_NUMERAL_YEAR = re.compile(r"([〇○零一二三四五六七八九]{4})年")
_DATE = re.compile(
    r"(?<!\d)(?P<year>1\d{3}|20\d{2})年(?P<month>1[0-2]|0?[1-9])月(?:(?P<day>3[01]|[12]\d|0?[1-9])[日号])?"
    r"|(?<![\d年])(?P<month2>1[0-2]|0?[1-9])月(?P<day2>3[01]|[12]\d|0?[1-9])[日号]"
)
_MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November",
    "December",
)  # fmt: skip
_LATIN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z][A-Za-z0-9.+#'&-]*(?:\s+[A-Z][A-Za-z0-9.+#'&-]*)*")
# Question words, function characters and years in numerals: what separates the content runs of a question.
_BREAK = re.compile(
    r"[〇○零一二三四五六七八九]{4}年|为什么|什么时候|是什么|有什么|什么|哪一?[个年些里儿位种天次支家本部座条所国]?|怎么样|怎么|怎样|如何|"
    r"多少[个位名种次年]?|几[个位名种次年]?|是否|是不是|有没有|有哪些|请问|谁|吗|呢|吧|"
    r"[的了是在][^\w]*|[^\w]+"
)
_MAX_KEYWORDS = 3


def is_chinese(question: str) -> bool:
    """Whether `question` is read by the Chinese rules (at least `MIN_SHARE` of its letters are CJK)."""
    return CJK_CHAR.search(question) is not None and cjk_share(question) >= MIN_SHARE


def _anchor(text: str, kind: AnchorKind, essential: bool = True, aliases: tuple[str, ...] = ()) -> Anchor:
    """An anchor whose aliases also hold its text in the other Chinese script (none for Latin text)."""
    scripts = (to_script(text, "simplified"), to_script(text, "traditional"))
    forms = tuple(dict.fromkeys(f for f in (*aliases, *scripts) if f != text))
    return Anchor(text, kind, essential, CONFIDENCE[kind], forms)


def _dates(question: str) -> list[Candidate]:
    """Dates ("1986年10月9日", "1986年10月", "10月9日") as anchors, their ISO and English forms as aliases."""
    out: list[Candidate] = []
    for m in _DATE.finditer(question):
        year, day = m.group("year"), m.group("day") or m.group("day2")
        month = int(m.group("month") or m.group("month2"))
        name = _MONTH_NAMES[month - 1]
        aliases: tuple[str, ...]
        if year and day:
            aliases = (f"{year}-{month:02d}-{int(day):02d}", f"{int(day)} {name} {year}")
        else:
            aliases = (f"{name} {year}",) if year else (f"{int(day)} {name}",)
        out.append((m.start(), m.end(), _anchor(m.group(), "date", aliases=aliases)))
    for m in _NUMERAL_YEAR.finditer(question):  # 一九八六年 is the year 1986
        value = parse_number(m.group(1))
        arabic = (str(int(value)),) if value is not None else ()
        out.append((m.start(1), m.end(1), _anchor(m.group(1), "year", aliases=arabic)))
    return out


def chinese_candidates(question: str) -> list[Candidate]:
    """Titles, quotes, dates, years, Latin-script names and content keywords of a Chinese question."""
    out: list[Candidate] = []
    for m in _TITLE.finditer(question):
        out.append((m.start(), m.end(), _anchor(next(g for g in m.groups() if g).strip(), "title")))
    for m in _QUOTED.finditer(question):
        out.append((m.start(), m.end(), _anchor(next(g for g in m.groups() if g).strip(), "quoted")))
    for m in _YEAR.finditer(question):
        out.append((m.start(1), m.end(1), Anchor(m.group(1), "year", True, CONFIDENCE["year"])))
    out.extend(_dates(question))
    for m in _LATIN.finditer(question):
        text = m.group().rstrip(".-'")
        if text.isupper() and len(text) >= 2:
            out.append((m.start(), m.start() + len(text), Anchor(text, "acronym", True, CONFIDENCE["acronym"])))
        elif text[:1].isupper() or any(ch.isdigit() for ch in text):
            out.append((m.start(), m.start() + len(text), Anchor(text, "entity", True, CONFIDENCE["entity"])))
    return out + _keywords(question)


def _keywords(question: str) -> list[Candidate]:
    """The longest CJK content runs (≥ 2 characters) between question words and function characters."""
    runs: list[tuple[int, int]] = []
    position = 0
    for m in [*_BREAK.finditer(question), None]:
        end = m.start() if m else len(question)
        for run in CJK_RUN.finditer(question, position, end):  # digits and Latin names are anchors already
            if run.end() - run.start() >= 2:
                runs.append((run.start(), run.end()))
        position = m.end() if m else end
    ranked = sorted(runs, key=lambda r: (-(r[1] - r[0]), r[0]))[:_MAX_KEYWORDS]
    return [(s, e, _anchor(question[s:e], "keyword", essential=False)) for s, e in ranked]


_YES_NO = re.compile(r"吗\s*[？?]?\s*$|是否|是不是|有没有|能不能|会不会|对不对|可不可以")
_NUMERIC = re.compile(r"多少|几(?:个|年|岁|次|种|位|名|天|月|人|座|条|家|部|本)|多(?:大|高|长|远|久|重|深|宽)|百分之")
_COMPARISON = re.compile(r"还是|比[^？?]*(?:更|还)|哪个更|哪一个更|相比")
_LIST = re.compile(r"哪些|列举|列出|有什么(?:样的)?[^？?]*(?:们)")
_OPEN = re.compile(r"为什么|为何|怎么|怎样|如何|原因")
_FACTOID = re.compile(r"谁|什么|哪|何时|何地|几时")


def chinese_question_type(question: str) -> str:
    """The answer shape a Chinese question asks for (the same labels as `question_type`)."""
    if _YES_NO.search(question):
        return "yes_no"
    if _NUMERIC.search(question):
        return "numeric"
    if _COMPARISON.search(question):
        return "comparison"
    if _LIST.search(question):
        return "list"
    if _OPEN.search(question):
        return "other"
    return "factoid" if _FACTOID.search(question) else "other"
