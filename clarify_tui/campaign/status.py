"""How far a campaign is: `clarify-tui queue status RUN`.

Per annotator: tasks done (completed or errored), in progress (a running session or a
live claim), skipped (abandoned), remaining (tasks still open to them: not done, skipped
or in progress by them, and taken by fewer than K others), active time (the task clock,
pauses excluded; for a running session the time of its recorded actions), and accuracy
so far with its 95 % interval (metrics/intervals.py). With K >= 2 annotators per task:
the agreement on correctness among tasks that K annotators finished, Fleiss' kappa, and
Cohen's kappa for each pair of annotators over the tasks both finished.

Campaign planning (`planning`): how many more tasks would bring the 95 % Wilson interval of
the human baseline's accuracy (every annotator's graded sessions pooled) down to a width the
organiser sets (`--ci-width`, default DEFAULT_CI_WIDTH), and each annotator's own interval;
assuming the accuracy stays what it is so far (the interval's width depends on it). Pooled
sessions of one task by K people are counted as K trials, as the interval shown counts them.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from clarify_tui import db_errors
from clarify_tui.campaign.claims import COVERED, DEFAULT_TIMEOUT, FINISHED
from clarify_tui.protocols import registry
from clarify_tui.store import claims
from clarify_tui.store.claims import read_only

DEFAULT_CI_WIDTH = 0.2  # a 95 % interval of +-10 accuracy points

if TYPE_CHECKING:  # imported when a status is computed (metrics are not needed to claim)
    from clarify_tui.metrics.intervals import CohenPair


@dataclass
class AnnotatorProgress:
    annotator: str
    done: int = 0
    in_progress: int = 0
    skipped: int = 0
    remaining: int = 0
    active_ms: float = 0.0
    graded: int = 0
    correct: int = 0
    accuracy: float | None = None
    accuracy_ci95: list[float] | None = None
    restore_scores: list[float] = field(default_factory=list)
    restore_score_mean: float | None = None


class AnnotatorRow(TypedDict):
    """One annotator in the status object (AnnotatorProgress without its score list)."""

    annotator: str
    done: int
    in_progress: int
    skipped: int
    remaining: int
    active_ms: float
    graded: int
    correct: int
    accuracy: float | None
    accuracy_ci95: list[float] | None
    restore_score_mean: float | None


class PairedAgreement(TypedDict):
    """intervals.Agreement with Cohen's kappa for every pair of annotators."""

    tasks: int
    all_agree: float | None
    fleiss_kappa: float | None
    pairs: list[CohenPair]


class CampaignStatus(TypedDict):
    """The `queue status --format json` object."""

    run: str
    tasks: int
    per_task: int
    tasks_complete: int
    annotators: list[AnnotatorRow]
    duplicates: list[str]  # sessions completed twice: the later one left out (metrics/once.py)
    agreement: PairedAgreement | None  # with two or more annotators per task
    planning: Planning


class PlanRow(TypedDict):
    """How far one accuracy's 95 % Wilson interval is from the width wanted."""

    graded: int
    accuracy: float | None
    width: float | None  # the interval's width now (None: nothing graded)
    sessions_needed: int | None  # graded sessions for the wanted width at this accuracy
    more_tasks: int | None  # tasks still to play for it (0: already narrow enough)


class Planning(TypedDict):
    ci_width: float
    assumption: str
    baseline: PlanRow  # every annotator's graded sessions pooled
    annotators: dict[str, PlanRow]


def plan_row(correct: int, graded: int, width: float, per_task: int = 1) -> PlanRow:
    """`more_tasks`: the graded sessions still missing, `per_task` of them a task."""
    from clarify_tui.metrics.intervals import trials_for_width, wilson_width

    if not graded:
        return {"graded": 0, "accuracy": None, "width": None, "sessions_needed": None, "more_tasks": None}
    p = correct / graded
    needed = trials_for_width(p, width)
    more = None if needed is None else max(0, needed - graded)
    return {
        "graded": graded,
        "accuracy": p,
        "width": wilson_width(p, graded),
        "sessions_needed": needed,
        "more_tasks": None if more is None else -(-more // per_task),
    }


def planning(people: list[AnnotatorProgress], width: float, per_task: int) -> Planning:
    return {
        "ci_width": width,
        "assumption": "the accuracy stays what it is so far; 95% Wilson interval over graded sessions",
        "baseline": plan_row(sum(p.correct for p in people), sum(p.graded for p in people), width, per_task),
        "annotators": {p.annotator: plan_row(p.correct, p.graded, width) for p in people},
    }


def _row(p: AnnotatorProgress) -> AnnotatorRow:
    return {
        "annotator": p.annotator,
        "done": p.done,
        "in_progress": p.in_progress,
        "skipped": p.skipped,
        "remaining": p.remaining,
        "active_ms": p.active_ms,
        "graded": p.graded,
        "correct": p.correct,
        "accuracy": p.accuracy,
        "accuracy_ci95": p.accuracy_ci95,
        "restore_score_mean": p.restore_score_mean,
    }


def _live(conn: sqlite3.Connection, run: str, timeout: float) -> set[tuple[str, str]]:
    """(annotator, task) of live claims; none when the run was never served."""
    return set(claims.live_since(conn, run, time.time() - timeout, unserved_ok=True))


def _tally(
    p: AnnotatorProgress,
    task_ids: list[str],
    per_task: int,
    state: dict[tuple[str, str], str],
    covered: dict[str, set[str]],
    holders: dict[str, set[str]],
) -> None:
    """Count p's tasks: done, skipped, in progress, and remaining (open to them: taken
    by fewer than K others). `state`: (annotator, task) -> the latest status or 'claimed'."""
    who = p.annotator
    for task in task_ids:
        status = state.get((who, task))
        if status in COVERED:
            p.done += 1
        elif status == "abandoned":
            p.skipped += 1
        elif status in ("running", "claimed"):
            p.in_progress += 1
        elif len((covered.get(task, set()) | holders.get(task, set())) - {who}) < per_task:
            p.remaining += 1


def annotator_progress(
    path: Path, run: str, task_ids: list[str], per_task: int, annotator: str, timeout: float = DEFAULT_TIMEOUT
) -> AnnotatorProgress:
    """One annotator's done / skipped / in progress / remaining, counted as `campaign_status`
    counts them, from the statuses alone.

    Why not campaign_status: a visitor's app asks at every task (its status line's 'task
    3/12'), and campaign_status validates every session of the run and reads every step
    (all annotators'), before the first paint: at a class's start that was CPU each of N
    processes spent on the others' sessions (benchmarks/bench_visitors.py)."""
    conn = read_only(path)
    try:
        with db_errors.snapshot(conn):
            live = _live(conn, run, timeout)
            mine = claims.statuses_of(conn, run, annotator)
            others = claims.covering_others(conn, run, annotator, COVERED)
    finally:
        conn.close()
    tasks = set(task_ids)
    state: dict[tuple[str, str], str] = {}
    covered: dict[str, set[str]] = {}
    scored: set[tuple] = set()
    for _sid, task, protocol, status, ep in mine:  # oldest first: the latest status wins
        if task not in tasks:
            continue
        if status == "completed":  # metrics/once.py: a later completed duplicate is left out
            if (protocol, task, ep or 0) in scored:
                continue
            scored.add((protocol, task, ep or 0))
        state[(annotator, task)] = status
    for task, who in others:
        if task in tasks and who:
            covered.setdefault(task, set()).add(who)
    holders: dict[str, set[str]] = {}
    for who, task in live:
        if task in tasks:
            holders.setdefault(task, set()).add(who)
            if who == annotator:
                state.setdefault((who, task), "claimed")
    p = AnnotatorProgress(annotator)
    _tally(p, task_ids, per_task, state, covered, holders)
    return p


def campaign_status(
    path: Path,
    run: str,
    task_ids: list[str],
    per_task: int,
    timeout: float = DEFAULT_TIMEOUT,
    ci_width: float = DEFAULT_CI_WIDTH,
) -> CampaignStatus:
    """The status object (`--format json`); see the module docstring."""
    from clarify_tui.metrics.intervals import agreement, pairwise_cohen, wilson
    from clarify_tui.metrics.once import count_once
    from clarify_tui.metrics.records import load_sessions

    conn = read_only(path)
    try:
        with db_errors.snapshot(conn):  # the claims, the clocks and the sessions of one moment
            live = _live(conn, run, timeout)
            steps_ms = claims.running_agent_ms(conn, run)
            sessions = load_sessions(conn, runs=[run])
    finally:
        conn.close()
    tasks = set(task_ids)
    sessions = [s for s in sessions if s.task_id in tasks and s.annotator]
    sessions, duplicates = count_once(sessions)  # the same rule as `score` (metrics/once.py)
    people: dict[str, AnnotatorProgress] = {}
    state: dict[tuple[str, str], str] = {}  # (annotator, task) -> its latest status
    covered: dict[str, set[str]] = {}
    for s in sessions:
        who = s.annotator or ""  # never empty: sessions without an annotator were left out above
        p = people.setdefault(who, AnnotatorProgress(who))
        state[(who, s.task_id)] = s.status
        if s.status in COVERED:
            covered.setdefault(s.task_id, set()).add(who)
        p.active_ms += float(s.result.active_ms or 0) if s.status in FINISHED else steps_ms.get(s.id, 0.0)
        spec = registry.get(s.protocol)
        if s.scorable and spec.graded_by == "answer" and s.result.correct is not None:
            p.graded += 1
            p.correct += bool(s.result.correct)
        elif s.scorable and spec.graded_by == "nuggets" and (v := spec.value(s)) is not None:
            p.restore_scores.append(v)
    for who, task in live:
        if task in tasks:
            people.setdefault(who, AnnotatorProgress(who))
            state.setdefault((who, task), "claimed")
    holders: dict[str, set[str]] = {}
    for who, task in live:
        holders.setdefault(task, set()).add(who)
    for p in people.values():
        _tally(p, task_ids, per_task, state, covered, holders)
        p.accuracy = p.correct / p.graded if p.graded else None
        p.accuracy_ci95 = wilson(p.correct, p.graded)
        p.restore_score_mean = sum(p.restore_scores) / len(p.restore_scores) if p.restore_scores else None
    latest: dict[tuple[str, str], bool] = {}  # (task, annotator) -> correct, their latest graded session
    for s in sessions:
        if s.scorable and s.result.correct is not None:
            latest[(s.task_id, s.annotator or "")] = bool(s.result.correct)
    ratings: dict[str, list[bool]] = {}
    by_task: dict[str, dict[str, bool]] = {}
    for (task, who), correct in latest.items():
        ratings.setdefault(task, []).append(correct)
        by_task.setdefault(task, {})[who] = correct
    full = sum(1 for t in task_ids if len(covered.get(t, ())) >= per_task)
    return {
        "run": run,
        "tasks": len(task_ids),
        "per_task": per_task,
        "tasks_complete": full,
        "annotators": [_row(p) for p in sorted(people.values(), key=lambda p: p.annotator)],
        "duplicates": [d.describe() for d in duplicates],
        "agreement": {**agreement(ratings, per_task), "pairs": pairwise_cohen(by_task)} if per_task >= 2 else None,
        "planning": planning(sorted(people.values(), key=lambda p: p.annotator), ci_width, per_task),
    }
