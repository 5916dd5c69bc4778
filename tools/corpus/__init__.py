"""Corpora: loading folders, JSONL, PDF and DOCX into passages, and chunking them."""
