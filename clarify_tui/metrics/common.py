"""Shared arithmetic: null-safe ratios and means, percentiles, paired bootstrap, usage totals.

Conventions: a metric whose denominator is zero is None (null), never 0; rates are
fractions in [0, 1].
"""

from __future__ import annotations

import math
import random
from array import array
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from typing import Any

from clarify_tui.metrics.model import Exclusions, RoleTokens, Usage
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


def exclusions_of(sessions: Sequence[ScoredSession]) -> Exclusions:
    """Sessions left out of every metric, each status counted apart (an abandoned session
    is not errored); `unjudged` are completed without a verdict by the chosen judge."""
    return Exclusions(
        errored=sum(1 for s in sessions if s.status == "errored"),
        abandoned=sum(1 for s in sessions if s.status == "abandoned"),
        running=sum(1 for s in sessions if s.status == "running"),
        unjudged=sum(1 for s in sessions if s.status == "completed" and s.judged_by is None),
    )


def exclusion_counts(sessions: Sequence[ScoredSession]) -> dict[str, int]:
    """`exclusions_of` as JSON (a plug-in's dict metrics add it)."""
    return exclusions_of(sessions).to_json()


def _dollars(value: float, unpriced: set[str]) -> float | None:
    return None if unpriced else round(value, 8)


def usage_totals(scored: Sequence[ScoredSession], everything: Sequence[ScoredSession] = ()) -> dict[str, Any]:
    """`usage_of` as JSON (a plug-in's dict metrics add it)."""
    return usage_of(scored, everything).to_json()


def usage_of(scored: Sequence[ScoredSession], everything: Sequence[ScoredSession] = ()) -> Usage:
    """tokens_in, tokens_out, cost_usd summed over every role of the scored sessions (with
    the judgments their verdicts came from), `tokens_by_role`, and the `*_total`s: what
    every session of `everything` (any status) spent, re-judging included.

    Cost as the papers count it: `agent_cost_usd` is the model under test's alone (the
    papers price only it, e.g. InteractComp Table 2's Cost($)); `cost_usd` is every role's.
    A cost with an unpriced model in it is null (never $0), and `unpriced_models` lists them."""
    by_role = {role: RoleUsage() for role in ROLES}
    for s in scored:
        for role, u in s.usage.items():
            by_role.setdefault(role, RoleUsage()).merge(u)
    roles = {
        role: RoleTokens(tokens_in=u.tokens_in, tokens_out=u.tokens_out, cost_usd=_dollars(u.cost_usd, u.unpriced))
        for role, u in by_role.items()
        if role != "environment" or u.tokens_in or u.tokens_out or u.cost_usd or u.unpriced
    }
    everything = everything or scored
    unpriced = set().union(*(u.unpriced for u in by_role.values()))
    unpriced_total = set().union(unpriced, *(s.spent.unpriced for s in everything))
    return Usage(
        tokens_in=sum(u.tokens_in for u in by_role.values()),
        tokens_out=sum(u.tokens_out for u in by_role.values()),
        cost_usd=_dollars(math.fsum(u.cost_usd for u in by_role.values()), unpriced),
        agent_cost_usd=_dollars(by_role["agent"].cost_usd, by_role["agent"].unpriced),
        unpriced_models=sorted(unpriced_total),
        tokens_by_role=roles,
        tokens_in_total=sum(s.spent.tokens_in for s in everything),
        tokens_out_total=sum(s.spent.tokens_out for s in everything),
        cost_usd_total=_dollars(math.fsum(s.spent.cost_usd for s in everything), unpriced_total),
    )


BOOTSTRAP_CHUNK = 2500
PARALLEL_MIN_DRAWS = 2_000_000  # below this, starting worker processes costs more than it saves
_SENTINEL_BITS = 48


def _resample_sums(ints: list[int], resamples: int, seed: str) -> list[int]:
    """Sums of `resamples` resamples (with replacement, len(ints) draws each) of `ints`."""
    n = len(ints)
    rng = random.Random(seed)
    if n > 32768:
        return [sum(rng.choices(ints, k=n)) for _ in range(resamples)]
    copies = 65536 // n
    table = ints * copies + [1 << _SENTINEL_BITS] * (65536 - copies * n)
    low_mask = (1 << _SENTINEL_BITS) - 1
    pick = table.__getitem__
    sums = []
    for _ in range(resamples):
        total = sum(map(pick, array("H", rng.randbytes(2 * n))))
        extra = total >> _SENTINEL_BITS
        if extra:
            total = (total & low_mask) + sum(rng.choices(ints, k=extra))
        sums.append(total)
    return sums


def _resample_chunk(job: tuple[list[int], int, str]) -> list[int]:
    return _resample_sums(*job)


def bootstrap_mean_ci(
    values: Sequence[float],
    resamples: int = 10_000,
    seed: int = 0,
    level: float = 0.95,
    executor: Executor | None = None,
) -> tuple[float, float] | None:
    """Percentile bootstrap CI of the mean of `values` (paired differences, one per task).

    Resamples len(values) values with replacement `resamples` times and returns the
    (1-level)/2 and (1+level)/2 percentiles of the resampled means (linear interpolation).
    Every value is drawn with exactly equal probability. The resamples are drawn in
    chunks of BOOTSTRAP_CHUNK, chunk c from `random.Random(f"{seed}:{c}")`, so the result
    depends on the seed only, not on whether an `executor` (e.g. a process pool) ran the
    chunks in parallel.

    Speed without numpy: values become non-negative fixed-point integers (2^-28 of the
    data range or finer, far below any reported digit) in a 65,536-entry table holding
    `65536 // n` copies of each; 16-bit random words index it and one C-level `sum`
    adds a resample. Words in the table's leftover tail add a sentinel 2^48 instead, and
    that many extra draws are made with `random.choices`, so the sampling stays exactly
    uniform.
    """
    n = len(values)
    if n == 0 or resamples < 1:
        return None
    lowest, highest = min(values), max(values)
    if lowest == highest:
        return float(lowest), float(lowest)
    # one 30-bit digit per int: values * 2^shift (ldexp: a range as tiny as 1e-300 needs a
    # power of two no float holds, e.g. 2^1025, which `2.0 ** shift` cannot be)
    ratio = 2**29 / (highest - lowest)
    shift = math.floor(math.log2(ratio)) if math.isfinite(ratio) else 29 - math.ceil(math.log2(highest - lowest))
    ints = [round(math.ldexp(v - lowest, shift)) for v in values]
    jobs = [
        (ints, min(BOOTSTRAP_CHUNK, resamples - start), f"{seed}:{c}")
        for c, start in enumerate(range(0, resamples, BOOTSTRAP_CHUNK))
    ]
    parallel = executor is not None and len(jobs) > 1 and n * resamples >= PARALLEL_MIN_DRAWS
    mapper = executor.map if executor is not None and parallel else map
    sums = sorted(total for chunk in mapper(_resample_chunk, jobs) for total in chunk)
    tail = (1 - level) / 2 * 100
    lo, hi = percentile(sums, tail), percentile(sums, 100 - tail)
    if lo is None or hi is None:  # no sums: resamples < 1 returned above
        return None
    clamp = lambda x: min(max(x, lowest), highest)  # fixed-point rounding at the edges
    return clamp(lowest + math.ldexp(lo, -shift) / n), clamp(lowest + math.ldexp(hi, -shift) / n)
