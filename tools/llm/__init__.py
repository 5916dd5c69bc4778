"""LLM access: chat models (llama.cpp, OpenAI-compatible, Ollama), budgeted calls, faults, usage, model files.

Here: how a call is made, held to the token budget, retried, recorded and counted, and where the
local model comes from. Not here: what is asked — prompts (`prompts/`), the reader's and judge's
messages and how replies are read (`tools/answer/`, `agents/`).
"""
