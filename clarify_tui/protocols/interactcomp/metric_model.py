"""InteractComp's metrics for one group, typed (metrics.py says what each counts, paper 003 §4.1)."""

from __future__ import annotations

from dataclasses import dataclass

from clarify_tui.metrics.model import ProtocolMetrics


@dataclass(kw_only=True)
class InteractCompMetrics(ProtocolMetrics):
    """Fields in the order `score --format json` prints them."""

    accuracy: float | None
    accuracy_all: float | None
    invalid_skips: int
    call_errors: int
    invalid_outputs: int
    unreadable_verdicts: int
    accuracy_std: float | None
    rounds: float | None
    interaction_rate: float | None
    interact_rounds: float | None
    calibration_error: float | None
    calibration_n: int
    calibration_missing: int
    out_of_range_confidence: int
    fractional_confidence: int
