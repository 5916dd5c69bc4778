"""The graph itself: state, settings, signals, the gate and the wiring.

Here: the state and its reducers (`state.py`), the settings (`config.py`; its seven groups in
`config_groups.py`, names and checks in `config_keys.py`, `config_checks.py`, `config_rules.py`,
`bounds.py`), the presets, the signal contract (`signals.py`), the BAUG gate (`gate.py`, a pure
function of the signals, its withdrawal rules one table), the round strategy, routing, the builder,
and what a run's resources must reach (`resources.py`).

Not here: what a node does (`agents/`, one node per module), how text, retrieval, answers and
models work (`tools/`; checkpoint stores and thread locks in `tools/checkpoints/`), Studio's server
glue (`studio/`), prompts (`prompts/`), evaluation (`eval/`), the command line and the HTTP service
(`anchorgate/`).
"""
