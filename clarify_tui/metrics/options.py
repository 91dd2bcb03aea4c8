"""The `score` options a protocol's scorer may read (protocols/base.py `Scorer`)."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass

from clarify_tui.metrics.profiles import KSetting

DEFAULT_BOOTSTRAP = 10_000  # bootstrap resamples (CTS's delta_vs_orig)


@dataclass(frozen=True)
class ScoreOptions:
    """The `score` options a protocol's scorer may read (each reads its own)."""

    profile_k: KSetting = None  # DiscoBench: the profiles' K (metrics/profiles.py)
    profile_subset: str = "common"  # DiscoBench: "common" or "all"
    bootstrap: int = DEFAULT_BOOTSTRAP  # CTS: bootstrap resamples of delta_vs_orig
    seed: int = 0
    executor: Executor | None = None
