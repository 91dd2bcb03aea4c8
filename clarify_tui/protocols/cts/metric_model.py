"""Clarify-Then-Search's metrics for one group, typed (metrics.py says what each counts;
paper 001 §4.4, §6.1-6.3, appendix C)."""

from __future__ import annotations

from dataclasses import dataclass

from clarify_tui.metrics.model import ProtocolMetrics, Record


@dataclass(kw_only=True)
class Turn(Record):
    """The diagnostics of one question position (k > 1, Table 10)."""

    turn: int
    n_questions: int
    ua_unknown_rate: float | None
    cq_region_rate: float | None
    region_only_n: int
    region_only_unknown_rate: float | None


@dataclass(kw_only=True)
class DeltaVsOrig(Record):
    """This group's mean restore score minus orig's on the paired tasks, with a paired bootstrap CI (Table 3)."""

    mean: float | None
    ci95: list[float] | None
    n_tasks: int
    unpaired: int
    deep_search: list[str]
    orig_mean: float | None
    resamples: int
    seed: int


@dataclass(kw_only=True)
class CTSMetrics(ProtocolMetrics):
    """Fields in the order `score --format json` prints them."""

    restore_score_mean: float | None
    restore_score_p50: float | None
    restore_score_p90: float | None
    restore_score_min: float | None
    restore_score_max: float | None
    ua_unknown_rate: float | None
    cq_region_rate: float | None
    region_only_n: int
    region_only_unknown_rate: float | None
    all_unknown_rate: float | None
    known_cnt: dict[str, float | None]
    n_questions: int
    n_clarified: int
    n_orig: int
    per_turn: list[Turn]
    delta_vs_orig: DeltaVsOrig | None
