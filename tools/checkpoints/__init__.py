"""Where runs are kept: the checkpoint stores, their health, and the locks that keep one run per thread.

Here: opening the SQLite or PostgreSQL checkpointer a run writes to (`store.py`), reading a store's
health and moving a damaged one aside (`health.py`), and the thread lock — a file lock beside a
SQLite store, an advisory lock on PostgreSQL — that refuses a second run of a busy thread
(`lock.py`). They read the `resources` settings through `tools/settings.py`'s protocols.

Not here: what a thread's history, replay and resume mean (`anchorgate/threads.py`), the graph
(`graph/`), pruning old threads from the command line (`anchorgate/prune_cli.py`).
"""
