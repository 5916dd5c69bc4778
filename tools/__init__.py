"""The product's tools: plain functions and classes the graph's nodes call; nothing here knows the graph.

Rooms: `corpus/` (documents in), `index/` and `postgres/` (where chunks are stored and searched),
`retrieval/` (search, fusion, selection, packing), `question/` (reading the question),
`answer/` (reading and checking answers), `text/` (language-level text handling), `llm/` (model
calls). At the top: errors and their exit codes, cache paths, and the services (index, embeddings,
chat model) of one configuration. Not here: graph state, settings, signals and the gate (`graph/`),
the nodes (`agents/`), prompts (`prompts/`) and the evaluation (`eval/`).
"""
