"""CTS's series in the TUI's scores charts: the restore-score histogram."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from clarify_tui.metrics.charts import HIST_BINS, ScoresData
from clarify_tui.metrics.model import ProtocolMetrics
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols.cts.metrics import session_score
from clarify_tui.results import CTSResult


def restore_histogram(members: Iterable[ScoredSession], bins: int = HIST_BINS) -> list[int]:
    """How many scored CTS sessions fall in each of `bins` equal restore-score bins (0-100)."""
    counts = [0] * bins
    for s in members:
        score = session_score(s.result) if s.scorable and isinstance(s.result, CTSResult) else None
        if score is not None:
            counts[min(int(score * bins // 100), bins - 1)] += 1  # equal bins over 0-100, the last closed
    return counts


def charts(label: str, metrics: ProtocolMetrics, members: Sequence[ScoredSession], data: ScoresData) -> None:
    data.restore_hist[label] = restore_histogram(members)
