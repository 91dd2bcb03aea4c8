"""Scores over epochs (`run --epochs N`): each task played N times.

Why: one play of a sampled model is one draw. Inspect reports the mean over epochs and its
spread; tau-bench's pass^k is the chance that k plays of the same task all succeed, the
number a deployment cares about. For each task with n plays and c successes,
pass^k = C(c, k) / C(n, k), averaged over the tasks with at least k plays (tau-bench,
Yao et al. 2024, §3). Binary outcomes only (InteractComp and DiscoBench: the answer is
right); CTS's restore score gets the mean and std only.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import comb, sqrt

from clarify_tui.metrics.model import Epochs
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols import registry


def _std(values: list[float]) -> float:
    """The sample standard deviation (n - 1), 0 for one value."""
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def pass_hat_k(outcomes: dict[str, list[bool]], k: int) -> float | None:
    """tau-bench's pass^k over tasks with at least k plays; None when no task has k."""
    values = [comb(sum(o), k) / comb(len(o), k) for o in outcomes.values() if len(o) >= k]
    return sum(values) / len(values) if values else None


def epoch_metrics(benchmark: str, counted: Sequence[ScoredSession]) -> Epochs | None:
    """n_epochs, mean, std, per_epoch and (right/wrong answers) pass_k for a group with more than one
    epoch (None otherwise). One session per task and epoch: a later one with the same
    identity (a copy merged twice) is not counted again."""
    seen: dict[tuple[str, str, int], ScoredSession] = {}
    for s in counted:
        seen.setdefault((s.run, s.task_id, s.epoch), s)
    epochs = sorted({e for (_, _, e) in seen})
    if len(epochs) < 2:
        return None
    spec = registry.get(benchmark)
    binary = spec.graded_by == "answer"

    def value(s: ScoredSession) -> float:
        return float(spec.value(s) or 0.0)

    per_epoch: dict[str, float] = {}
    for e in epochs:
        values = [value(s) for (_, _, ep), s in seen.items() if ep == e]
        per_epoch[str(e)] = sum(values) / len(values)
    out = Epochs(
        n_epochs=len(epochs),
        mean=sum(per_epoch.values()) / len(per_epoch),
        std=_std(list(per_epoch.values())),
        per_epoch=per_epoch,
    )
    if binary:
        outcomes: dict[str, list[bool]] = {}
        for (run, task, _), s in seen.items():
            outcomes.setdefault(f"{run}\0{task}", []).append(bool(s.result.correct))
        out.pass_k = {str(k): pass_hat_k(outcomes, k) for k in range(1, len(epochs) + 1)}
    return out
