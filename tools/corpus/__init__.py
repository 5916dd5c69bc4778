"""Corpora: loading folders, JSONL, HTML, PDF and DOCX into passages, and chunking them.

Here: the plain data types shared downstream (`documents.py`), the loaders, how a text file's bytes
are decoded (`encoding.py`: UTF-8, GB18030, Big5), hidden-text filtering and chunking. Not here:
embedding and storing chunks (`tools/index/`, `tools/postgres/`) and the evaluation's dataset
loaders (`eval/datasets/`).
"""
