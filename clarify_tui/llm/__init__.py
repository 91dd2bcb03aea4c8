"""Talking to OpenAI-compatible models: the client wrapper, prompt loading, robust
parsing of model output (actions, JSON, yes/no replies). The backends built from them
are assembled in `clarify_tui.backends`.

Nothing here opens a connection at import time; clients are built lazily per event loop.
"""
