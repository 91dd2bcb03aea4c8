"""What the what-if forks say: their records, reading them back, the JSON summary.

Its own module because reading and summarising forks plays nothing: `report --whatif`,
the TUI's what-if screen and `whatif --format json` need the outcomes, the flips and the
paired value of asking (docs/whatif.md) without the engine or any backend, which the
playing side (whatif.py) builds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clarify_tui.metrics.common import bootstrap_mean_ci
from clarify_tui.models import Session
from clarify_tui.protocols import registry
from clarify_tui.store import Store

RUN_SUFFIX = "-whatif"  # the forks of run R are stored in the run R-whatif


@dataclass(frozen=True)
class DecisionPoint:
    session_id: str
    task_id: str
    step: int  # the agent step the intervention replaces (CTS: the clarify step, 0)
    kind: str  # search | answer | clarify


@dataclass
class Fork:
    point: DecisionPoint
    session: Session
    reused: bool
    parent_outcome: float | None
    outcome: float | None
    spent: tuple[int, int, float | None] = (
        0,
        0,
        0.0,
    )  # tokens in, tokens out, USD (None: unpriced) from the decision point on


@dataclass
class WhatIfResult:
    run: str
    protocol: str | None
    intervention: str
    sessions: int = 0
    points: list[DecisionPoint] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)  # why -> decision points not forked
    forks: list[Fork] = field(default_factory=list)


# ---- outcomes ---------------------------------------------------------------------------


def outcome(session: Session) -> float | None:
    """A completed session's outcome: 1/0 for InteractComp and DiscoBench (final answer
    correct), the restore score 0-100 for CTS; None when it did not complete."""
    if session.status != "completed":
        return None
    result: Any = session.result
    if registry.get(session.protocol).graded_by == "nuggets":
        return getattr(result, "restore_score", None)
    correct = getattr(result, "correct", None)
    return None if correct is None else float(bool(correct))


def failed(session: Session) -> bool:
    value = outcome(session)
    if value is None:
        return False
    return value < (100.0 if registry.get(session.protocol).graded_by == "nuggets" else 1.0)


def interventions(store: Store, run: str) -> list[str]:
    """The interventions `run` has forks for, `ask` first (what `report --whatif` labels).
    The audit's `reply` forks are the audit's (audit/summary.py), not the agent's what-ifs."""
    found = {
        str((s.counterfactual or {}).get("intervention"))
        for s in store.sessions(runs=[run + RUN_SUFFIX])
        if s.counterfactual and s.parent_id
    } - {"reply"}
    return sorted(found, key=lambda i: (i != "ask", i))


def stored(store: Store, run: str, intervention: str) -> WhatIfResult:
    """The forks `whatif` already made for `run` with `intervention`, read back without
    playing any, in the order `whatif` lists them (parents in database order, then step,
    so `summarize` draws the same bootstrap). Why: `report --whatif` prints the numbers of
    `whatif --format json` for the stored forks, whichever `--sessions` / `--at` made them.
    A completed or errored fork counts (errored ones as `forks_errored`, as `whatif` counts
    the ones it just played); superseded and unfinished ones do not."""
    parents = [s for s in store.sessions(runs=[run]) if not s.counterfactual]
    by_id = {p.id: p for p in parents}
    latest: dict[tuple[str, int], Session] = {}
    for s in store.sessions(runs=[run + RUN_SUFFIX]):
        cf = s.counterfactual or {}
        if s.parent_id in by_id and cf.get("intervention") == intervention and s.status in ("completed", "errored"):
            latest[(s.parent_id, int(cf.get("step", -1)))] = s
    protocols = {p.protocol.value for p in parents}
    result = WhatIfResult(
        run=run,
        protocol=next(iter(protocols)) if len(protocols) == 1 else None,
        intervention=intervention,
        sessions=len({pid for pid, _ in latest}),
    )
    order = {p.id: i for i, p in enumerate(parents)}
    for (pid, step), fork in sorted(latest.items(), key=lambda kv: (order[kv[0][0]], kv[0][1])):
        parent = by_id[pid]
        point = DecisionPoint(pid, parent.task_id, step, str((fork.counterfactual or {}).get("kind")))
        result.points.append(point)
        result.forks.append(fork_of(store, parent, point, fork, True))
    return result


# ---- the summary ------------------------------------------------------------------------


def summarize(result: WhatIfResult, *, resamples: int = 10_000, seed: int = 0) -> dict[str, Any]:
    """The JSON object of `whatif --format json` (docs/whatif.md)."""
    cts = registry.get(result.protocol).graded_by == "nuggets"  # restore scores move up or down, answers flip
    scored = [f for f in result.forks if f.outcome is not None and f.parent_outcome is not None]
    if cts:
        flips = {
            "improved": sum(f.outcome > f.parent_outcome for f in scored),  # type: ignore[operator]
            "worsened": sum(f.outcome < f.parent_outcome for f in scored),  # type: ignore[operator]
            "unchanged": sum(f.outcome == f.parent_outcome for f in scored),
        }
    else:
        flips = {
            "wrong_to_right": sum(f.parent_outcome == 0 and f.outcome == 1 for f in scored),
            "right_to_wrong": sum(f.parent_outcome == 1 and f.outcome == 0 for f in scored),
            "unchanged": sum(f.parent_outcome == f.outcome for f in scored),
        }
    by_task: dict[str, list[float]] = {}
    for f in scored:
        by_task.setdefault(f.point.task_id, []).append(f.outcome - f.parent_outcome)  # type: ignore[operator]
    per_task = [sum(v) / len(v) for v in by_task.values()]  # paired: one difference per task
    ci = bootstrap_mean_ci(per_task, resamples=resamples, seed=seed) if per_task else None
    tasks: dict[str, list[dict[str, Any]]] = {}
    for f in result.forks:
        point = {
            "step": f.point.step,
            "kind": f.point.kind,
            "session_id": f.point.session_id,
            "fork_id": f.session.id,
            "fork_status": f.session.status,
            "fallback": bool((f.session.counterfactual or {}).get("fallback")),
        }
        if cts:
            point.update(parent_restore_score=f.parent_outcome, fork_restore_score=f.outcome)
        else:
            point.update(
                parent_correct=None if f.parent_outcome is None else bool(f.parent_outcome),
                fork_correct=None if f.outcome is None else bool(f.outcome),
            )
        tasks.setdefault(f.point.task_id, []).append(point)
    return {
        "run": result.run,
        "benchmark": result.protocol,
        "intervention": result.intervention,
        "sessions": result.sessions,
        "decision_points": len(result.points),
        "skipped_points": dict(result.skipped),
        "forks": len(result.forks),
        "forks_reused": sum(f.reused for f in result.forks),
        "forks_errored": sum(f.session.status == "errored" for f in result.forks),
        "flips": flips,
        "value_of_asking": {
            "delta": sum(per_task) / len(per_task) if per_task else None,
            "ci95": list(ci) if ci else None,
            "tasks": len(per_task),
            "unit": "restore score (0-100)" if cts else "accuracy (fraction)",
        },
        "extra_cost": extra_cost(result),
        "tasks": [{"task_id": t, "points": pts} for t, pts in tasks.items()],
    }


def extra_cost(result: WhatIfResult) -> dict[str, Any]:
    """What the forks spent from their decision point on (the copied steps were the parent's)."""
    return {
        "forks": len(result.forks),
        "tokens_in": sum(f.spent[0] for f in result.forks),
        "tokens_out": sum(f.spent[1] for f in result.forks),
        "cost_usd": _total_cost([f.spent[2] for f in result.forks]),
    }


def _total_cost(costs: list[float | None]) -> float | None:
    """Dollars, or None when an unpriced model's call is among them (llm/pricing.py): never $0."""
    return None if any(c is None for c in costs) else round(sum(c for c in costs if c is not None), 6)


def _spent(store: Store, fork: Session, point: DecisionPoint) -> tuple[int, int, float | None]:
    steps = [s for s in store.steps(fork.id) if s.index >= point.step]
    return sum(s.tokens_in for s in steps), sum(s.tokens_out for s in steps), _total_cost([s.cost_usd for s in steps])


def fork_of(store: Store, parent: Session, point: DecisionPoint, session: Session, reused: bool) -> Fork:
    return Fork(point, session, reused, outcome(parent), outcome(session), _spent(store, session, point))
