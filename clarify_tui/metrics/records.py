"""What the metrics read: one `ScoredSession` per stored session.

A ScoredSession is the session's identity (run, task, agent, mode, annotator, status),
its `result` (docs/internals.md) with the chosen judgments laid over it, and its usage per
role (summed over the steps of that actor). Metrics never look at anything else, so a
human-played session and an automated one with the same steps score the same.

Three ways in: `load_sessions(store, ...)` reads the database with a few SQL queries
(fast enough for tens of thousands of sessions), `from_session(session, steps)` builds
one from the pydantic models, for scripts that already hold them, and
`metrics/export_input.py` reads an `export --format jsonl` file. All three end in
`_finish`, so the same sessions score the same from any of them.

Judgments (`clarify-tui judge`) are stored beside the engine's verdicts. `judge=None`
lays the latest judgment of each kind over the result; `judge="SPEC"` uses the latest
judgment by that spec (latest: by created_at, then id), or the engine's own verdict when the session was run with that
judge; a session with neither is *unjudged* and left out of the metrics. The judge role's
usage adds what the chosen judgments cost (the ones whose verdicts are scored);
`spent` is everything the session cost: every step of any actor plus every re-judging
verdict, chosen or not (the `cost_usd_total` of docs/scoring.md).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from clarify_tui.protocols import registry
from clarify_tui.results import AnyResult, result_model
from clarify_tui.store import scoring

ROLES = ("agent", "user", "judge", "environment")
SCORED_STATUS = "completed"

# Judgment kinds and the result fields each may replace.
ANSWER_KIND = "answer"
NUGGETS_KIND = "nuggets"
_OVERLAY_FIELDS = {
    ANSWER_KIND: ("correct", "checkpoints", "unreadable_verdicts"),
    NUGGETS_KIND: ("coverage", "restore_score"),
}


@dataclass(slots=True)
class RoleUsage:
    """Tokens and dollars of one role; `unpriced` names the models whose calls had no price
    (their cost is unknown, so the role's is too: never counted as $0)."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    unpriced: set[str] = field(default_factory=set)

    def add(self, tokens_in: int, tokens_out: int, cost_usd: float | None, model: str | None = None) -> None:
        self.tokens_in += int(tokens_in or 0)
        self.tokens_out += int(tokens_out or 0)
        if cost_usd is None:
            self.unpriced.add(model or "(unknown model)")
        else:
            self.cost_usd += float(cost_usd)

    def merge(self, other: RoleUsage) -> None:
        self.tokens_in += other.tokens_in
        self.tokens_out += other.tokens_out
        self.cost_usd += other.cost_usd
        self.unpriced |= other.unpriced

    @property
    def priced_cost(self) -> float | None:
        """The dollars, or None when any call was unpriced."""
        return None if self.unpriced else self.cost_usd


@dataclass(slots=True)
class Judgment:
    """One row of the judgments table (or of an export's `judgments` list)."""

    id: int
    judge: str
    kind: str
    verdict: dict[str, Any]
    created_at: str | None = None


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
    result: AnyResult
    usage: dict[str, RoleUsage] = field(default_factory=dict)
    judged_by: str | None = None  # the judge whose verdicts `result` carries; None = unjudged
    user: str = ""
    judge: str = "rule"
    difficulty: str | None = None  # DiscoBench task difficulty (easy / medium / hard), when known
    spent: RoleUsage = field(default_factory=RoleUsage)  # every step and every judgment, chosen or not
    inputs: dict[str, Any] = field(default_factory=dict)  # judgment kind -> where its verdict came from
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # derived values
    deviations: tuple[str, ...] = ()  # how its run departs from the paper (metrics/comparability.py)
    epoch: int = 0  # run --epochs N: which play of the task (metrics/epochs.py)
    created_at: str | None = None  # when the session started (metrics/once.py keeps the earliest)

    @property
    def scorable(self) -> bool:
        """Completed and judged: the only sessions any metric counts."""
        return self.status == SCORED_STATUS and self.judged_by is not None

    def key(self, by: str) -> Any:
        return getattr(self, by)


ResultT = TypeVar("ResultT", bound=AnyResult)


def result_as(s: ScoredSession, model: type[ResultT]) -> ResultT:
    """The session's result as its protocol's model (metrics of one protocol read it)."""
    if not isinstance(s.result, model):
        raise TypeError(f"session {s.id} is a {s.protocol} session, not {model.__name__}")
    return s.result


def choose_judgments(judgments: Sequence[Judgment], judge: str | None) -> dict[str, Judgment]:
    """The judgment each kind uses: the latest one, by `judge` if given. Latest is by
    created_at, then by id: ids are local to a file, so a merged file's ids depend on
    the order of its inputs, and time does not (docs/scoring.md)."""
    chosen: dict[str, Judgment] = {}
    for j in sorted(judgments, key=lambda j: (j.created_at or "", j.id)):
        if judge is None or j.judge == judge:
            chosen[j.kind] = j  # later rows win: the latest judgment
    return chosen


def apply_judgments(
    result: AnyResult, session_judge: str, judgments: Sequence[Judgment], judge: str | None
) -> tuple[AnyResult, str | None, dict[str, Judgment]]:
    """Lay judgments over an engine result.

    Returns the result to score, the judge it reflects (None: no verdict by `judge`) and
    the judgment used per kind (empty: the engine's own verdicts).
    """
    chosen = choose_judgments(judgments, judge)
    if not chosen:
        if judge is None or judge == session_judge:
            return result, session_judge, {}
        return result, None, {}
    merged = result.stored()
    for kind, j in chosen.items():
        for name in _OVERLAY_FIELDS.get(kind, ()):
            if name in j.verdict:
                merged[name] = j.verdict[name]
    specs = {j.judge for j in chosen.values()}
    overlaid = type(result).model_validate(merged)
    return overlaid, judge if judge is not None else "+".join(sorted(specs)), chosen


def load_sessions(
    store_or_db: Any,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    judge: str | None = None,
    counterfactuals: bool = False,
) -> list[ScoredSession]:
    """Every session of the selection, with judgments applied and usage per role.

    `store_or_db` is a Store, its `sqlite_utils.Database` (`store.db`) or a sqlite3
    connection. The forks `whatif` made are left out unless `counterfactuals`
    (docs/whatif.md). Its queries read one snapshot of the file (db_errors.snapshot): a
    session another process writes meanwhile is in all of them or in none.
    """
    with _snapshot(store_or_db) as conn:
        return _load(conn, list(runs or []), benchmark, judge, counterfactuals)


def _snapshot(store_or_db: Any) -> Any:
    from clarify_tui import db_errors

    if callable(getattr(store_or_db, "snapshot", None)):  # a Store: its writes from other threads wait
        return store_or_db.snapshot()
    return db_errors.snapshot(getattr(store_or_db, "conn", store_or_db))  # Store.db would import sqlite-utils


def _load(
    conn: Any, runs: list[str], benchmark: str | None, judge: str | None, counterfactuals: bool
) -> list[ScoredSession]:
    sel = scoring.select(conn, runs, benchmark, counterfactuals)
    rows = scoring.session_rows(conn, sel)
    sessions: dict[str, ScoredSession] = {}
    for sid, run, task_id, protocol, agent, user, sjudge, mode, annotator, status, result, created, ep in rows:
        sessions[sid] = ScoredSession(
            id=sid,
            run=run,
            task_id=task_id,
            protocol=protocol,
            agent=agent or "",
            mode=mode or "automated",
            annotator=annotator,
            status=status or "running",
            result=result_model(protocol).model_validate_json(result or "{}"),
            user=user or "",
            judge=sjudge or "rule",
            created_at=created,
            epoch=ep or 0,
        )
    if not sessions:
        return []
    usage_rows = scoring.step_usage(conn, sel)  # step by step in index order (not SUM()): as an export's steps
    current, by_actor, spent = None, {}, RoleUsage()  # set by the first row
    for sid, actor, tin, tout, cost, model in usage_rows:  # inlined add_step_usage: 100,000s of rows
        if sid != current:
            s = sessions.get(sid)
            current, by_actor, spent = sid, (s.usage if s else {}), (s.spent if s else RoleUsage())
        u = by_actor.get(actor)
        if u is None:
            u = by_actor[actor] = RoleUsage()
        tin, tout = int(tin or 0), int(tout or 0)
        u.tokens_in += tin
        u.tokens_out += tout
        spent.tokens_in += tin
        spent.tokens_out += tout
        if cost is None:  # an unpriced model's call (llm/pricing.py)
            u.unpriced.add(model or "(unknown model)")
            spent.unpriced.add(model or "(unknown model)")
        else:
            u.cost_usd += cost
            spent.cost_usd += cost
    for name in sorted({s.protocol for s in sessions.values()} & set(registry.names())):
        if (place := registry.get(name).difficulty) is None:  # its tasks have no difficulty
            continue
        for sid, difficulty in scoring.difficulties(conn, sel, name, f"$.{place[0]}.{place[1]}"):
            if difficulty:
                sessions[sid].difficulty = difficulty
    judgments: dict[str, list[Judgment]] = {}
    for jid, sid, spec, kind, verdict, created in scoring.judgment_rows(conn, sel):
        judgments.setdefault(sid, []).append(Judgment(jid, spec, kind, json.loads(verdict), created))
    for s in sessions.values():
        _finish(s, judgments.get(s.id, ()), judge)
    from clarify_tui.metrics.comparability import load_deviations

    load_deviations(conn, sessions, sel)
    return list(sessions.values())


def add_step_usage(
    s: ScoredSession, actor: str, tokens_in: Any, tokens_out: Any, cost: Any, model: str | None = None
) -> None:
    s.usage.setdefault(actor, RoleUsage()).add(tokens_in, tokens_out, cost, model)
    s.spent.add(tokens_in, tokens_out, cost, model)


def verdict_usage(verdict: Any) -> tuple[int, int, float | None, str | None]:
    """(tokens in, tokens out, dollars or None when unpriced, model) of a stored verdict."""
    usage = verdict.get("usage") if isinstance(verdict, dict) else None
    if not usage:
        return 0, 0, 0.0, None
    return usage.get("tokens_in", 0), usage.get("tokens_out", 0), usage.get("cost_usd", 0.0), usage.get("model")


def _finish(s: ScoredSession, judgments: Sequence[Judgment], judge: str | None) -> None:
    """Lay the chosen judgments over the result; add their usage (chosen: to the judge
    role; all: to `spent`); record in `inputs` where each verdict came from."""
    s.result, s.judged_by, chosen = apply_judgments(s.result, s.judge, judgments, judge)
    for j in judgments:
        s.spent.add(*verdict_usage(j.verdict))
    for j in chosen.values():
        if j.verdict.get("usage"):
            s.usage.setdefault("judge", RoleUsage()).add(*verdict_usage(j.verdict))
    s.inputs = {kind: {"judgment": j.id, "judge": j.judge} for kind, j in sorted(chosen.items())}


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
        id=session.id,
        run=session.run,
        task_id=session.task_id,
        protocol=str(session.protocol),
        agent=session.agent,
        mode=session.mode,
        annotator=session.annotator,
        status=session.status,
        result=session.result.model_copy(),
        user=session.user,
        judge=session.judge,
        epoch=session.epoch,
        difficulty=task.discobench.difficulty if task is not None and task.discobench else None,
        created_at=session.created_at,
    )
    from clarify_tui.metrics.comparability import settings_deviations

    s.deviations = settings_deviations(
        s.protocol, s.agent, s.user, getattr(session, "search", ""), s.judge, session.config.model_dump_json(), task
    )
    for step in steps:
        add_step_usage(s, step.actor, step.tokens_in, step.tokens_out, step.cost_usd, step.model)
    rows = [
        Judgment(j.get("id") or i, j["judge"], j["kind"], j["verdict"], j.get("created_at"))
        for i, j in enumerate(judgments, 1)
    ]
    _finish(s, rows, judge)
    return s


def is_informed(s: ScoredSession) -> bool:
    """Left out as informed: a *completed* session whose player had seen hidden information.
    A running, abandoned or errored one is not scored anyway and stays to be counted under
    its status (a session left running is `running`), so every session is counted once."""
    return bool(s.result.informed) and s.status == SCORED_STATUS


def without_informed(sessions: list[ScoredSession], on_note: Callable[[str], None] | None) -> list[ScoredSession]:
    """The sessions but the informed ones (`is_informed`: `score` leaves them out unless
    --include-informed), saying how many were left out."""
    informed = [s for s in sessions if is_informed(s)]
    if informed and on_note is not None:
        on_note(
            f"{len(informed)} informed session(s) left out (their player had seen hidden information); "
            "--include-informed keeps them"
        )
    return [s for s in sessions if not is_informed(s)]
