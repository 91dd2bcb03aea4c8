"""clarify-tui: a terminal workbench for clarification-aware search agents."""

__version__ = "0.1.0"
