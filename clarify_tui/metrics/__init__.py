"""Metrics: pure functions from stored sessions to the numbers the three papers report.

No UI, no network, no protocol re-play: they read each session's `result` (with chosen
judgments laid over it) and its usage per role. One module per protocol plus profiles:

    from clarify_tui.metrics import load_sessions, score
    report = score(Store("sessions/clarify.db"), runs=["a"], by="run")  # the JSON of `score`

`score_groups(sessions)` gives the same report typed (`Scores`, metrics/model.py).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # loaded on first use: a protocol's metrics module imports metrics.common first
    from clarify_tui.metrics.model import Group, ProtocolMetrics, Scores
    from clarify_tui.metrics.profiles import profile_metrics
    from clarify_tui.metrics.records import ScoredSession, from_session, load_sessions
    from clarify_tui.metrics.report import flatten, group_sessions, score, score_groups, score_sessions
    from clarify_tui.protocols.cts.metrics import cts_metrics, restore_score
    from clarify_tui.protocols.discobench.metrics import discobench_metrics
    from clarify_tui.protocols.interactcomp.metrics import calibration_error, interactcomp_metrics

_WHERE = {
    "cts_metrics": "clarify_tui.protocols.cts.metrics",
    "restore_score": "clarify_tui.protocols.cts.metrics",
    "discobench_metrics": "clarify_tui.protocols.discobench.metrics",
    "calibration_error": "clarify_tui.protocols.interactcomp.metrics",
    "interactcomp_metrics": "clarify_tui.protocols.interactcomp.metrics",
    "profile_metrics": "clarify_tui.metrics.profiles",
    "Group": "clarify_tui.metrics.model",
    "ProtocolMetrics": "clarify_tui.metrics.model",
    "Scores": "clarify_tui.metrics.model",
    "ScoredSession": "clarify_tui.metrics.records",
    "from_session": "clarify_tui.metrics.records",
    "load_sessions": "clarify_tui.metrics.records",
    "flatten": "clarify_tui.metrics.report",
    "group_sessions": "clarify_tui.metrics.report",
    "score": "clarify_tui.metrics.report",
    "score_groups": "clarify_tui.metrics.report",
    "score_sessions": "clarify_tui.metrics.report",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "Group",
    "ProtocolMetrics",
    "ScoredSession",
    "Scores",
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
    "score_groups",
    "score_sessions",
]
