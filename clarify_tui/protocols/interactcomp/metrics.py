"""InteractComp metrics (paper 003 §4.1): accuracy, rounds, interaction rate, calibration error, cost.

- accuracy: mean of the graded correctness over completed sessions (a session that ran
  out of rounds without answering is wrong: the engine grades it so; an `invalid_skip`,
  the reference harness's skip after too many invalid outputs, is wrong and counted).
- accuracy_all: the same correct count over completed *and* errored sessions (an
  infrastructure failure counted as wrong): what the reference harness reports, whose
  failed tasks score 0 (core/benchmark.py:126-130).
- invalid_skips, call_errors: completed sessions that ended so (wrong answers);
  invalid_outputs: invalid or refused agent outputs, summed (they use no round).
- unreadable_verdicts: grader replies that stated no verdict (empty, a refusal, "I need to
  think...") that the paper's reading scored wrong: kept wrong, counted so a reader sees
  how many wrongs are the grader's (the reply is on the session's judge step).
- rounds: mean number of rounds that used the budget per session (invalid outputs and
  refused early answers are retried inside the round and not counted).
- interaction_rate: asks / agent actions, pooled over the group (the paper's IR,
  "percentage of rounds where interact actions are used"); interact_rounds: mean asks per
  session (IRound, Table 4).
- accuracy_std: standard deviation (n - 1) of the per-run accuracies when the group
  spans two or more runs (the paper's "std in parentheses" over repeated runs), else null.
- calibration_error: sum over 5 equal-width confidence bins on [0, 1] of
  (n_b / N) * |acc_b - conf_b| (confidence 0-100 scaled to 0-1; 1.0 falls in the last
  bin), over the sessions `accuracy` counts. As the reference harness writes them
  (run_benchmark.py:90-100, benchmark.py:126-130), a task skipped after invalid outputs,
  a final-round reply that is no answer ("No Answer") and a call the harness could not
  make have confidence 0, so they are in it. Answers whose confidence is unreadable are
  left out and counted in `calibration_missing`; a confidence off the 0-100 scale (250,
  -5) is left out too and counted in `out_of_range_confidence`; one between 0 and 1 (an
  agent on a 0-1 scale?) is used as stated and counted in `fractional_confidence`; both are
  warned about (`confidence_warnings`). A fraction in [0, 1]; the paper prints it as a
  percentage.
- tokens_in, tokens_out, cost_usd over agent, user simulator and judge, and per role.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

from clarify_tui.metrics.common import exclusions_of, mean, ratio, usage_of
from clarify_tui.metrics.records import ScoredSession, result_as
from clarify_tui.protocols.interactcomp.metric_model import InteractCompMetrics
from clarify_tui.results import InteractCompResult


def result_of(s: ScoredSession) -> InteractCompResult:
    return result_as(s, InteractCompResult)


CALIBRATION_BINS = 5


def calibration_bin(confidence: float, bins: int = CALIBRATION_BINS) -> int:
    """The bin of a 0-100 confidence: [0, 20), [20, 40), ..., [80, 100] for 5 bins."""
    return min(int(confidence * bins // 100), bins - 1)


def calibration_error(pairs: Sequence[tuple[float, bool]], bins: int = CALIBRATION_BINS) -> float | None:
    """Expected calibration error of (confidence 0-100, correct) pairs; None when empty."""
    if not pairs:
        return None
    groups: dict[int, list[tuple[float, bool]]] = {}
    for confidence, correct in pairs:
        groups.setdefault(calibration_bin(confidence, bins), []).append((confidence / 100.0, correct))
    total = len(pairs)
    error = math.fsum(
        len(members)
        / total
        * abs(sum(1 for _, ok in members if ok) / len(members) - math.fsum(c for c, _ in members) / len(members))
        for members in groups.values()
    )
    return error


# Outcomes the reference harness writes with confidence 0: a skip (run_benchmark.py:90-92),
# a final-round non-answer (agent.py:136-148 returns a string, :99-100 keep 0) and a call
# it could not make (its `Error` row, benchmark.py:126-130).
ZERO_CONFIDENCE_OUTCOMES = ("invalid_skip", "no_answer", "call_error")


def stated_confidence(result: InteractCompResult) -> float | None:
    """The confidence the reference harness would have written for this session (any value)."""
    if result.outcome in ZERO_CONFIDENCE_OUTCOMES:
        return 0.0
    return None if result.confidence is None else float(result.confidence)


def in_scale(confidence: float) -> bool:
    """On the papers' 0-100 scale (NaN is not)."""
    return 0.0 <= confidence <= 100.0


def harness_confidence(result: InteractCompResult) -> float | None:
    """The confidence calibration uses: the stated one when it is on the 0-100 scale, else
    None (a 250 is no confidence calibration can bin: counted in `out_of_range_confidence`)."""
    confidence = stated_confidence(result)
    return confidence if confidence is not None and in_scale(confidence) else None


def confidence_warnings(results: Sequence[InteractCompResult]) -> list[str]:
    """What a reader of calibration_error must know about the stated confidences: values off
    the 0-100 scale (left out) and values below 1 (read as under 1 %: a 0-1 scale?)."""
    stated = [c for r in results if (c := stated_confidence(r)) is not None]
    off = [c for c in stated if not in_scale(c)]
    small = [c for c in stated if 0.0 < c < 1.0]
    out = []
    if off:
        out.append(
            f"warning: {len(off)} answer(s) gave a confidence outside the papers' 0-100 scale (e.g. {off[0]:g}):"
            f" left out of calibration_error, counted in out_of_range_confidence"
        )
    if small:
        out.append(
            f"warning: {len(small)} answer(s) gave a confidence between 0 and 1 (e.g. {small[0]:g}): the "
            f"papers' scale is 0-100, so calibration_error reads it as {small[0]:g} %; an agent answering on "
            f"a 0-1 scale must multiply by 100 (counted in fractional_confidence)"
        )
    return out


def accuracy_std(scored: Sequence[ScoredSession]) -> float | None:
    """Sample standard deviation of per-run accuracy; None with fewer than two runs."""
    by_run: dict[str, list[bool]] = {}
    for s in scored:
        by_run.setdefault(s.run, []).append(bool(s.result.correct))
    if len(by_run) < 2:
        return None
    return statistics.stdev(sum(v) / len(v) for v in by_run.values())


def interactcomp_metrics(sessions: Sequence[ScoredSession]) -> InteractCompMetrics:
    """The metrics of one group of InteractComp sessions (any statuses; excluded ones counted)."""
    scored = [s for s in sessions if s.scorable and s.result.correct is not None]
    results = [result_of(s) for s in scored]
    correct = [bool(r.correct) for r in results]
    rounds = [r.rounds for r in results]
    asks = sum(r.asks for r in results)
    confidences = [harness_confidence(r) for r in results]
    pairs = [(c, bool(r.correct)) for c, r in zip(confidences, results) if c is not None]
    off_scale = [c for r in results if (c := stated_confidence(r)) is not None and not in_scale(c)]
    errored = sum(1 for s in sessions if s.status == "errored")
    excluded = exclusions_of(sessions)
    excluded.unjudged += sum(1 for s in sessions if s.scorable and s.result.correct is None)
    return InteractCompMetrics(
        accuracy=mean(correct),
        accuracy_all=ratio(sum(correct), len(correct) + errored),
        invalid_skips=sum(1 for r in results if r.outcome == "invalid_skip"),
        call_errors=sum(1 for r in results if r.outcome == "call_error"),
        invalid_outputs=sum(r.invalid for r in results),
        unreadable_verdicts=sum(r.unreadable_verdicts for r in results),
        accuracy_std=accuracy_std(scored),
        rounds=mean(rounds),
        interaction_rate=ratio(asks, sum(rounds)),
        interact_rounds=mean([r.asks for r in results]),
        calibration_error=calibration_error(pairs),
        calibration_n=len(pairs),
        calibration_missing=len(scored) - len(pairs) - len(off_scale),
        out_of_range_confidence=len(off_scale),
        fractional_confidence=sum(1 for c, _ in pairs if 0.0 < c < 1.0),
        usage=usage_of(scored, sessions),
        excluded=excluded,
    )
