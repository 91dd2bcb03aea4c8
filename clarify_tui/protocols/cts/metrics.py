"""Clarify-Then-Search metrics (paper 001 §4.4, §6.1-6.3, appendix C; release notes 004).

- restore_score_100 = 100 * sum_j w_j s(cov_j) / sum_j w_j, s(full)=1, s(partial)=0.5,
  s(none)=0, recomputed from the stored coverage (so re-judged coverage counts);
  mean, p50, p90, min, max over sessions (linear interpolation between order statistics).
- ua_unknown_rate: share of all UA answers that are `unknown` (pooled; a reply that only
  says the intent does not specify it counts as unknown, users/unknown.py).
- cq_region_rate: share of clarification questions that ask about region (among their
  aspects, protocols/cts/aspects.py; result.aspect_sets, or result.aspects in older rows);
  region_only_n: questions whose ONLY aspect is region; region_only_unknown_rate: the
  unknown rate among those (Tables 4-5, lines 284-305).
- all_unknown_rate: share of clarified sessions whose k answers are all unknown;
  known_cnt: share of clarified sessions with 0..k non-unknown answers (Table 7;
  known_cnt["0"] equals all_unknown_rate).
- per_turn (k > 1): per question position, the unknown rate, region rate and region-only
  unknown rate (Table 10).
- delta_vs_orig: when the selection holds `orig` sessions (result.orig true) with the
  same deep-search agent (result.deep_search; older rows: the session's agent) on the
  same tasks: mean over the paired (task, deep search) of (this group's mean score - the
  orig mean score), with a paired bootstrap 95% CI over those differences (Table 3).
  Sessions with no orig partner are left out and counted (`unpaired`).
`orig` sessions ask nothing, so they enter the restore-score statistics of their group
but none of the question/answer diagnostics.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import Executor
from typing import Any

from clarify_tui.metrics.common import (
    bootstrap_mean_ci,
    exclusions_of,
    mean,
    ratio,
    summary,
    usage_of,
)
from clarify_tui.metrics.options import DEFAULT_BOOTSTRAP
from clarify_tui.metrics.records import ScoredSession, result_as
from clarify_tui.protocols.cts.metric_model import CTSMetrics, DeltaVsOrig, Turn
from clarify_tui.results import CTSResult, NuggetCoverage
from clarify_tui.users.unknown import is_unknown  # noqa: F401  (re-exported: metrics.cts.is_unknown)

COVERAGE_SCORE = {"full": 1.0, "partial": 0.5, "none": 0.0}


def restore_score(coverage: Sequence[NuggetCoverage]) -> float | None:
    """restore_score_100 of coverage rows {weight, coverage}; None without weights."""
    total = sum(c.weight for c in coverage)
    if not total:
        return None
    return 100.0 * math.fsum(c.weight * COVERAGE_SCORE[c.coverage] for c in coverage) / total


def session_score(result: CTSResult) -> float | None:
    score = restore_score(result.coverage) if result.coverage else None
    if score is None:
        score = result.restore_score
    return None if score is None else float(score)


def result_of(s: ScoredSession) -> CTSResult:
    return result_as(s, CTSResult)


def score_of(s: ScoredSession) -> float | None:
    """session_score of a ScoredSession, computed once."""
    if "restore_score_100" not in s.memo:
        s.memo["restore_score_100"] = session_score(result_of(s))
    return s.memo["restore_score_100"]


def is_orig(s: ScoredSession) -> bool:
    return result_of(s).orig


def _qa(s: ScoredSession) -> list[tuple[tuple[str, ...], str]]:
    """(aspects, answer) per clarification question of a session, computed once."""
    if "qa" in s.memo:
        return s.memo["qa"]
    r = result_of(s)
    answers = list(r.answers)
    sets = [tuple(a) for a in r.aspect_sets]
    if not sets:  # rows written before aspect_sets: one aspect per question
        sets = [(a,) for a in r.aspects]
    questions = list(r.questions)
    n = max(len(answers), len(questions))
    s.memo["qa"] = [
        (sets[i] if i < len(sets) else ("other",), answers[i] if i < len(answers) else "") for i in range(n)
    ]
    return s.memo["qa"]


def _diagnostics(pairs: Sequence[tuple[tuple[str, ...], str]]) -> dict[str, Any]:
    unknown = sum(1 for _, a in pairs if is_unknown(a))
    region = [a for aspects, a in pairs if "region" in aspects]
    region_only = [a for aspects, a in pairs if aspects == ("region",)]
    return {
        "n_questions": len(pairs),
        "ua_unknown_rate": ratio(unknown, len(pairs)),
        "cq_region_rate": ratio(len(region), len(pairs)),
        "region_only_n": len(region_only),
        "region_only_unknown_rate": ratio(sum(1 for a in region_only if is_unknown(a)), len(region_only)),
    }


def deep_search_of(s: ScoredSession) -> str:
    """Who ran deep search: the recorded spec, else (older rows) the session's agent."""
    return str(result_of(s).deep_search or s.agent)


def per_task_scores(sessions: Sequence[ScoredSession]) -> dict[tuple[str, str], float]:
    """Mean restore score per (task, deep search) (repeated sessions are averaged)."""
    by_task: dict[tuple[str, str], list[float]] = {}
    for s in sessions:
        score = score_of(s)
        if score is not None:
            by_task.setdefault((s.task_id, deep_search_of(s)), []).append(score)
    return {t: math.fsum(v) / len(v) for t, v in by_task.items()}


def delta_vs_orig(
    sessions: Sequence[ScoredSession],
    orig: Sequence[ScoredSession],
    resamples: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    executor: Executor | None = None,
) -> DeltaVsOrig | None:
    """Paired difference of this group's per-task mean score against orig's with the same
    deep-search agent; None when nothing pairs."""
    mine = per_task_scores([s for s in sessions if not is_orig(s)])
    base = per_task_scores(orig)
    tasks = sorted(set(mine) & set(base))
    if not tasks:
        return None
    diffs = [mine[t] - base[t] for t in tasks]
    ci = bootstrap_mean_ci(diffs, resamples=resamples, seed=seed, executor=executor)
    return DeltaVsOrig(
        mean=mean(diffs),
        ci95=list(ci) if ci else None,
        n_tasks=len(tasks),
        unpaired=len(set(mine) - set(base)),
        deep_search=sorted({d for _, d in tasks}),
        orig_mean=mean([base[t] for t in tasks]),
        resamples=resamples,
        seed=seed,
    )


def cts_metrics(
    sessions: Sequence[ScoredSession],
    orig: Sequence[ScoredSession] | None = None,
    resamples: int = DEFAULT_BOOTSTRAP,
    seed: int = 0,
    executor: Executor | None = None,
) -> CTSMetrics:
    """The metrics of one group of CTS sessions.

    `orig`: the selection's scorable orig sessions (for delta_vs_orig); None or empty
    leaves delta_vs_orig null. `executor` may run the bootstrap chunks in parallel (the
    numbers do not depend on it).
    """
    scored = [s for s in sessions if s.scorable and score_of(s) is not None]
    stats = summary(v for s in scored if (v := score_of(s)) is not None)
    clarified = [s for s in scored if not is_orig(s) and _qa(s)]
    pairs = [p for s in clarified for p in _qa(s)]
    diag = _diagnostics(pairs)
    k_max = max((len(_qa(s)) for s in clarified), default=0)
    known = [sum(1 for _, a in _qa(s) if not is_unknown(a)) for s in clarified]
    known_cnt = {str(i): ratio(sum(1 for c in known if c == i), len(known)) for i in range(k_max + 1)}
    per_turn: list[Turn] = []
    if k_max > 1:
        for t in range(k_max):
            turn = _diagnostics([_qa(s)[t] for s in clarified if len(_qa(s)) > t])
            per_turn.append(Turn(turn=t + 1, **turn))
    delta = None
    if orig and any(not is_orig(s) for s in scored):
        delta = delta_vs_orig(scored, orig, resamples=resamples, seed=seed, executor=executor)
    excluded = exclusions_of(sessions)
    excluded.unjudged += sum(1 for s in sessions if s.scorable and score_of(s) is None)
    return CTSMetrics(
        restore_score_mean=stats["mean"],
        restore_score_p50=stats["p50"],
        restore_score_p90=stats["p90"],
        restore_score_min=stats["min"],
        restore_score_max=stats["max"],
        ua_unknown_rate=diag["ua_unknown_rate"],
        cq_region_rate=diag["cq_region_rate"],
        region_only_n=diag["region_only_n"],
        region_only_unknown_rate=diag["region_only_unknown_rate"],
        all_unknown_rate=ratio(sum(1 for c in known if c == 0), len(known)),
        known_cnt=known_cnt,
        n_questions=diag["n_questions"],
        n_clarified=len(clarified),
        n_orig=sum(1 for s in scored if is_orig(s)),
        per_turn=per_turn,
        delta_vs_orig=delta,
        usage=usage_of(scored, sessions),
        excluded=excluded,
    )
