"""The local index: building it incrementally, storing it (FAISS + SQLite + BM25), embeddings."""
