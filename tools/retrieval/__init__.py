"""Retrieval: BM25, dense + sparse fusion and gating, reranking, selection, pruning, evidence packing.

Here: from a query to the numbered passages the reader sees, and how strong that evidence is. Not
here: building and storing the index (`tools/index/`, `tools/postgres/`), what the question asks
for (`tools/question/`), and retrieval metrics for benchmarks (`eval/retrieval_metrics.py`).
"""
