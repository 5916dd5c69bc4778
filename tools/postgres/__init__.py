"""The PostgreSQL + pgvector backend: schema, writes, search, the LangChain VectorStore, a local server.

Here: everything that talks to the server. Not here: fusion and gating of its candidates, which it
shares with the local index (`tools/retrieval/hybrid.py`, `searcher.py`), and checkpoints
(`graph/`).
"""
