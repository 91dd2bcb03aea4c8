"""A session's role: who acted in it, read from its stored `mode`.

Why: a person's sessions, an agent stepped or edited by a person and an agent left alone
are different experiments; one number over them means nothing: a person's sessions
are counted by role (agent or user) and never pooled with automated ones (docs/scoring.md).
The role is part of a session's counting identity (metrics/once.py) and splits a score
group whose sessions have several (metrics/report.py). The mode is written when the
session starts (`play --as agent|user`, a replay fork played by a person) and becomes
`stepped` the first time a person applies an action in step mode (tui/driver.py), so
every stored session, old files included, has one.

| role | stored mode | who acted |
|---|---|---|
| automated | automated | the agent alone (`run`, or watched in the TUI) |
| stepped | stepped | the agent, stepped by a person, who may have edited or replaced its actions |
| human_agent | human_agent | a person as the agent |
| human_user | human_user | a person as the user, answering the agent |
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from clarify_tui.metrics.model import Group

ROLES = ("automated", "stepped", "human_agent", "human_user")
ROLE_LABELS = {
    "automated": "automated",
    "stepped": "stepped by a person",
    "human_agent": "person as agent",
    "human_user": "person as user",
}


def role_of(s: Any) -> str:
    """The role of a session (a models.Session, a ScoredSession or an export's row)."""
    mode = str(getattr(s, "mode", None) or "automated")
    return mode if mode in ROLES else "automated"


def split_by_role(members: list[Any]) -> dict[str | None, list[Any]]:
    """`{None: members}` when they share one role; else the members per role, in ROLES order."""
    roles = {role_of(s) for s in members}
    if len(roles) <= 1:
        return {None: members}
    return {role: [s for s in members if role_of(s) == role] for role in ROLES if role in roles}


def role_label(role: str) -> str:
    return ROLE_LABELS.get(role, role)


def mixed_role_lines(groups: Iterable[Group], by: str) -> list[str]:
    """One line per grouped-by value split by role (its groups' key carries `role`): what
    the `score` table and the scores screen print, so a reader sees why one run has several
    columns and that they are never one number."""
    split: dict[Any, list[str]] = {}
    for g in groups:
        if g.role is not None:
            split.setdefault(g.key.get(by), []).append(role_label(g.role))
    return [
        f"{'no annotator' if value is None else f'{by} {value}'} mixes roles, scored apart "
        f"(never one number): {', '.join(roles)}"
        for value, roles in split.items()
    ]
