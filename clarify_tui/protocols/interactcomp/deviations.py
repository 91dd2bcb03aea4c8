"""How an InteractComp run departs from its paper and reference harness
(clarify_tui/deviations.py asks these)."""

from __future__ import annotations

from collections.abc import Iterable

from clarify_tui.deviations import PaperSetting, Setting
from clarify_tui.protocols.interactcomp.compat import compat_deviations

PAPER = PaperSetting(
    user="GPT-4o at T=1.0 (paper 003 A.3, line 713)",
    judge="GPT-4o at T=0.0 as the grader (paper 003 A.4, line 745)",
    search=("serper", "Google's top 5 results (the reference harness, through Serper)"),
    rounds=(10, "the reference harness's exp_config.yaml"),
    grader_sampling=True,  # A.4: the grader at T=0.0
)


def action_parsing(s: Setting) -> Iterable[str]:
    if s.config.actions == "lenient":
        yield "action parsing: lenient (ours), the reference harness accepts only its exact action format"


def reply_readings(s: Setting) -> Iterable[str]:
    """`--compat strict`: our readings of replies, not the reference's."""
    return compat_deviations(s.config.compat)


SOURCES = (action_parsing, reply_readings)
