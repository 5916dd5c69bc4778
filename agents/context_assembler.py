"""Context assembler: pack the round's evidence into numbered passages under the token cap."""

from __future__ import annotations

import time
from typing import Any

from langgraph.runtime import Runtime

from anchorgate.graph.config import Config
from anchorgate.graph.state import State
from anchorgate.tools.evidence import to_chunk
from anchorgate.tools.packing import pack_context


async def assemble_context(state: State, runtime: Runtime[Config]) -> dict[str, Any]:
    """The generator's evidence: this round's chunks by score, packed to `max_context_tokens`."""
    config = runtime.context
    started = time.perf_counter()
    current = [e for e in state.get("evidence", []) if e["round"] == state.get("round", 1)]
    ranked = sorted(current, key=lambda e: (-e["score"], e["rank"], e["id"]))[: config.retrieval_k]
    packed = pack_context([to_chunk(e) for e in ranked], config.max_context_tokens)
    by_id = {e["id"]: e for e in ranked}
    context = [{**by_id[cid], "n": number} for cid, number in packed.passages]
    return {
        "context": context,
        "context_text": packed.text,
        "context_tokens": packed.tokens,
        "latency": {"assemble_context": time.perf_counter() - started},
    }
