"""DiscoBench metrics (paper 000, appendix B; profiles in appendix E, see profiles.py).

Per session (question): accuracy (final answer equivalence) and the checkpoint pass score
A_q / N_q, where A_q counts outcomes correct_answer and missed_ambiguity_correct and N_q
is the number of checkpoints; both averaged over sessions. ask_turns and tool_turns are
per-session means.

Detection over *reached* checkpoints, pooled over the group:
TP = ambiguous and asked right, FN = ambiguous and not asked right,
FP = unambiguous and asked, TN = unambiguous and not asked.
detection_accuracy = (TP+TN)/all, precision = TP/(TP+FP), recall = TP/(TP+FN),
F1 in the count form 2TP/(2TP+FP+FN) (equal to 2PR/(P+R) whenever P and R exist; null only
when no checkpoint is ambiguous-and-reached or asked, i.e. 2TP+FP+FN = 0; docs/scoring.md). Over checkpoints where the agent asked: ce_a = asked right / asked,
ce_b = (asked right and advanced) / asked. A zero denominator gives null.

Detection, ce_a/ce_b, profiles and the ambiguity-type breakdown leave out sessions of the
`original_question` ablation (§5.5): the original question has no ambiguity to detect,
so a group of only such sessions has null detection metrics (`detection_excluded` counts
the sessions left out). Profiles use K from `profiles.choose_k` (`profile_k`,
`profile_k_source`: paper, data or override), resolved once for all groups by the caller.

`unreadable_verdicts`: grader replies that stated no verdict, scored wrong (docs/scoring.md).

`checkpoint_modes` counts the sessions of each checkpoint protocol (answer / strict / trajectory,
docs/paper-readings.md D1, D7): mixing them in one group mixes two definitions of a pass.

Breakdowns: `by_ambiguity_type` (§5.3, Fig. 5): per type, the reached ambiguous
checkpoints, their detection recall (asked right / reached) and pass rate;
`by_difficulty` (appendix D): per task difficulty, sessions, accuracy and checkpoint pass
rate (only when the task snapshots carry a difficulty).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from clarify_tui.metrics.common import exclusions_of, mean, ratio, usage_of
from clarify_tui.metrics.profiles import ADVANCED, choose_k, profile_metrics
from clarify_tui.metrics.records import ScoredSession, result_as
from clarify_tui.protocols.discobench.metric_model import (
    AmbiguityRow,
    Detection,
    DifficultyRow,
    DiscoBenchMetrics,
    Profile,
)
from clarify_tui.results import CheckpointResult, DiscoBenchResult


def result_of(s: ScoredSession) -> DiscoBenchResult:
    return result_as(s, DiscoBenchResult)


def detection_counts(checkpoints: Sequence[CheckpointResult]) -> dict[str, int]:
    tp = fn = fp = tn = 0
    for cp in checkpoints:
        if not cp.reached:
            continue
        if cp.type == "ambi":
            if cp.asked_right:
                tp += 1
            else:
                fn += 1
        elif cp.asked:
            fp += 1
        else:
            tn += 1
    return {"tp": tp, "fn": fn, "fp": fp, "tn": tn}


def f1(counts: dict[str, int]) -> float | None:
    """Detection F1 from the pooled counts: 2TP / (2TP + FP + FN); None when that is 0/0."""
    return ratio(2 * counts["tp"], 2 * counts["tp"] + counts["fp"] + counts["fn"])


def _pass_score(s: ScoredSession) -> float | None:
    cps = result_of(s).checkpoints
    return sum(1 for cp in cps if cp.outcome in ADVANCED) / len(cps) if cps else None


def by_ambiguity_type(checkpoints: Sequence[CheckpointResult]) -> dict[str, AmbiguityRow]:
    out: dict[str, dict] = {}
    for cp in checkpoints:
        if cp.type != "ambi" or not cp.reached:
            continue
        row = out.setdefault(cp.ambiguity_type or "unknown", {"n": 0, "tp": 0, "passed": 0})
        row["n"] += 1
        row["tp"] += cp.asked_right
        row["passed"] += cp.outcome in ADVANCED
    return {
        t: AmbiguityRow(n=r["n"], detection_recall=ratio(r["tp"], r["n"]), pass_rate=ratio(r["passed"], r["n"]))
        for t, r in sorted(out.items())
    }


def by_difficulty(scored: Sequence[ScoredSession]) -> dict[str, DifficultyRow]:
    groups: dict[str, list[ScoredSession]] = {}
    for s in scored:
        if s.difficulty:
            groups.setdefault(s.difficulty, []).append(s)
    return {
        d: DifficultyRow(
            n_sessions=len(members),
            accuracy=mean([bool(s.result.correct) for s in members]),
            checkpoint_pass_rate=mean([p for s in members if (p := _pass_score(s)) is not None]),
        )
        for d, members in sorted(groups.items())
    }


def checkpoint_modes(scored: Sequence[ScoredSession]) -> dict[str, int]:
    """How many sessions settled checkpoints by answers and how many by trajectory
    inference (rows written before the mode was recorded were trajectory-inferred)."""
    modes: dict[str, int] = {}
    for s in scored:
        mode = result_of(s).checkpoint_mode or "trajectory"
        modes[mode] = modes.get(mode, 0) + 1
    return modes


def profile_checkpoints(sessions: Iterable[ScoredSession]) -> list[CheckpointResult]:
    """The checkpoint rows detection and profiles count: scored sessions, no original_question."""
    return [
        cp
        for s in sessions
        if s.scorable and s.result.correct is not None and result_of(s).ablation != "original_question"
        for cp in result_of(s).checkpoints
    ]


def keyed_profile_checkpoints(sessions: Iterable[ScoredSession]) -> list[tuple[str, CheckpointResult]]:
    """`profile_checkpoints` with each row's task id (the common subset is keyed by task)."""
    return [
        (s.task_id, cp)
        for s in sessions
        if s.scorable and s.result.correct is not None and result_of(s).ablation != "original_question"
        for cp in result_of(s).checkpoints
    ]


def discobench_metrics(
    sessions: Sequence[ScoredSession],
    k: float | None = None,
    k_source: str | None = None,
    profile_subset: set[tuple[str, int]] | None = None,
) -> DiscoBenchMetrics:
    """The metrics of one group of DiscoBench sessions (any statuses; excluded ones counted).
    `k`: the profile threshold, resolved once for all groups by the caller (profiles.choose_k;
    `k_source` says where it came from); None = the paper's K = 3. `profile_subset`: the
    (task, checkpoint) keys the profiles count (profiles.common_subset, shared by every
    group); None = every reached ambiguous checkpoint of this group."""
    scored = [s for s in sessions if s.scorable and s.result.correct is not None]
    detectable = [s for s in scored if result_of(s).ablation != "original_question"]
    checkpoints = profile_checkpoints(detectable)
    if k is None:
        k, k_source = choose_k(checkpoints)
    k_source = k_source or "override"
    pass_scores = [p for s in scored if (p := _pass_score(s)) is not None]
    profiled = (
        checkpoints
        if profile_subset is None
        else [cp for task, cp in keyed_profile_checkpoints(detectable) if (task, cp.index) in profile_subset]
    )
    c = detection_counts(checkpoints)
    precision = ratio(c["tp"], c["tp"] + c["fp"])
    recall = ratio(c["tp"], c["tp"] + c["fn"])
    asked = [cp for cp in checkpoints if cp.reached and cp.asked]
    right = [cp for cp in asked if cp.asked_right]
    right_advanced = [cp for cp in right if cp.advanced or cp.outcome in ADVANCED]
    excluded = exclusions_of(sessions)
    excluded.unjudged += sum(1 for s in sessions if s.scorable and s.result.correct is None)
    return DiscoBenchMetrics(
        accuracy=mean([bool(s.result.correct) for s in scored]),
        checkpoint_pass_rate=mean(pass_scores),
        detection_accuracy=ratio(c["tp"] + c["tn"], sum(c.values())),
        detection_precision=precision,
        detection_recall=recall,
        detection_f1=f1(c),
        ce_a=ratio(len(right), len(asked)),
        ce_b=ratio(len(right_advanced), len(asked)),
        ask_turns=mean([result_of(s).ask_turns for s in scored]),
        tool_turns=mean([result_of(s).tool_turns for s in scored]),
        unreadable_verdicts=sum(result_of(s).unreadable_verdicts for s in scored),
        detection=Detection(**c),
        profiles={name: Profile(**p) for name, p in profile_metrics(profiled, k).items()},
        profile_subset="all" if profile_subset is None else "common",
        profile_n=sum(1 for cp in profiled if cp.type == "ambi" and cp.reached),
        profile_k=k,
        profile_k_source=k_source,
        detection_excluded=len(scored) - len(detectable),
        checkpoint_modes=checkpoint_modes(scored),
        by_ambiguity_type=by_ambiguity_type(checkpoints),
        by_difficulty=by_difficulty(scored),
        usage=usage_of(scored, sessions),
        excluded=excluded,
    )
