"""The local index: building it incrementally, storing it (FAISS + SQLite + BM25), embeddings.

Here: the build and its atomic publication, slots and on-disk generations, the embedding models
and their choice by language, and `StoreIndex`, a server store's collection seen as an index. Not
here: searching an index (`tools/retrieval/`) and the PostgreSQL store itself (`tools/postgres/`).
"""
