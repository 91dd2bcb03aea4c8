"""Shared arithmetic: null-safe ratios and means, percentiles, paired bootstrap, usage totals.

Conventions: a metric whose denominator is zero is None (null), never 0; rates are
fractions in [0, 1].
"""

from __future__ import annotations

import math
import random
from array import array
from itertools import islice
from typing import Iterable, Sequence

from clarify_tui.metrics.records import ROLES, RoleUsage, ScoredSession


def ratio(numerator: float, denominator: float) -> float | None:
    return numerator / denominator if denominator else None


def mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def percentile(sorted_values: Sequence[float], p: float) -> float | None:
    """Linear interpolation between order statistics (numpy's default, 'linear').

    The p-th percentile (0-100) sits at rank h = (n - 1) * p / 100 of the sorted values.
    """
    n = len(sorted_values)
    if n == 0:
        return None
    h = (n - 1) * p / 100.0
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    return sorted_values[lo] + (h - lo) * (sorted_values[hi] - sorted_values[lo])


def summary(values: Iterable[float]) -> dict[str, float | None]:
    ordered = sorted(values)
    return {
        "mean": mean(ordered),
        "p50": percentile(ordered, 50),
        "p90": percentile(ordered, 90),
        "min": ordered[0] if ordered else None,
        "max": ordered[-1] if ordered else None,
    }


def exclusion_counts(sessions: Sequence[ScoredSession]) -> dict[str, int]:
    """Sessions left out of every metric. `errored` includes abandoned ones (they are
    also counted alone under `abandoned`); `unjudged` have no verdict by the chosen judge."""
    errored = sum(1 for s in sessions if s.status == "errored")
    abandoned = sum(1 for s in sessions if s.status == "abandoned")
    return {
        "errored": errored + abandoned,
        "abandoned": abandoned,
        "running": sum(1 for s in sessions if s.status == "running"),
        "unjudged": sum(1 for s in sessions if s.status == "completed" and s.judged_by is None),
    }


def usage_totals(sessions: Sequence[ScoredSession]) -> dict:
    """tokens_in, tokens_out, cost_usd summed over every role, and `tokens_by_role`."""
    by_role = {role: RoleUsage() for role in ROLES}
    for s in sessions:
        for role, u in s.usage.items():
            by_role.setdefault(role, RoleUsage()).add(u.tokens_in, u.tokens_out, u.cost_usd)
    roles = {
        role: {"tokens_in": u.tokens_in, "tokens_out": u.tokens_out, "cost_usd": round(u.cost_usd, 8)}
        for role, u in by_role.items()
        if role != "environment" or u.tokens_in or u.tokens_out or u.cost_usd
    }
    return {
        "tokens_in": sum(u.tokens_in for u in by_role.values()),
        "tokens_out": sum(u.tokens_out for u in by_role.values()),
        "cost_usd": round(math.fsum(u.cost_usd for u in by_role.values()), 8),
        "tokens_by_role": roles,
    }


def bootstrap_mean_ci(
    values: Sequence[float], resamples: int = 10_000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean of `values` (paired differences, one per task).

    Resamples len(values) values with replacement `resamples` times with a seeded RNG and
    returns the (1-level)/2 and (1+level)/2 percentiles of the resampled means (linear
    interpolation). Indices come from random bytes with rejection of the biased tail, so
    every value is drawn with exactly equal probability; the loop runs in C.
    """
    n = len(values)
    if n == 0 or resamples < 1:
        return None
    rng = random.Random(seed)
    means = []
    if n <= 4096:
        copies = 65536 // n
        table = list(values) * copies  # table[r] = values[r % n] for r < limit
        limit = copies * n
        accept = limit.__gt__
        pick = table.__getitem__
        spare = n // 16 + 8 + (65536 - limit) * n // limit * 2
        for _ in range(resamples):
            while True:
                raw = array("H", rng.randbytes(2 * (n + spare)))
                drawn = list(islice(filter(accept, raw), n))
                if len(drawn) == n:
                    break
            means.append(math.fsum(map(pick, drawn)) / n)
    else:
        for _ in range(resamples):
            means.append(math.fsum(rng.choices(values, k=n)) / n)
    means.sort()
    tail = (1 - level) / 2 * 100
    return percentile(means, tail), percentile(means, 100 - tail)
