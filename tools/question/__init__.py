"""Question understanding: what a question names, asks for and may be rewritten into, before any evidence.

Here: anchors (`anchors/`: the names, dates, numbers and quoted strings an answer's evidence must
hold, and the question type), the expected answer type (`answer_type.py`; a Chinese question's type is read by
`anchors/chinese.py`) and the finer kind a (sub-)question asks for with the answers that fit it
(`asked_type.py`, country data in `country_names.py`), superlatives asked (`superlative.py`, which, as
anchor coverage does, also tells whether an evidence sentence states the one asked), the multi-hop
plan (`hop_plan.py`: nested descriptions, `hop_descriptions.py`, become single-hop sub-questions
naming earlier answers as #k), validation of the question as input (`validation.py`), and the checks
a rewrite of it must pass (`rewrite_guard.py`,
`rewrite_validation.py`). Not here: anything that reads passages or drafts — anchor coverage of the
evidence is matched by `anchors.coverage`, but how strong the evidence is lives in `tools/retrieval/`,
and reading answers in `tools/answer/`.
"""
