"""Protocols: one folder per protocol (see README.md). Kept light: importing a
folder's low tier must not load its high tier."""
