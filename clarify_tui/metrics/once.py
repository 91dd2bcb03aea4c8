"""One task is counted once per run, agent or annotator (and epoch).

Why: a merged database can hold two completed sessions of one task by one player of one
run (a person who played a task in the TUI queue and again in the browser campaign under
the same name; two copies of a run pooled with `merge --pool`). Counting both weights that
task twice. The rule (docs/scoring.md): among the completed sessions that share
`counting_key`, the earliest (created_at, then session id) is scored and the others are
left out with a warning. It depends on the sessions' own data only, never on the order of
files or arguments. Sessions that did not complete are left alone: the exclusion counts
(errored, abandoned, ...) report them as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from clarify_tui.metrics.records import SCORED_STATUS


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
    def status(self) -> str: ...
    @property
    def created_at(self) -> Any: ...
    @property
    def protocol(self) -> Any: ...


S = TypeVar("S", bound=_Played)


def counting_key(s: _Played) -> tuple:
    """Who played which task in which run: one scored session per key (add epoch here)."""
    return (str(s.protocol), s.run, s.annotator or "", s.agent if not s.annotator else "", s.task_id)


@dataclass(frozen=True, slots=True)
class Duplicate(Generic[S]):
    kept: S
    left_out: S

    def describe(self) -> str:
        who = f"annotator {self.kept.annotator}" if self.kept.annotator else f"agent {self.kept.agent}"
        return (f"run {self.kept.run}, {who}, task {self.kept.task_id}: completed twice; scored the earliest "
                f"session {self.kept.id}, left out {self.left_out.id}")


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
