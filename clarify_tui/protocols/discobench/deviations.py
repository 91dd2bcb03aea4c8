"""How a DiscoBench run departs from its paper (clarify_tui/deviations.py asks these)."""

from __future__ import annotations

from collections.abc import Iterable

from clarify_tui.deviations import PaperSetting, Setting

PAPER = PaperSetting(
    user="an LLM user simulator that judges the ask and releases the checkpoint's clue (paper 000 §3)",
    judge="an LLM answer-equivalence judge (paper 000 B.1, line 293)",
    search=("tavily", "the web through Tavily (paper 000 appendix H, line 457)"),
    rounds=(20, "our default; the paper states no limit"),
)


def checkpoint_reading(s: Setting) -> Iterable[str]:
    if s.config.checkpoints == "strict":
        yield (
            "checkpoints: strict (a wrong intermediate answer ends the task), the paper moves on to the next "
            "checkpoint without telling the agent (paper 000 appendix I case 1, line 477)"
        )
    elif s.config.checkpoints == "trajectory":
        yield (
            "checkpoints: trajectory (outcomes inferred from a single-answer trajectory), the paper's agent "
            "answers each checkpoint (paper 000 §3, lines 79-83)"
        )


SOURCES = (checkpoint_reading,)
