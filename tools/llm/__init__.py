"""LLM access: chat models (llama.cpp, OpenAI-compatible, Ollama), budgeted calls, faults, usage, model files."""
