"""The graph's nodes, one per module: each a small function `(state, runtime) -> partial update`.

Intake, anchor predictor, retriever worker, fuse and select, generator, signal meter, judge, BAUG
gate, round planner, query rewriter, HyDE writer, reflector and finalizer. A node reads the state
and the run's settings (`runtime.context`) and returns only what it changes.

Not here: the helpers nodes share (reader calls, support, retrieval, text: `tools/`), the gate's
decision itself (`graph/gate.py`, which the BAUG gate node only runs and logs), prompts (`prompts/`).
"""
