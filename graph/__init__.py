"""The graph itself: state, settings, signals, the gate and the wiring.

Here: the state and its reducers (`state.py`), the one settings dataclass and its bounds
(`config.py`, `bounds.py`), the presets, the signal contract (`signals.py`), the BAUG gate
(`gate.py`, a pure function of the signals, its withdrawal rules one table), the round-2 strategy,
routing and the builder; checkpointers, thread locks and the Studio server glue that the graph's
runs need.

Not here: what a node does (`agents/`, one node per module), how text, retrieval, answers and
models work (`tools/`), prompts (`prompts/`), evaluation (`eval/`), the command line and the HTTP
service (`anchorgate/`).
"""
