"""One CSV row per session, for spreadsheets: who played what, and the per-session
numbers of its result (docs/internals.md). A column that does not apply to the
session's protocol is empty; so are the metric columns of a session that did not
complete (running, errored, abandoned).

| column | from |
|---|---|
| id, run, task, protocol, agent, user, mode, annotator, status | the session row (`task` = task id) |
| correct | result.correct as 1 / 0 (interactcomp, discobench, an installed protocol) |
| confidence | result.confidence, 0-100 (interactcomp) |
| rounds | result.rounds: agent actions, invalid included (interactcomp) |
| asks | result.asks (interactcomp) |
| checkpoint_pass_fraction | passed checkpoints / checkpoints (discobench) |
| ask_turns, tool_turns | result.ask_turns, result.tool_turns (discobench) |
| restore_score | result.restore_score, 0-100 (cts) |
| known_count | replies of the user answerer that are not `unknown` (cts) |
| tokens_in, tokens_out, cost_usd | sums over the session's steps, every actor (cost_usd empty when a call's model had no price) |
| active_ms | result.active_ms: a person's time on the task, pauses excluded (human agent) |
| informed | 1 when the player had seen hidden information (a person's fork made in replay) |
| note | what the person typed with ctrl+n, and why a session was abandoned (as stored) |
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import IO, Any

from clarify_tui.results import CTSResult, DiscoBenchResult, InteractCompResult
from clarify_tui.store import Store

COLUMNS = (
    "id",
    "run",
    "task",
    "protocol",
    "agent",
    "user",
    "mode",
    "annotator",
    "status",
    "correct",
    "confidence",
    "rounds",
    "asks",
    "checkpoint_pass_fraction",
    "ask_turns",
    "tool_turns",
    "restore_score",
    "known_count",
    "tokens_in",
    "tokens_out",
    "cost_usd",
    "active_ms",
    "informed",
    "note",
)


def _bool(value: Any) -> Any:
    return "" if value is None else int(bool(value))


def _opt(value: Any) -> Any:
    return "" if value is None else value


def metric_cells(session) -> dict[str, Any]:
    r = session.result
    if session.status != "completed":
        return {}
    if isinstance(r, InteractCompResult):
        return {
            "correct": _bool(r.correct),
            "confidence": _opt(r.confidence),
            "rounds": _opt(r.rounds),
            "asks": _opt(r.asks),
        }
    if isinstance(r, DiscoBenchResult):
        checkpoints = r.checkpoints
        passed = sum(1 for c in checkpoints if c.status == "passed")
        return {
            "correct": _bool(r.correct),
            "checkpoint_pass_fraction": round(passed / len(checkpoints), 6) if checkpoints else "",
            "ask_turns": _opt(r.ask_turns),
            "tool_turns": _opt(r.tool_turns),
        }
    if isinstance(r, CTSResult):
        known = sum(1 for a in r.answers if str(a).strip().casefold() != "unknown")
        return {"restore_score": _opt(r.restore_score), "known_count": known}
    return {"correct": _bool(r.correct)}  # an installed protocol's: the verdict every result carries


def export_sessions_csv(store: Store, runs: Iterable[str] | None, out: IO[str], include_hidden: bool = False) -> int:
    """One row per session; returns how many."""
    sessions = store.sessions(runs=runs)
    steps = store.steps_by_session([s.id for s in sessions])
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n", restval="")
    writer.writeheader()
    for s in sessions:
        own = steps.get(s.id, [])
        writer.writerow(
            {
                "id": s.id,
                "run": s.run,
                "task": s.task_id,
                "protocol": s.protocol.value,
                "agent": s.agent,
                "user": s.user,
                "mode": s.mode,
                "annotator": s.annotator or "",
                "status": s.status,
                **metric_cells(s),
                "tokens_in": sum(x.tokens_in for x in own),
                "tokens_out": sum(x.tokens_out for x in own),
                "cost_usd": _cost(own),
                "active_ms": _opt(s.result.active_ms),
                "informed": int(bool(s.result.informed)),
                "note": s.note or "",
            }
        )
    return len(sessions)


def _cost(steps) -> float | str:
    """The session's dollars; empty when a call's model had no price (never $0)."""
    if any(x.cost_usd is None for x in steps):
        return ""
    return round(sum(x.cost_usd for x in steps), 10)
