"""The PostgreSQL + pgvector backend: schema, writes, search, the LangChain VectorStore, a local server."""
