"""clarify-tui: a terminal workbench for clarification-aware search agents.

What a researcher's agent needs is importable from here (`from clarify_tui import Action,
AgentView`); see docs/agents.md. The names are loaded on first use, so `import clarify_tui`
stays light (no Textual, no pydantic until an agent touches a model).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

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

if TYPE_CHECKING:
    from clarify_tui import api
    from clarify_tui.agent_view import AgentView, ViewTurn
    from clarify_tui.agents.base import Agent
    from clarify_tui.errors import AgentFailed, AgentUnavailable
    from clarify_tui.models import Action, ActionKind, Observation, Protocol, SearchHit, Usage


def __getattr__(name: str) -> Any:
    if name == "api":
        return importlib.import_module("clarify_tui.api")
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'clarify_tui' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
