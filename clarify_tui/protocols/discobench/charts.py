"""DiscoBench's series in the TUI's scores charts: each profile's share and pass rate."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clarify_tui.metrics.charts import ScoresData
from clarify_tui.metrics.profiles import PROFILES
from clarify_tui.metrics.records import ScoredSession


def charts(label: str, metrics: dict[str, Any], members: Sequence[ScoredSession], data: ScoresData) -> None:
    profiles = metrics.get("profiles") or {}
    data.profile_share[label] = [(profiles.get(p) or {}).get("share") for p in PROFILES]
    data.profile_pass[label] = [(profiles.get(p) or {}).get("pass_rate") for p in PROFILES]
