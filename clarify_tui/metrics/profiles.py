"""DiscoBench behaviour profiles of reached ambiguous checkpoints (paper 000, appendix E).

- direct_guess: no ask, searches <= K in that checkpoint
- search_heavy_guess: no ask, searches > K
- direct_ask: an ask before any search in that checkpoint
- search_then_ask: at least one search before the first ask

K is the paper's K = 3 for every group by default (appendix E, line 421: one K for all
models). `score --profile-k data` asks for a data-driven K as the paper derived its own
("the median search count among successful no-ask trajectories"): one value, the median
search count of the advanced, no-ask, reached ambiguous checkpoints of *all* groups scored
together (`data_driven_k`), never one K per group (groups would not be comparable);
`--profile-k N` sets it. Each profile reports
its `share` of the reached ambiguous checkpoints, its count `n` and its `pass_rate`
(share of them advanced: outcome correct_answer or missed_ambiguity_correct); null when
the denominator is zero.

Which checkpoints (`profile_subset`): the paper's Tables 3 and 5 are computed "on the common
subset (N=146 ambi-CPs)", the ambiguous checkpoints reached by every compared model
(appendix E, line 429). `common`, the default, does the same: a (task, checkpoint) enters
every group's profiles only when every DiscoBench group scored together reached it; `all`
gives each group its own reached checkpoints. Each group says which (`profile_subset`)
and how many checkpoints (`profile_n`); with one group the two are the same and it says `all`.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable

from clarify_tui.metrics.common import ratio
from clarify_tui.results import ADVANCED_OUTCOMES, CheckpointResult

PROFILES = ("direct_guess", "search_heavy_guess", "direct_ask", "search_then_ask")
DEFAULT_K = 3
ADVANCED = ADVANCED_OUTCOMES


def data_driven_k(checkpoints: Iterable[CheckpointResult]) -> float | None:
    """Median search count of the successful no-ask reached ambiguous checkpoints; None if none."""
    counts = [
        cp.searches
        for cp in checkpoints
        if cp.type == "ambi" and cp.reached and not cp.asked and cp.outcome in ADVANCED
    ]
    if not counts:
        return None
    k = statistics.median(counts)
    return int(k) if float(k).is_integer() else k


SUBSETS = ("common", "all")
DEFAULT_SUBSET = "common"
CheckpointKey = tuple[str, int]  # (task id, checkpoint index)


def common_subset(groups: Iterable[Iterable[tuple[str, CheckpointResult]]]) -> set[CheckpointKey]:
    """The reached ambiguous checkpoints every group reached (each group: its (task id, row)s)."""
    common: set[CheckpointKey] | None = None
    for rows in groups:
        reached = {(task, cp.index) for task, cp in rows if cp.type == "ambi" and cp.reached}
        common = reached if common is None else common & reached
    return common or set()


KSetting = float | str | None  # None: the paper's 3; "data": data-driven; a number: given


def choose_k(checkpoints: Iterable[CheckpointResult], setting: KSetting = None) -> tuple[float, str]:
    """(K, where it came from): "paper" (3), "override" (a number) or "data" (the median over
    `checkpoints`: pass every group's, so all groups share one K; "paper" when there is none)."""
    if setting is None:
        return DEFAULT_K, "paper"
    if setting == "data":
        k = data_driven_k(checkpoints)
        return (DEFAULT_K, "paper") if k is None else (k, "data")
    return float(setting) if not float(setting).is_integer() else int(float(setting)), "override"


def profile_of(checkpoint: CheckpointResult, k: float = DEFAULT_K) -> str:
    """The profile of one checkpoint row of a DiscoBench result."""
    if not checkpoint.asked:
        return "direct_guess" if checkpoint.searches <= k else "search_heavy_guess"
    before = checkpoint.searches_before_first_ask
    if before is None:  # older rows: fall back to the first action
        before = 0 if checkpoint.first_action == "ask" else 1
    return "direct_ask" if before == 0 else "search_then_ask"


def profile_metrics(checkpoints: Iterable[CheckpointResult], k: float = DEFAULT_K) -> dict:
    """Profiles over checkpoint rows; only reached ambiguous checkpoints count."""
    counts = {p: 0 for p in PROFILES}
    passed = {p: 0 for p in PROFILES}
    total = 0
    for cp in checkpoints:
        if cp.type != "ambi" or not cp.reached:
            continue
        profile = profile_of(cp, k)
        total += 1
        counts[profile] += 1
        if cp.outcome in ADVANCED:
            passed[profile] += 1
    return {
        p: {"share": ratio(counts[p], total), "pass_rate": ratio(passed[p], counts[p]), "n": counts[p]}
        for p in PROFILES
    }
