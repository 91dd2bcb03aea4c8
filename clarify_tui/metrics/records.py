"""What the metrics read: one `ScoredSession` per stored session.

A ScoredSession is the session's identity (run, task, agent, mode, annotator, status),
its `result` (docs/internals.md) with the chosen judgments laid over it, and its usage per
role (summed over the steps of that actor). Metrics never look at anything else, so a
human-played session and an automated one with the same steps score the same.

Two ways in: `load_sessions(store, ...)` reads the database with three SQL queries (fast
enough for tens of thousands of sessions), and `from_session(session, steps)` builds one
from the pydantic models, for scripts that already hold them.

Judgments (`clarify-tui judge`) are stored beside the engine's verdicts. `judge=None`
lays the latest judgment of each kind over the result; `judge="SPEC"` uses the latest
judgment by that spec, or the engine's own verdict when the session was run with that
judge; a session with neither is *unjudged* and left out of the metrics. The judge role's
usage adds what the re-judging verdicts considered cost (all of them by default, only the
chosen judge's with `judge="SPEC"`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

ROLES = ("agent", "user", "judge", "environment")
SCORED_STATUS = "completed"
EXCLUDED_STATUSES = ("errored", "abandoned", "running")

# Judgment kinds and the result fields each may replace.
ANSWER_KIND = "answer"
NUGGETS_KIND = "nuggets"
_OVERLAY_FIELDS = {
    ANSWER_KIND: ("correct", "checkpoints"),
    NUGGETS_KIND: ("coverage", "restore_score"),
}


@dataclass(slots=True)
class RoleUsage:
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0

    def add(self, tokens_in: int, tokens_out: int, cost_usd: float) -> None:
        self.tokens_in += int(tokens_in or 0)
        self.tokens_out += int(tokens_out or 0)
        self.cost_usd += float(cost_usd or 0.0)


@dataclass(slots=True)
class ScoredSession:
    id: str
    run: str
    task_id: str
    protocol: str
    agent: str
    mode: str
    annotator: str | None
    status: str
    result: dict[str, Any]
    usage: dict[str, RoleUsage] = field(default_factory=dict)
    judged_by: str | None = None  # the judge whose verdicts `result` carries; None = unjudged
    user: str = ""
    judge: str = "rule"
    difficulty: str | None = None  # DiscoBench task difficulty (easy / medium / hard), when known
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # derived values

    @property
    def scorable(self) -> bool:
        """Completed and judged: the only sessions any metric counts."""
        return self.status == SCORED_STATUS and self.judged_by is not None

    def key(self, by: str) -> Any:
        return getattr(self, by)


def apply_judgments(
    result: dict[str, Any], session_judge: str, judgments: Sequence[tuple[str, str, dict]], judge: str | None
) -> tuple[dict[str, Any], str | None]:
    """Lay judgments (judge spec, kind, verdict; oldest first) over an engine result.

    Returns the result to score and the judge it reflects (None: no verdict by `judge`).
    """
    chosen: dict[str, tuple[str, dict]] = {}
    for spec, kind, verdict in judgments:
        if judge is None or spec == judge:
            chosen[kind] = (spec, verdict)  # later rows win: the latest judgment
    if not chosen:
        if judge is None or judge == session_judge:
            return result, session_judge
        return result, None
    merged = dict(result)
    specs = set()
    for kind, (spec, verdict) in chosen.items():
        for name in _OVERLAY_FIELDS.get(kind, ()):
            if name in verdict:
                merged[name] = verdict[name]
        specs.add(spec)
    return merged, judge if judge is not None else "+".join(sorted(specs))


def _where(runs: Sequence[str], benchmark: str | None) -> tuple[str, list]:
    clauses, params = [], []
    if runs:
        clauses.append(f"run IN ({', '.join('?' for _ in runs)})")
        params += list(runs)
    if benchmark:
        clauses.append("protocol = ?")
        params.append(benchmark)
    return (" WHERE " + " AND ".join(clauses)) if clauses else "", params


def load_sessions(
    store_or_db: Any,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    judge: str | None = None,
) -> list[ScoredSession]:
    """Every session of the selection, with judgments applied and usage per role.

    `store_or_db` is a Store or its `sqlite_utils.Database` (`store.db`).
    """
    db = getattr(store_or_db, "db", store_or_db)
    conn = getattr(db, "conn", db)
    runs = list(runs or [])
    where, params = _where(runs, benchmark)
    rows = conn.execute(
        "SELECT id, run, task_id, protocol, agent, user, judge, mode, annotator, status, result "
        f"FROM sessions{where} ORDER BY created_at, id",
        params,
    ).fetchall()
    sessions: dict[str, ScoredSession] = {}
    for sid, run, task_id, protocol, agent, user, sjudge, mode, annotator, status, result in rows:
        sessions[sid] = ScoredSession(
            id=sid, run=run, task_id=task_id, protocol=protocol, agent=agent or "",
            mode=mode or "automated", annotator=annotator, status=status or "running",
            result=json.loads(result) if result else {}, user=user or "", judge=sjudge or "rule",
        )
    if not sessions:
        return []
    sub = f"SELECT id FROM sessions{where}"
    usage_rows = conn.execute(
        "SELECT session_id, actor, SUM(tokens_in), SUM(tokens_out), SUM(cost_usd) FROM steps "
        f"WHERE session_id IN ({sub}) GROUP BY session_id, actor",
        params,
    ).fetchall()
    for sid, actor, tin, tout, cost in usage_rows:
        s = sessions.get(sid)
        if s is not None:
            s.usage.setdefault(actor, RoleUsage()).add(tin, tout, cost)
    if any(s.protocol == "discobench" for s in sessions.values()):
        for sid, difficulty in conn.execute(
            "SELECT s.id, json_extract(t.data, '$.discobench.difficulty') FROM sessions s "
            f"JOIN tasks t ON t.key = s.task_key WHERE s.id IN ({sub}) AND s.protocol = 'discobench'",
            params,
        ):
            if difficulty:
                sessions[sid].difficulty = difficulty
    judgments: dict[str, list[tuple[str, str, dict]]] = {}
    for sid, spec, kind, verdict in conn.execute(
        f"SELECT session_id, judge, kind, verdict FROM judgments WHERE session_id IN ({sub}) ORDER BY id",
        params,
    ):
        judgments.setdefault(sid, []).append((spec, kind, json.loads(verdict)))
    for s in sessions.values():
        _finish(s, judgments.get(s.id, ()), judge)
    return list(sessions.values())


def _finish(s: ScoredSession, judgments: Sequence[tuple[str, str, dict]], judge: str | None) -> None:
    s.result, s.judged_by = apply_judgments(s.result, s.judge, judgments, judge)
    for _spec, _kind, verdict in judgments:
        usage = verdict.get("usage") if isinstance(verdict, dict) else None
        if usage and (judge is None or _spec == judge):
            s.usage.setdefault("judge", RoleUsage()).add(
                usage.get("tokens_in", 0), usage.get("tokens_out", 0), usage.get("cost_usd", 0.0)
            )


def from_session(
    session: Any,
    steps: Iterable[Any] = (),
    judgments: Sequence[dict] = (),
    judge: str | None = None,
    task: Any = None,
) -> ScoredSession:
    """A ScoredSession from a `models.Session`, its `Step`s, `Store.judgments()` rows and
    (for DiscoBench difficulty) its `Task`."""
    s = ScoredSession(
        id=session.id, run=session.run, task_id=session.task_id, protocol=str(session.protocol),
        agent=session.agent, mode=session.mode, annotator=session.annotator, status=session.status,
        result=dict(session.result), user=session.user, judge=session.judge,
        difficulty=task.discobench.difficulty if task is not None and task.discobench else None,
    )
    for step in steps:
        s.usage.setdefault(step.actor, RoleUsage()).add(step.tokens_in, step.tokens_out, step.cost_usd)
    _finish(s, [(j["judge"], j["kind"], j["verdict"]) for j in judgments], judge)
    return s
