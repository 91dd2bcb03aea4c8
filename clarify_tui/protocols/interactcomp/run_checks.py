"""What InteractComp's reference harness refuses to run, refused before `run` or a sweep
plays anything (its spec's `check_config`), naming our flags."""

from __future__ import annotations

from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig


def check_config(config: EpisodeConfig) -> None:
    """run_benchmark.py:167-172: forced asks need rounds left to answer in."""
    if config.interactcomp_mode != "forced_ask":
        return
    rounds = config.max_rounds or 10
    if rounds < config.forced_asks + 1:
        raise UsageError(
            f"--mode forced_ask needs --max-rounds >= --forced-asks + 1 ({config.forced_asks} asks + 1 answer "
            f"round); got --max-rounds {rounds}{'' if config.max_rounds else ' (the default)'} "
            f"with --forced-asks {config.forced_asks}"
        )
