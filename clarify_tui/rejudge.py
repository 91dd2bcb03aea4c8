"""Re-judging stored sessions with another judge (`clarify-tui judge`).

For each completed session of the selected runs, the final answer is judged again
(answer equivalence for InteractComp and DiscoBench, nugget coverage for CTS) and the
verdict is stored beside the old ones with the judge's spec (`Store.add_judgment`).
Nothing is overwritten: `score --judge SPEC` chooses whose verdicts to use.

Verdicts are overlays on the session result (see metrics/records.py):
- kind "answer": {"correct", "reason", "answer", "usage"}, the grader's "reply" (a model
  judge), for InteractComp "unreadable_verdicts" (0 or 1) and, for DiscoBench, the
  checkpoint rows recomputed for the new verdict: the checkpoint that was current when
  the answer came is passed with every later one when the answer is now right, or failed
  with every later one unreached when it is now wrong (the engine's rule).
- kind "nuggets": {"coverage", "restore_score", "answer", "usage"}.
Sessions without a final answer (out of rounds) keep the engine's verdict.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clarify_tui.protocols import registry
from clarify_tui.protocols.cts.metrics import restore_score
from clarify_tui.results import (
    ADVANCED_OUTCOMES,
    CheckpointResult,
    CTSResult,
    DiscoBenchResult,
    DiscoBenchState,
    NuggetCoverage,
    checkpoint_outcome,
)

if TYPE_CHECKING:
    from clarify_tui.judges.base import Judge
    from clarify_tui.models import Session
    from clarify_tui.store import Store


@dataclass
class RejudgeSummary:
    judged: int = 0
    changed: int = 0
    skipped: int = 0
    already: int = 0  # held a verdict of this judge: skipped by `resume`, or judged again without it
    failed: list[tuple[str, str]] = field(default_factory=list)


def _usage(usage: Any) -> dict | None:
    if usage is None:
        return None
    return {
        "tokens_in": usage.tokens_in,
        "tokens_out": usage.tokens_out,
        "cost_usd": usage.cost_usd,
        "latency_ms": usage.latency_ms,
        "model": usage.model,
    }


def current_at_answer(steps: list) -> int | None:
    """Index of the DiscoBench checkpoint the final answer was judged against, from the
    step states (the state just before the answer-equivalence verdict)."""
    for i in range(len(steps) - 1, 0, -1):
        step = steps[i]
        if step.actor == "judge" and step.action.text == "answer equivalence":
            state = steps[i - 1].state.protocol
            return state.current if isinstance(state, DiscoBenchState) else None
    return None


def recompute_checkpoints(
    checkpoints: list[CheckpointResult], current: int | None, correct: bool
) -> list[CheckpointResult]:
    """Checkpoint rows as the engine would have left them with this answer verdict."""
    rows = [cp.model_copy() for cp in checkpoints]
    if current is None:
        return rows
    for row in rows[current:]:
        if correct:
            row.status = "passed"
        else:
            row.status = "failed" if row.index == current else "unreached"
    for row in rows:
        row.outcome = checkpoint_outcome(row.status, row.type, row.asked_right)
        row.reached = row.status != "unreached"
        row.advanced = row.outcome in ADVANCED_OUTCOMES
    return rows


async def rejudge_session(store: Store, session: Session, judge: Judge) -> dict | None:
    """Judge one stored session again; stores and returns the verdict (None: nothing to judge)."""
    result = session.result
    answer = result.answer
    if session.status != "completed" or answer is None:
        return None
    task = store.task_for(session.id)
    protocol = str(session.protocol)
    if registry.get(protocol).graded_by == "nuggets":
        nuggets = task.cts_part.nuggets
        judgement = await judge.nuggets(answer, nuggets, query=task.cts_part.fused_query)
        coverage = [NuggetCoverage(id=n.id, weight=n.weight, coverage=c) for n, c in zip(nuggets, judgement.coverage)]
        verdict = {
            "coverage": [c.stored() for c in coverage],
            "restore_score": restore_score(coverage),
            "answer": answer,
            "usage": _usage(judgement.usage),
        }
        kind = "nuggets"
    else:
        as_graded = registry.get(protocol).graded_as_reference(session)
        if as_graded and hasattr(judge, "grade_reference"):  # the reference's reading, as the session was graded
            v = await judge.grade_reference(task.question, answer, task.gold.text)
        else:
            v = await judge.equivalent(task.question, answer, task.gold, benchmark=protocol)
        verdict = {"correct": v.correct, "reason": v.reason, "answer": answer, "usage": _usage(v.usage)}
        if v.reply is not None:
            verdict["reply"] = v.reply
        if registry.get(protocol).counts_unreadable:  # its one verdict is the answer's: the count is this one's
            verdict["unreadable_verdicts"] = int(v.unreadable)
        if isinstance(result, DiscoBenchResult) and result.checkpoints:
            current = current_at_answer(store.steps(session.id))
            rows = recompute_checkpoints(result.checkpoints, current, v.correct)
            verdict["checkpoints"] = [cp.stored() for cp in rows]
        kind = "answer"
    store.add_judgment(session.id, judge.spec, kind, verdict)
    return verdict


async def rejudge(
    store: Store,
    judge: Judge,
    runs: Iterable[str] | None = None,
    benchmark: str | None = None,
    concurrency: int = 4,
    on_done: Callable[[], None] | None = None,
    resume: bool = False,
) -> RejudgeSummary:
    """Re-judge every completed session of the runs with `judge` (made by backends.build_backends).
    Each verdict is stored as soon as it is made, so a killed `judge` loses at most the
    verdicts in flight; `resume` then skips the sessions that already hold a verdict of
    this judge (and counts them in `already`), instead of paying for them again."""
    summary = RejudgeSummary()
    sessions = store.sessions(runs=list(runs or []), protocol=benchmark)
    held = store.judged_by(judge.spec)
    summary.already = sum(1 for s in sessions if s.id in held)
    if resume:
        sessions = [s for s in sessions if s.id not in held]
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(session) -> None:
        async with gate:
            try:
                verdict = await rejudge_session(store, session, judge)
            except Exception as exc:  # one failed verdict must not stop the batch; it is reported
                summary.failed.append((session.id, f"{type(exc).__name__}: {exc}"))
            else:
                if verdict is None:
                    summary.skipped += 1
                else:
                    summary.judged += 1
                    old = session.result
                    if "correct" in verdict and verdict["correct"] != old.correct:
                        summary.changed += 1
                    before = old.restore_score if isinstance(old, CTSResult) else None
                    if "restore_score" in verdict and (before is None or abs(verdict["restore_score"] - before) > 1e-3):
                        summary.changed += 1
            if on_done:
                on_done()

    await asyncio.gather(*(one(s) for s in sessions))
    return summary
