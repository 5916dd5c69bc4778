"""How an answer's cited passages stand to the question's named anchors: bridged, or unanchored.

Both signals read the passages a draft cites (`[n]` markers) against the question's names as
spelled: entity, title, quoted and acronym anchors not inferred from a lower-case question. Years
and numbers are left out: a year the cited passage lacks is a doubt about the answer, not a hop
(NQ-open 70: "LeBron James" for the 1976 best picture).

- bridged: the cited passages miss a named anchor that another context passage holds. The answer
  stands on a link between passages (a two-hop answer), which a judge reading only the cited
  passages cannot see.
- unanchored: the cited passages hold none of the named anchors, other context passages do, and
  no title mention links a cited passage to one of them. The answer comes from a passage about
  something else ("siapakah karakter utama dalam manga One Piece?" answered "Naruto Uzumaki" from
  the Naruto character list while One Piece passages sat beside it). A true two-hop answer is
  linked: the first hop's passage names the second's title ("FIFA U-20 Golden Shoe" → "Sergio
  Agüero" → "Striker"), or the second names the first's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from anchorgate.tools.answer.text import cited_passages
from anchorgate.tools.question.anchors import Anchor, anchor_coverage
from anchorgate.tools.retrieval.bridges import mention_name, mentions

NAMED_KINDS = frozenset(("entity", "title", "quoted", "acronym"))


def _text(passage: Mapping[str, Any]) -> str:
    return f"{passage['title']} {passage['text']}"


def answer_bridged(named: Sequence[Anchor], draft: str, context: Sequence[Mapping[str, Any]]) -> bool:
    """The passages the draft cites miss a named question anchor that another context passage holds."""
    cited = cited_passages(draft, context)
    if not cited or not named:
        return False
    _, missing_in_cited = anchor_coverage(named, [_text(p) for p in cited])
    if not missing_in_cited:
        return False
    others = [_text(p) for p in context if p not in cited]
    _, missing_elsewhere = anchor_coverage(missing_in_cited, others)
    return len(missing_elsewhere) < len(missing_in_cited)


def answer_unanchored(named: Sequence[Anchor], draft: str, context: Sequence[Mapping[str, Any]]) -> bool:
    """The cited passages hold no named anchor, another passage does, and no title mention links them."""
    essential = [a for a in named if a.essential]
    cited = cited_passages(draft, context)
    if not cited or not essential:
        return False
    covered, _ = anchor_coverage(essential, [_text(p) for p in cited])
    if covered > 0.0:
        return False
    holders = [p for p in context if p not in cited and anchor_coverage(essential, [_text(p)])[0] > 0.0]
    if not holders:  # the anchor is in no passage: the gate's missing-anchor rules decide
        return False
    return not any(_linked(source, holder) for source in cited for holder in holders)


def _linked(cited: Mapping[str, Any], holder: Mapping[str, Any]) -> bool:
    """One passage names the other's subject (its title as running text mentions it)."""
    if cited["title"] == holder["title"]:
        return True
    return mentions(holder["text"], mention_name(cited["title"])) or mentions(
        cited["text"], mention_name(holder["title"])
    )
