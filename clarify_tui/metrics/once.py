"""One task is counted once per run, role and player (and epoch).

Why: a merged database can hold two completed sessions of one task by one player of one
run (a person who played a task in the TUI queue and again in the browser campaign under
the same name; two copies of a run pooled with `merge --pool`). Counting both weights that
task twice. The rule (docs/scoring.md): among the completed sessions that share
`counting_key`, the earliest (created_at, then session id) is scored and the others are
left out with a warning. The key holds the session's role (metrics/roles.py): a person who
played a task as the agent and then as the user of a scripted agent played two different
sessions, both counted (and scored apart). It depends on the sessions' own data only, never
on the order of files or arguments. Sessions that did not complete are left alone: the exclusion counts
(errored, abandoned, ...) report them as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from clarify_tui.metrics.records import SCORED_STATUS
from clarify_tui.metrics.roles import role_of


class _Played(Protocol):
    """What the rule reads: a ScoredSession, or a models.Session (the export)."""

    @property
    def id(self) -> str: ...
    @property
    def run(self) -> str: ...
    @property
    def task_id(self) -> str: ...
    @property
    def agent(self) -> str: ...
    @property
    def annotator(self) -> str | None: ...
    @property
    def mode(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def created_at(self) -> Any: ...
    @property
    def protocol(self) -> Any: ...


S = TypeVar("S", bound=_Played)


def counting_key(s: _Played) -> tuple:
    """Who played which task, in which role, run and epoch (`run --epochs N`): one scored
    session per key. The player is the annotator (a person) and the agent spec, except for a
    person playing the agent: the agent is then the person, whatever spec the session was
    stored under (the TUI's `human`, a campaign's own)."""
    role = role_of(s)
    agent = "" if role == "human_agent" else s.agent
    return (str(s.protocol), s.run, role, s.annotator or "", agent, s.task_id, getattr(s, "epoch", 0) or 0)


def player(s: _Played) -> str:
    """Who played, in words: `annotator ana as the agent`, `annotator ana as the user of
    agent X`, `agent X` (stepped: `agent X, stepped by a person`)."""
    role = role_of(s)
    if role == "human_agent":
        return f"annotator {s.annotator} as the agent" if s.annotator else "a person as the agent"
    if role == "human_user":
        who = f"annotator {s.annotator}" if s.annotator else "a person"
        return f"{who} as the user of agent {s.agent}"
    return f"agent {s.agent}" + (", stepped by a person" if role == "stepped" else "")


@dataclass(frozen=True, slots=True)
class Duplicate(Generic[S]):
    kept: S
    left_out: S

    def describe(self, kept_as: str = "scored") -> str:
        """The warning line; `kept_as` says what became of the earliest (an export: "exported")."""
        epoch = getattr(self.kept, "epoch", 0) or 0
        task = f"task {self.kept.task_id}" + (f" epoch {epoch}" if epoch else "")
        return (
            f"run {self.kept.run}, {player(self.kept)}, {task}: completed twice; {kept_as} the earliest "
            f"session {self.kept.id}, left out {self.left_out.id}"
        )


def count_once(sessions: Sequence[S]) -> tuple[list[S], list[Duplicate[S]]]:
    """The sessions with every later completed duplicate left out, and what was left out."""
    first: dict[tuple, S] = {}
    for s in sessions:
        if s.status == SCORED_STATUS:
            key = counting_key(s)
            held = first.get(key)
            if held is None or (s.created_at or "", s.id) < (held.created_at or "", held.id):
                first[key] = s
    if len(first) == sum(1 for s in sessions if s.status == SCORED_STATUS):
        return list(sessions), []
    kept: list[S] = []
    dropped: list[Duplicate[S]] = []
    for s in sessions:
        winner = first.get(counting_key(s)) if s.status == SCORED_STATUS else None
        if winner is None or winner is s:
            kept.append(s)
        else:
            dropped.append(Duplicate(winner, s))
    return kept, dropped
