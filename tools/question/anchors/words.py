"""Closed English word classes, and a lower-case question's tokens labelled with them.

Without capitals nothing marks where a name starts or ends, but English function words, the verbs
questions are framed with and generic nouns ("man", "song", "name", "first") are closed, listable
classes: everything else is a candidate content word. The labels computed here ("f" boundary, "g"
generic, "n" number, "t" participle/adverb, "c" content) are what the title and phrase rules
(titles.py, phrases.py) read. The coverage check uses FUNCTION too, to find a phrase's content words.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from .model import STOP, TOKEN


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


FUNCTION = STOP | _wordset("""
    i me my mine myself we us our ours you your yours yourself he him his himself she her hers herself its
    itself them theirs themselves one ones someone somebody anyone anything something everything nothing
    whats what's whos who's whens when's wheres where's hows how's whose whom
    am been being done doing having can could would shall should may might must ought need needs cannot
    nor so than off out over under up down within without about above across after against along among
    around before behind below beneath beside besides between beyond during except inside near onto outside
    since through throughout till toward towards until upon via per like unlike together several
    also just only even ever still yet already really actually currently now today right very too much many
    more most less least few lot lots some any all each every both either neither other another same own else
    ago again further once twice here where when why how what which who whether whatever whenever wherever
    however previously originally usually recently finally mainly mostly commonly typically normally exactly
    approximately back apart away due
    don't doesn't didn't isn't aren't wasn't weren't can't won't it's that's there's they're we're you're
    i'm i've you've we've they've i'll you'll he'll she'll they'll we'll i'd you'd he'd she'd they'd let's
    dont doesnt didnt isnt arent wasnt werent cant wont thats theres theyre youre im ive
""")
VERBS = _wordset("""
    be is are was were do does did has have had will get gets got gotten getting make makes made making
    take takes took taken taking come comes came coming go goes went gone going give gives gave given say
    says said call calls called name named know knows knew known find finds found happen happens happened
    happening mean means meant use uses used using play plays played playing sing sings sang sung singing
    write writes wrote written writing win wins won winning lose loses lost die dies died kill kills killed
    start starts started starting begin begins began begun end ends ended become becomes became live lives
    lived born release releases released air airs aired premiere premiered film filmed shot located situated
    build builds built create creates created invent invented inventing discover discovered founded own owns
    owned run runs ran lead leads led starred direct directs directed produce produces produced compose
    composed design designed decide decides decided affect affects affected affecting impose imposed turn
    turns turned grow grows grew grown replace replaced appear appears appeared absorb absorbed control
    controls controlled trained involve involved warn warned score scores scored pay pays paid
    lie lies consider considered show shows showed shown showing sign signed return returns returned leave
    leaves left join joined marry married wear wore hold holds held host hosts hosted introduce introduced
    declare declared elect elected establish established form formed originate originated occur occurs
    occurred cause caused belong belongs contain contains refer refers referred represent represents stand
    stands work works worked see saw seen tell told help helps helped send sent demand demanded walk walked
    voice voices voiced portray portrayed buy bought sell sold cost costs want wants keep keeps kept move
    moved bring brought put think thought look looks seem seems allow allowed try tried ask asked reach
    reached rank ranked record recorded perform performs performed debut debuted launch launched close closed
    finish finished blow blows blew predict predicts agree agrees diagnose identify supposed dubbed enter
    enters entered define defined catch check install reverse split parse handle pause read evaluate
    evaluated behave exist exists execute executed count counts stop stops stopped change changes changed
    lasts lasted set sets explain require requires
""")
GENERIC = _wordset("""
    man men woman women girl girls boy boys guy guys person people kid kids child children baby lady
    mother father mom dad wife husband son daughter sister sisters brother brothers friend
    song songs movie movies film films show shows series episode episodes season seasons book books novel
    album albums lyrics lyric singer singers band actor actress actors cast character characters role voice
    theme tv name names time times year years day days date number numbers amount part parts type types kind
    kinds sort place places thing things way ways word words meaning definition difference purpose function
    job process reason example country countries city cities state team teams player players winner winners
    owner president king queen leader director head member members founder creator author writer story end
    beginning main first second third fourth fifth last next current original final latest recent best
    biggest largest highest oldest youngest longest top famous popular real whole full entire total average
    case cases cause causes effect effects importance impact history method methods percentage form forms
    official specific different various certain major important common map term two three four five six
    seven eight nine ten hundred fact facts problem problems step steps stage stages list shape order site
    period future english age body origin chairman ceo boyfriend girlfriend car cars
""")
COUNTRY_ACRONYMS = frozenset(("us", "usa", "uk", "un", "eu"))
# Without capitals a keyword is never a function word, a question verb or a generic noun.
LOWER_NOISE = FUNCTION | VERBS | GENERIC
QUESTION_OPENERS = frozenset((
    "who", "whom", "whose", "what", "what's", "whats", "when", "when's", "where", "where's", "which", "why", "how",
    "is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "has", "have", "had",
    "name", "list", "tell", "give", "define", "explain", "describe", "in", "on",
))  # fmt: skip


@dataclass(frozen=True)
class Word:
    """A token of a question without capitals (or the punctuation between two), with its word class."""

    start: int
    end: int
    low: str  # casefolded; "" for punctuation between tokens
    label: str  # "f" function word, verb or boundary · "g" generic · "n" number · "t" -ed/-ing/-ly · "c" content


def _label(low: str, previous: str, rest: str) -> str:
    if low in FUNCTION and not (low in COUNTRY_ACRONYMS and previous == "the"):  # "the us" is a country
        return "f"
    if low in VERBS or previous == "how" or (low == "open" and not rest):  # "how old is", "when did X open"
        return "f"
    if low.isdigit():
        return "n"
    if low in GENERIC or len(low) == 1 or (len(low) >= 6 and low.endswith(("able", "ible"))):
        return "g"  # "-able" adjectives: "make my class sortable" names no "class sortable"
    adverb = low.endswith("ly") and not low.endswith(("ily", "mbly", "oly", "fly", "ply"))  # not "family"
    participle = (len(low) >= 5 and low.endswith("ed")) or (len(low) >= 6 and (low.endswith("ing") or adverb))
    if participle and low.isalpha():
        return "t"  # a participle or adverb the verb list missed: "the hindenburg scheduled to fly"
    return "c"


def lower_words(question: str, taken: list[tuple[int, int]]) -> list[Word]:
    """The question's tokens, labelled. Punctuation between tokens is a boundary word, and so is a
    token inside a pattern anchor (a year, a number with a unit)."""
    words: list[Word] = []
    previous_end = 0
    for m in TOKEN.finditer(question):
        if words and re.search(r"[^\s'’]", question[previous_end : m.start()]):
            words.append(Word(previous_end, previous_end, "", "f"))
        previous_end = m.end()
        low = m.group().casefold()
        rest = question[m.end() :].strip(" ?.!")
        inside = any(s <= m.start() < e for s, e in taken)
        label = "f" if inside else _label(low, words[-1].low if words else "", rest)
        words.append(Word(m.start(), m.end(), low, label))
    return _mark_do_verb(words)


def _mark_do_verb(words: list[Word]) -> list[Word]:
    """After "did / does / do" the subject is followed by a bare verb, known or not: "when did the us
    cut off trade" → "us", "what does the pearl symbolize" → "pearl". The subject's last run (runs
    joined by "and", "of" belong to it) loses its last word when no known verb follows it."""
    lows = [w.low for w in words]
    aux = next((k for k in range(1, min(4, len(words))) if lows[k] in ("did", "does", "do")), None)
    if aux is None or lows[0] not in QUESTION_OPENERS:
        return words
    k = aux + 1
    while k < len(words):
        if lows[k] in VERBS:  # the verb is known ("how do i create …"): nothing to guess
            break
        if words[k].label == "f":
            k += 1
            continue
        end = k
        while end + 1 < len(words) and words[end + 1].label != "f":
            end += 1
        after = lows[end + 1] if end + 1 < len(words) else ""
        verb_next = end + 2 < len(words) and lows[end + 2] in VERBS  # "the heart develop and begin …"
        if after in ("and", "or", "&", "of") and not verb_next:
            k = end + 2
            continue
        if end > k and after not in VERBS:
            words = [*words[:end], replace(words[end], label="f"), *words[end + 1 :]]
        break
    return words
