"""Metrics: pure functions from stored sessions to the numbers the three papers report.

No UI, no network, no protocol re-play: they read each session's `result` (with chosen
judgments laid over it) and its usage per role. One module per protocol plus profiles:

    from clarify_tui.metrics import load_sessions, score
    report = score(Store("sessions/clarify.db"), runs=["a"], by="run")
"""

from __future__ import annotations

from clarify_tui.metrics.cts import cts_metrics, restore_score
from clarify_tui.metrics.discobench import discobench_metrics
from clarify_tui.metrics.interactcomp import calibration_error, interactcomp_metrics
from clarify_tui.metrics.profiles import profile_metrics
from clarify_tui.metrics.records import ScoredSession, from_session, load_sessions
from clarify_tui.metrics.report import flatten, group_sessions, score, score_sessions

__all__ = [
    "ScoredSession",
    "calibration_error",
    "cts_metrics",
    "discobench_metrics",
    "flatten",
    "from_session",
    "group_sessions",
    "interactcomp_metrics",
    "load_sessions",
    "profile_metrics",
    "restore_score",
    "score",
    "score_sessions",
]
