"""Agreement on categories among raters of the same items, with a bootstrap CI on kappa:
the simulator audit (a simulator's reply class against an auditor's) and the
should-have-asked labels (people's ask / act / unsure) both report it (docs/audit.md).

- two raters on every item: Cohen's kappa (`stats.cohen_kappa`) with the confusion table;
- more (or a varying number per item): Fleiss' kappa generalised to a varying number of
  raters per item (each item's observed agreement n_ij(n_ij - 1) / n_i(n_i - 1), categories'
  shares pooled over all ratings); equal to `stats.fleiss_kappa` when every item has the same
  number of raters;
- the CI: percentile bootstrap over items (items resampled with replacement, the same
  estimator on each resample), seeded, so a rerun prints the same interval. Items with a
  single rating say nothing about agreement and are left out (counted in `single`).
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from typing import Any

from clarify_tui.metrics.stats import cohen_kappa

Ratings = Mapping[str, Mapping[str, str]]  # item -> rater -> category


def fleiss_kappa_varying(counts: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa of an items x categories table of counts, two or more raters per item
    (their number may vary). NaN when chance agreement is already 1."""
    rated = [row for row in counts if sum(row) >= 2]
    if not rated:
        return math.nan
    total = sum(sum(row) for row in rated)
    shares = [sum(row[j] for row in rated) / total for j in range(len(rated[0]))]
    observed = sum(sum(c * (c - 1) for c in row) / (sum(row) * (sum(row) - 1)) for row in rated) / len(rated)
    chance = sum(p * p for p in shares)
    return math.nan if chance == 1.0 else (observed - chance) / (1.0 - chance)


def _kappa(items: Sequence[Mapping[str, str]], categories: Sequence[str], pair: tuple[str, str] | None) -> float:
    if pair is not None:
        a, b = pair
        table = [[sum(1 for it in items if it[a] == x and it[b] == y) for y in categories] for x in categories]
        return cohen_kappa(table)
    counts = [[sum(1 for c in it.values() if c == cat) for cat in categories] for it in items]
    return fleiss_kappa_varying(counts)


def categorical_agreement(
    ratings: Ratings, categories: Sequence[str], *, resamples: int = 2000, seed: int = 0
) -> dict[str, Any]:
    """`items` (with two or more ratings), `single` (items with one), `raters`, `agreement`
    (the share of rater pairs on an item that chose the same category), `kappa`, `method`
    ("cohen" or "fleiss"), `kappa_ci95` and, for two raters, `confusion` (first rater's
    category by row). Values are None where undefined (no pairs, chance agreement 1)."""
    cats = list(categories) + sorted({c for it in ratings.values() for c in it.values()} - set(categories))
    items = [dict(it) for it in ratings.values() if len(it) >= 2]
    raters = sorted({r for it in ratings.values() for r in it})
    out: dict[str, Any] = {
        "items": len(items),
        "single": sum(1 for it in ratings.values() if len(it) == 1),
        "raters": raters,
        "agreement": None,
        "kappa": None,
        "method": None,
        "kappa_ci95": None,
    }
    if not items:
        return out
    pairs = same = 0
    for it in items:
        values = list(it.values())
        for i, x in enumerate(values):
            for y in values[i + 1 :]:
                pairs += 1
                same += x == y
    out["agreement"] = same / pairs
    two = len(raters) == 2 and all(len(it) == 2 for it in items)
    pair = (raters[0], raters[1]) if two else None
    out["method"] = "cohen" if two else "fleiss"
    if pair is not None:
        out["confusion"] = {
            "rows": pair[0],
            "columns": pair[1],
            "categories": cats,
            "table": [[sum(1 for it in items if it[pair[0]] == x and it[pair[1]] == y) for y in cats] for x in cats],
        }
    value = _kappa(items, cats, pair)
    out["kappa"] = None if math.isnan(value) else value
    if out["kappa"] is not None and len(items) >= 2 and resamples > 0:
        rng = random.Random(seed)
        draws = []
        for _ in range(resamples):
            v = _kappa(rng.choices(items, k=len(items)), cats, pair)
            if not math.isnan(v):
                draws.append(v)
        if draws:
            draws.sort()
            out["kappa_ci95"] = [_percentile(draws, 0.025), _percentile(draws, 0.975)]
    return out


def _percentile(ordered: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    pos = q * (len(ordered) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)
