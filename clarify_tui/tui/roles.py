"""Who a person can be in the workbench, and the default agent: the picker and the app's
startup need these names, not the engine the driver brings with it (first paint)."""

from __future__ import annotations

from typing import Literal

Role = Literal["observer", "user", "agent"]
ROLES: tuple[Role, ...] = ("observer", "user", "agent")
DEFAULT_AGENT = "scripted:search-then-ask"
