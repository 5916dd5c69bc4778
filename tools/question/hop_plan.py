"""A multi-hop question as a chain of single-hop sub-questions, before any retrieval.

"Who is the spouse of the author of Dead Ernest?" is two questions: "Who is the author of Dead
Ernest?" (#1), then "Who is the spouse of #1?". Retrieving for the whole question finds the first
hop's passage and stops at the bridge entity; retrieving hop by hop, each with the earlier answers
filled in, reaches the passage that holds the answer.

- `plan_hops(question)`: a deterministic parser of nested descriptions
  (`tools/question/hop_descriptions.py`), innermost first: each description becomes a hop and is
  replaced by `#k` in what is left, until what is left asks nothing of its own.
- `parse_plan_text(text)`: the same plan read from a planner's numbered lines ("1. …", "2. … #1 …"),
  whose shape `PLAN_GRAMMAR` (GBNF) constrains, so an LLM planner can be wired in without new checks.
- Both validate the same way: a cycle, a forward or dangling `#k`, an empty hop, a hop no later hop
  uses or more than `MAX_HOPS` hops fall back to the single-hop plan (the question itself) with the
  reason recorded, never a half-plan.
- `HopPlan.fill(k, answers)`: hop k with the verified earlier answers substituted; an empty or
  "I don't know" answer is refused (`UnusableHopAnswer`), never passed on as an empty string.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from anchorgate.tools.answer.text import is_idk
from anchorgate.tools.question.hop_descriptions import find_descriptions, is_trivial_remainder

MAX_HOPS = 4
_MAX_EXTRACTIONS = 8  # more descriptions than this is not a question this parser reads
_REF = re.compile(r"#(\d+)\b")
_LINE = re.compile(r"^\s*(\d+)[.)]\s*(.*?)\s*$")

# One plan line per hop, numbered from 1; a hop's text names earlier answers as #1, #2 …
PLAN_GRAMMAR = r"""root ::= hop{1,4}
hop  ::= [1-4] ". " text "\n"
text ::= piece+
piece ::= [^#\n] | "#" [1-3]
"""


class UnusableHopAnswer(ValueError):
    """An earlier hop's answer cannot be substituted: missing, empty or a refusal ("I don't know")."""


@dataclass(frozen=True)
class HopPlan:
    """The hops of a question (hop k, 1-based, may name hop j < k's answer as `#j`) and why it is so.

    `reason` is `multi_hop_descriptions` / `planned` for a multi-hop plan, `single_hop_*` when no
    description splits off, `fallback_*` when a plan was rejected. `entities` are the names the
    question's descriptions are about ("Dead Ernest"), read by `is_bridge_answer`.
    """

    hops: tuple[str, ...]
    reason: str
    entities: tuple[str, ...] = ()

    @property
    def is_multi_hop(self) -> bool:
        """More than one hop: retrieval must go hop by hop."""
        return len(self.hops) > 1

    def fill(self, hop_index: int, answers: Sequence[str]) -> str:
        """Hop `hop_index` (0-based) with `#j` replaced by `answers[j - 1]`.

        Raises `UnusableHopAnswer` when a named answer is missing, empty or a refusal: an empty
        string or "I don't know" fed into the next hop would retrieve for nothing, or for the
        refusal's words, and the chain must stop there instead.
        """
        if not 0 <= hop_index < len(self.hops):
            raise IndexError(f"hop {hop_index} of a {len(self.hops)}-hop plan")

        def substitute(match: re.Match[str]) -> str:
            j = int(match.group(1))
            answer = answers[j - 1].strip() if j <= len(answers) else ""
            if not answer or is_idk(answer):
                raise UnusableHopAnswer(f"hop {hop_index + 1} needs #{j}, which has no usable answer: {answer!r}")
            return answer

        return _REF.sub(substitute, self.hops[hop_index])


def single_hop(question: str, reason: str, entities: tuple[str, ...] = ()) -> HopPlan:
    """The question itself as its only hop."""
    return HopPlan((question.strip(),), reason, entities)


def validation_error(hops: Sequence[str]) -> str | None:
    """Why these hops are not a usable plan (a `fallback_*` reason), or None.

    Checked in order: too many hops, an empty hop, a dangling `#k` (no such hop), a cycle (a hop
    reaching itself through its references), a forward `#k` (a later hop named before it is
    answered), a hop whose answer no later hop uses (the chain would drop it).
    """
    if len(hops) > MAX_HOPS:
        return "fallback_too_many_hops"
    if any(not hop.strip() for hop in hops):
        return "fallback_empty_hop"
    refs = [{int(j) for j in _REF.findall(hop)} for hop in hops]
    if any(j < 1 or j > len(hops) for found in refs for j in found):
        return "fallback_dangling_reference"
    if _has_cycle(refs):
        return "fallback_cycle"
    if any(j >= k for k, found in enumerate(refs, 1) for j in found):
        return "fallback_forward_reference"
    used = set().union(*refs)
    if any(k not in used for k in range(1, len(hops))):
        return "fallback_unused_hop"
    return None


def _has_cycle(refs: Sequence[set[int]]) -> bool:
    """Whether the reference graph (hop k → the hops it names) has a cycle, a self-reference included."""
    state: dict[int, str] = {}

    def visit(k: int) -> bool:
        state[k] = "open"
        for j in refs[k - 1]:
            if state.get(j) == "open" or (j not in state and visit(j)):
                return True
        state[k] = "done"
        return False

    return any(k not in state and visit(k) for k in range(1, len(refs) + 1))


def validated(question: str, hops: Sequence[str], reason: str, entities: tuple[str, ...] = ()) -> HopPlan:
    """`hops` as a plan when they pass `validation_error`, else the single-hop plan with the reason."""
    error = validation_error(hops)
    if error is not None:
        return single_hop(question, error, entities)
    if len(hops) == 1:
        return single_hop(hops[0], reason, entities)
    return HopPlan(tuple(h.strip() for h in hops), reason, entities)


@lru_cache(maxsize=1024)  # read at intake and again by the signal meter each round; a pure function
def plan_hops(question: str) -> HopPlan:
    """The question as hops, innermost description first (see the module docstring).

    The rightmost description whose argument is a name or `#k` is the innermost one (an argument
    follows its relation in English, "the birthplace of the author of X"), so it is split off first
    and its span becomes `#k`; a description that is the whole question ("Who is the author of X?")
    stays: what would be left asks nothing.
    """
    current = " ".join(question.split())
    if not current:
        return single_hop(question, "single_hop_empty")
    hops: list[str] = []
    entities: list[str] = []
    for _ in range(_MAX_EXTRACTIONS):
        step = _next_hop(current, len(hops) + 1)
        if step is None:
            break
        sub_question, current, argument = step
        hops.append(sub_question)
        if not argument.startswith("#"):
            entities.append(argument)
    else:
        return single_hop(question, "fallback_too_many_hops", tuple(entities))
    entities.extend(d.argument for d in find_descriptions(current) if not d.argument.startswith("#"))
    if not hops:
        reason = "single_hop_description_is_question" if entities else "single_hop_no_description"
        return single_hop(question, reason, tuple(entities))
    return validated(question, [*hops, current], "multi_hop_descriptions", tuple(dict.fromkeys(entities)))


def _next_hop(text: str, number: int) -> tuple[str, str, str] | None:
    """(sub-question, text with its description replaced by `#number`, argument), or None."""
    for found in sorted(find_descriptions(text), key=lambda d: (-d.start, d.end)):
        rest = f"{text[: found.start]}#{number}{text[found.end :]}"
        if not is_trivial_remainder(rest):
            return found.question, rest, found.argument
    return None


def parse_plan_text(text: str, question: str = "") -> HopPlan:
    """A planner's numbered hop lines ("1. …", "2. … #1 …") for `question` as a validated plan.

    Lines must be numbered 1, 2, … in order (anything else is `fallback_unnumbered`). A rejected
    plan falls back to `question` (the planner's text when no question is given).
    """
    fallback = question.strip() or text.strip()
    lines = [line for line in text.splitlines() if line.strip()]
    matches = [_LINE.match(line) for line in lines]
    hops = [m.group(2) for m in matches if m is not None]
    numbers = [int(m.group(1)) for m in matches if m is not None]
    if not hops or len(hops) != len(lines) or numbers != list(range(1, len(hops) + 1)):
        return single_hop(fallback, "fallback_unnumbered")
    return validated(fallback, hops, "planned" if len(hops) > 1 else "single_hop_planned")
