"""Retrieval: BM25, dense + sparse fusion and gating, reranking, selection, pruning, evidence packing."""
