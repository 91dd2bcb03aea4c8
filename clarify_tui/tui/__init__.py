"""The Textual workbench. It drives the engine (`clarify_tui.engine.Episode`) and never
re-implements protocol rules: what is allowed, what a reply may be and how a session is
scored all come from the engine and its backends.

Nothing outside this package imports it; the core stays free of textual.
"""
