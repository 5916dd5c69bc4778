"""`anchorgate serve`: the graph as an HTTP service (JSON, server-sent events, threads, metrics) and a web page.

The app (`app.create_app`) runs the same graph and the same checks as the CLI and the Studio server:
settings go through `studio.checks.resolve_settings`, questions through `validate_question`,
thread ids through `anchorgate.threads.validate_thread_id`, and every run that writes a thread holds
the thread's lock (`graph.thread_lock`), so two instances on one store never interleave a thread.
"""
