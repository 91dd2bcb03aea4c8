"""What people's should-it-have-asked labels say about a run (`labels --run RUN`,
`report --labels`; docs/labels.md).

- `n_labels`, `annotators`, `points_labelled` (of `decision_points`): one label per point
  and annotator (their first, whichever queue or file it came through; transfer.first_answers);
- agreement and kappa among the annotators of each point (metrics/agreement.py: Cohen's
  kappa for two people on every point, else Fleiss' kappa with a varying number of raters;
  percentile bootstrap CI over points, seeded), on the three labels ask / act / unsure;
- `needed_ask`: the share of labelled points whose labels are more than half `ask` (unsure
  counts in the denominator: it is no vote for asking), with its Wilson 95 % CI over points;
  `label_shares`: the share of all labels that are each of ask / act / unsure;
- `auc_vs_flips`: at the labelled points where the run has a scored `whatif` ask fork, how
  well the point's share of `ask` labels ranks the points where asking flipped the outcome
  for the better (InteractComp, DiscoBench: the fork right where its parent was wrong; CTS:
  the fork's restore score above its parent's) above the others: the ROC AUC
  (Mann-Whitney: ties count half), with a percentile bootstrap CI over those points. Null,
  never 0 or 0.5, when the run has no such forks or they are all one class.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from clarify_tui.labels.points import points_of, run_sessions
from clarify_tui.labels.transfer import LABELS, first_answers
from clarify_tui.metrics.agreement import categorical_agreement
from clarify_tui.metrics.intervals import wilson
from clarify_tui.protocols import registry
from clarify_tui.store import Store

DEFAULT_BOOTSTRAP = 2000


def auc(scores: Sequence[float], positive: Sequence[bool]) -> float | None:
    """P(a positive's score > a negative's) + half the ties; None without both classes."""
    pos = [s for s, p in zip(scores, positive, strict=True) if p]
    neg = [s for s, p in zip(scores, positive, strict=True) if not p]
    if not pos or not neg:
        return None
    wins = sum((a > b) + 0.5 * (a == b) for a in pos for b in neg)
    return wins / (len(pos) * len(neg))


def auc_ci(scores: Sequence[float], positive: Sequence[bool], resamples: int, seed: int) -> list[float] | None:
    """Percentile bootstrap over points (resamples with one class only are dropped)."""
    if resamples <= 0 or auc(scores, positive) is None:
        return None
    rng = random.Random(seed)
    idx = range(len(scores))
    draws = []
    for _ in range(resamples):
        pick = rng.choices(idx, k=len(scores))
        value = auc([scores[i] for i in pick], [positive[i] for i in pick])
        if value is not None:
            draws.append(value)
    if not draws:
        return None
    draws.sort()
    return [_percentile(draws, 0.025), _percentile(draws, 0.975)]


def _percentile(ordered: Sequence[float], q: float) -> float:
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def _improved(protocol: str | None, parent: float, fork: float) -> bool:
    if registry.get(protocol).graded_by == "nuggets":
        return fork > parent
    return parent == 0 and fork == 1


def flips_at(store: Store, run: str) -> dict[tuple[str, int], bool]:
    """(session, step) -> whether the `ask` fork there improved the outcome, for every
    scored ask fork `whatif` stored for the run."""
    from clarify_tui.whatif_results import stored

    result = stored(store, run, "ask")
    return {
        (f.point.session_id, f.point.step): _improved(result.protocol, f.parent_outcome, f.outcome)
        for f in result.forks
        if f.outcome is not None and f.parent_outcome is not None
    }


def labels_summary(store: Store, run: str, *, resamples: int = DEFAULT_BOOTSTRAP, seed: int = 0) -> dict[str, Any]:
    """The `labels --run RUN --format json` object (see the module docstring)."""
    answers, differing = first_answers(store.work.answers(run=run, kind="labels"))
    found: dict[str, dict[str, str]] = {}
    for a in answers:
        label = a.answer.get("label")
        if label in LABELS:
            found.setdefault(a.item_id, {})[a.annotator] = label
    sessions = run_sessions(store, run)
    # points in (task, step) order, the same in any copy of the run (session ids are random):
    # the bootstrap draws the same resamples for the same labels
    task_of = {s.id: s.task_id for s in store.sessions(runs=[run])}
    ratings = {item: found[item] for item in sorted(found, key=lambda i: (task_of.get(_key(i)[0], ""), _key(i)[1], i))}
    protocols = sorted({s.protocol.value for s in sessions})
    total_points = sum(len(points_of(s, store.steps(s.id))) for s in sessions)
    agree = categorical_agreement(ratings, LABELS, resamples=resamples, seed=seed)
    n_labels = sum(len(r) for r in ratings.values())
    shares = {
        c: (sum(1 for r in ratings.values() for v in r.values() if v == c) / n_labels if n_labels else None)
        for c in LABELS
    }
    ask_share = {item: sum(v == "ask" for v in r.values()) / len(r) for item, r in ratings.items()}
    majority = sum(1 for s in ask_share.values() if s > 0.5)
    flips = flips_at(store, run)
    at = [(share, flips[key]) for item, share in ask_share.items() if (key := _key(item)) in flips]
    scores, positive = [s for s, _ in at], [p for _, p in at]
    value = auc(scores, positive)
    return {
        "run": run,
        "benchmark": protocols[0] if len(protocols) == 1 else None,
        "n_labels": n_labels,
        "annotators": sorted({a for r in ratings.values() for a in r}),
        "decision_points": total_points,
        "points_labelled": len(ratings),
        "points_multiply_labelled": agree["items"],
        "agreement": agree["agreement"],
        "kappa": agree["kappa"],
        "kappa_method": agree["method"],
        "kappa_ci95": agree["kappa_ci95"],
        "confusion": agree.get("confusion"),
        "needed_ask": {
            "share": majority / len(ratings) if ratings else None,
            "ci95": wilson(majority, len(ratings)),
            "points": majority,
            "rule": "more than half of the point's labels are ask",
        },
        "label_shares": shares,
        "auc_vs_flips": value,
        "auc_vs_flips_ci95": auc_ci(scores, positive, resamples, seed) if value is not None else None,
        "fork_points": {"labelled_with_ask_fork": len(at), "improved": sum(positive)},
        "bootstrap": {"resamples": resamples, "seed": seed},
        "duplicates": differing,
    }


def _key(item: str) -> tuple[str, int]:
    sid, step = item.rsplit(":", 1)
    return sid, int(step)
