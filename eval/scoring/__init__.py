"""The yardstick: scoring that owns every rule it applies.

Nothing in this package imports product code (answer stage, text helpers, agents, the gate or the
support measure), so a change to the product cannot move a score. `tests/unit/test_eval_independence.py`
fails if an import here, or in the report built from it, reaches into the product.
"""
