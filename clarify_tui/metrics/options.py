"""The `score` options a protocol's scorer may read (protocols/base.py `Scorer`)."""

from __future__ import annotations

from concurrent.futures import Executor
from dataclasses import dataclass
from typing import TypedDict

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


class ScoreKeywords(TypedDict, total=False):
    """`ScoreOptions` as keywords: what `score`, `score_sessions` and `score_groups` take and
    hand on unchanged (`**options: Unpack[ScoreKeywords]`), so an option is added here once."""

    profile_k: KSetting
    profile_subset: str
    bootstrap: int
    seed: int
    executor: Executor | None
