"""LangGraph Studio's server glue: the graph it serves, and the checks every request passes first.

Here: the graph entry `langgraph dev` loads (`entry.py`, the graph without a checkpointer), the
HTTP middleware that checks each run, assistant and cron request before the server stores it
(`app.py`), and the checks themselves (`checks.py`: the full settings of a context, the run input;
the HTTP service of `anchorgate serve` uses them too). `langgraph.json` names the first two.

Not here: the `anchorgate studio` launcher and its state folder (`anchorgate/studio_cli.py`,
`anchorgate/studio_state.py`), the graph (`graph/`).
"""
