"""DiscoBench's series in the TUI's scores charts: each profile's share and pass rate."""

from __future__ import annotations

from collections.abc import Sequence

from clarify_tui.metrics.charts import ScoresData
from clarify_tui.metrics.model import ProtocolMetrics
from clarify_tui.metrics.profiles import PROFILES
from clarify_tui.metrics.records import ScoredSession
from clarify_tui.protocols.discobench.metric_model import DiscoBenchMetrics


def charts(label: str, metrics: ProtocolMetrics, members: Sequence[ScoredSession], data: ScoresData) -> None:
    profiles = metrics.profiles if isinstance(metrics, DiscoBenchMetrics) else {}
    data.profile_share[label] = [p.share if (p := profiles.get(name)) else None for name in PROFILES]
    data.profile_pass[label] = [p.pass_rate if (p := profiles.get(name)) else None for name in PROFILES]
