"""Riddle: a small protocol from an installed package (clarify-tui docs/protocols.md)."""
