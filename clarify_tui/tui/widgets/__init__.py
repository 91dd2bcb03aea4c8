"""Widgets of the play screen, one module per screen region."""
