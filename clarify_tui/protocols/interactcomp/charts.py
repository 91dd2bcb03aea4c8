"""InteractComp's series in the TUI's scores charts: the reliability diagram."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from clarify_tui.metrics.charts import ScoresData
from clarify_tui.metrics.model import ProtocolMetrics
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols.interactcomp.metrics import CALIBRATION_BINS, calibration_bin, harness_confidence
from clarify_tui.results import InteractCompResult


def reliability_points(members: Iterable[ScoredSession]) -> list[tuple[float, float, int]]:
    """(mean confidence 0-1, accuracy, n) per non-empty confidence bin (the CE bins)."""
    bins: dict[int, list[tuple[float, bool]]] = {}
    for s in members:
        r = s.result
        conf_or_none = harness_confidence(r) if isinstance(r, InteractCompResult) else None
        if s.scorable and r.correct is not None and conf_or_none is not None:
            conf = conf_or_none
            bins.setdefault(calibration_bin(conf, CALIBRATION_BINS), []).append((conf / 100.0, bool(r.correct)))
    return [
        (sum(c for c, _ in pts) / len(pts), sum(1 for _, ok in pts if ok) / len(pts), len(pts))
        for _, pts in sorted(bins.items())
    ]


def charts(label: str, metrics: ProtocolMetrics, members: Sequence[ScoredSession], data: ScoresData) -> None:
    data.reliability[label] = reliability_points(members)
