"""Confidence intervals for per-annotator results (`score --by annotator`, the scores screen,
`queue status`), and agreement between annotators who played the same tasks.

A human baseline is a handful of people on a few dozen tasks each: a per-annotator
accuracy without its uncertainty invites reading noise as skill. The papers report no
per-annotator intervals, so the choices are ours (docs/campaigns.md):
- accuracy (InteractComp, DiscoBench): Wilson score interval, 95 %, over the sessions the
  accuracy is computed on (`stats.wilson_interval`); it stays
  inside [0, 1] and is sensible at 0 / n and n / n, unlike the normal approximation;
- CTS restore_score_100: Student-t interval of the mean (`stats.mean_t_interval`,
  exact t quantiles);
  null with fewer than two sessions;
- agreement: Fleiss' kappa on correct / wrong over tasks rated by exactly k annotators
  (`stats.fleiss_kappa`), with the share of those tasks where all k agree;
- pairwise: Cohen's kappa for each pair of annotators over the tasks both rated
  (`stats.cohen_kappa`), the usual figure when two people rate the same items;
  null with fewer than two shared tasks or when chance agreement is already 1.

The formulas are ours (metrics/stats.py, pinned against published values): statsmodels
was 262 MB of the install for them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import TypedDict

from clarify_tui.metrics.records import ScoredSession
from clarify_tui.metrics.stats import cohen_kappa, fleiss_kappa, mean_t_interval, wilson_interval
from clarify_tui.protocols import registry

ALPHA = 0.05


class Agreement(TypedDict):
    """Agreement on correctness among the tasks exactly k annotators rated."""

    tasks: int
    all_agree: float | None  # the share of those tasks where all k agree
    fleiss_kappa: float | None  # None when undefined


class CohenPair(TypedDict):
    """Cohen's kappa of two annotators over the tasks both rated."""

    annotators: list[str]
    tasks: int
    cohen_kappa: float | None


def wilson(successes: int, n: int, alpha: float = ALPHA) -> list[float] | None:
    """[lo, hi] of a proportion; None when n is 0."""
    if n <= 0:
        return None
    lo, hi = wilson_interval(successes, n, alpha)
    return [lo, hi]


def t_interval(values: Sequence[float], alpha: float = ALPHA) -> list[float] | None:
    """[lo, hi] of a mean; None with fewer than two values."""
    if len(values) < 2:
        return None
    lo, hi = mean_t_interval(values, alpha)  # all values equal: no spread, [mean, mean]
    return [lo, hi]


def group_intervals(protocol: str, sessions: Sequence[ScoredSession]) -> dict[str, list[float] | None]:
    """The interval metrics of one group of sessions (the same sessions its metrics use):
    the protocol's own (its spec's `intervals`)."""
    return registry.get(protocol).intervals(sessions)


def agreement(ratings: dict[str, list[bool]], k: int) -> Agreement:
    """Agreement on correctness among the tasks rated by exactly `k` annotators.

    `ratings`: task id -> one correct/wrong per annotator. Returns the number of such
    tasks, the share where all agree, and Fleiss' kappa (None when undefined: fewer than
    two tasks, or every rating the same so chance agreement is already 1)."""
    rows = [r for r in ratings.values() if len(r) == k]
    if k < 2 or not rows:
        return {"tasks": len(rows), "all_agree": None, "fleiss_kappa": None}
    all_agree = sum(1 for r in rows if len(set(r)) == 1) / len(rows)
    table = [[sum(1 for x in r if x), sum(1 for x in r if not x)] for r in rows]
    kappa = None
    used = {j for row in table for j, n in enumerate(row) if n}
    if len(rows) >= 2 and len(used) > 1:
        value = fleiss_kappa(table)
        kappa = None if math.isnan(value) else value
    return {"tasks": len(rows), "all_agree": all_agree, "fleiss_kappa": kappa}


def pairwise_cohen(by_task: dict[str, dict[str, bool]]) -> list[CohenPair]:
    """Cohen's kappa on correct / wrong for every pair of annotators who rated a task in
    common. `by_task`: task id -> annotator -> correct. Pairs in name order."""
    shared: dict[tuple[str, str], list[tuple[bool, bool]]] = {}
    for marks in by_task.values():
        names = sorted(marks)
        for i, a in enumerate(names):
            for b in names[i + 1 :]:
                shared.setdefault((a, b), []).append((marks[a], marks[b]))
    out: list[CohenPair] = []
    for (a, b), pairs in sorted(shared.items()):
        table = [[sum(1 for x, y in pairs if x is p and y is q) for q in (True, False)] for p in (True, False)]
        out.append({"annotators": [a, b], "tasks": len(pairs), "cohen_kappa": _cohen(table, len(pairs))})
    return out


def _cohen(table: list[list[int]], n: int) -> float | None:
    if n < 2:
        return None
    rows, cols = [sum(r) for r in table], [table[0][j] + table[1][j] for j in (0, 1)]
    if sum(rows[i] * cols[i] for i in (0, 1)) == n * n:  # chance agreement 1: kappa undefined
        return None
    value = cohen_kappa(table)
    return None if math.isnan(value) else value


def wilson_width(p: float, n: int, alpha: float = ALPHA) -> float:
    """The width of the Wilson interval of a proportion `p` over `n` trials (n > 0); `p` may
    be any share (the successes need not be a whole number: a planned sample)."""
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    denom = 1.0 + z * z / n
    return 2.0 * z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom


def trials_for_width(p: float, width: float, alpha: float = ALPHA, most: int = 10**9) -> int | None:
    """The fewest trials whose Wilson interval of proportion `p` is at most `width` wide
    (the width falls as n grows, for any fixed p); None past `most`."""
    if not 0.0 < width:
        return None
    if wilson_width(p, most, alpha) > width:
        return None
    lo, hi = 1, most  # width(hi) <= width; find the first such n
    while lo < hi:
        mid = (lo + hi) // 2
        if wilson_width(p, mid, alpha) <= width:
            hi = mid
        else:
            lo = mid + 1
    return lo
