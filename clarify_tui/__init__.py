"""clarify-tui: a terminal workbench for clarification-aware search agents.

What a researcher's agent needs is importable from here (`from clarify_tui import Action,
AgentView`); see docs/agents.md. The names are loaded on first use, so `import clarify_tui`
stays light (no Textual, no pydantic until an agent touches a model).
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> the module that defines it
_PUBLIC = {
    "Action": "clarify_tui.models",
    "ActionKind": "clarify_tui.models",
    "Observation": "clarify_tui.models",
    "SearchHit": "clarify_tui.models",
    "Usage": "clarify_tui.models",
    "Protocol": "clarify_tui.models",
    "AgentView": "clarify_tui.agent_view",
    "ViewTurn": "clarify_tui.agent_view",
    "Agent": "clarify_tui.agents.base",
    "AgentUnavailable": "clarify_tui.errors",
    "AgentFailed": "clarify_tui.errors",
}
__all__ = ["__version__", "api", *_PUBLIC]
# No imports here, not even under TYPE_CHECKING: every module imports this package (for
# __version__), and the layers contract counts those imports too.


def __getattr__(name: str) -> Any:
    if name == "api":
        return importlib.import_module("clarify_tui.api")
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'clarify_tui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
