"""Who a person can be in the workbench, and the default agent: the picker and the app's
startup need these names, not the engine the driver brings with it (first paint)."""

from __future__ import annotations

from typing import Literal

Role = Literal["observer", "user", "agent"]
ROLES: tuple[Role, ...] = ("observer", "user", "agent")
DEFAULT_AGENT = "scripted:search-then-ask"


def as_role(value: object) -> Role:
    """`value` (a select's or a flag's) as a Role; ValueError for anything else."""
    for role in ROLES:
        if value == role:
            return role
    raise ValueError(f"no role {value!r} (one of {', '.join(ROLES)})")
