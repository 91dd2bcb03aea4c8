"""What makes a run's numbers differ from the paper's protocol, in plain words.

Defaults follow the papers (docs/paper-readings.md); anything else is a *deviation*: an
offline stand-in for a role the paper filled with a model or the web (`rule` user,
`rule` judge, `local` search) or a non-paper option. `run` prints them at its start and
records them on the run (`runs.deviations`); `score` carries them on every group as
`"comparable"` and `"deviations"`, the table footnotes them and the TUI's scores screen
shows them. The bundled demo is exempt: its offline stand-ins are the point of it.

A source is a function from the run's `Setting` to its deviation lines; adding one is one
line in `SOURCES` (e.g. InteractComp's `--compat`, a provenance check).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from clarify_tui.models import EpisodeConfig
from clarify_tui.paths import demo_dir


@dataclass(frozen=True)
class Setting:
    """What a run (or a session) was played with: the specs as given and its protocol config."""

    benchmark: str
    agent: str = ""
    user: str = "rule"
    search: str = "local"
    judge: str = "rule"
    config: EpisodeConfig = field(default_factory=EpisodeConfig)


def _kind(spec: str) -> str:
    return (spec or "").split(":")[0].split("/")[0]


# What the papers used for each role (paper line in docs/paper-readings.md, "Deviations").
PAPER_USER = {
    "interactcomp": "GPT-4o at T=1.0 (paper 003 A.3, line 713)",
    "discobench": "an LLM user simulator that judges the ask and releases the checkpoint's clue (paper 000 §3)",
    "cts": "ERNIE-4.5-Turbo at T=0 as the User Answerer and Rewriter (paper 001 line 223)",
}
PAPER_JUDGE = {
    "interactcomp": "GPT-4o at T=0.0 as the grader (paper 003 A.4, line 745)",
    "discobench": "an LLM answer-equivalence judge (paper 000 B.1, line 293)",
    "cts": "ERNIE-4.5-Turbo as the nugget judge (paper 001 Table 1, line 205)",
}
PAPER_SEARCH = {
    "interactcomp": ("serper", "Google's top 5 results (the reference harness, through Serper)"),
    "discobench": ("tavily", "the web through Tavily (paper 000 appendix H, line 457)"),
    "cts": (None, "the web, from WebDancer's deep search (paper 001 line 113)"),
}


def stand_in_user(s: Setting) -> Iterable[str]:
    if _kind(s.user) == "rule" and s.benchmark in PAPER_USER:
        yield f"user simulator: rule (offline stand-in), the paper used {PAPER_USER[s.benchmark]}"


def stand_in_judge(s: Setting) -> Iterable[str]:
    if _kind(s.judge) == "rule" and s.benchmark in PAPER_JUDGE:
        yield f"judge: rule (offline stand-in), the paper used {PAPER_JUDGE[s.benchmark]}"


def stand_in_search(s: Setting) -> Iterable[str]:
    if s.benchmark not in PAPER_SEARCH:
        return
    paper, words = PAPER_SEARCH[s.benchmark]
    kind = _kind(s.search)
    if kind == "local" or (paper is not None and kind not in (paper, "stored", "")):
        what = "local (offline corpus)" if kind == "local" else kind
        yield f"search: {what}, the paper searched {words}"


def checkpoint_reading(s: Setting) -> Iterable[str]:
    if s.benchmark != "discobench":
        return
    if s.config.checkpoints == "strict":
        yield ("checkpoints: strict (a wrong intermediate answer ends the task), the paper moves on to the next "
               "checkpoint without telling the agent (paper 000 appendix I case 1, line 477)")
    elif s.config.checkpoints == "trajectory":
        yield ("checkpoints: trajectory (outcomes inferred from a single-answer trajectory), the paper's agent "
               "answers each checkpoint (paper 000 §3, lines 79-83)")


def action_parsing(s: Setting) -> Iterable[str]:
    if s.benchmark == "interactcomp" and s.config.actions == "lenient":
        yield "action parsing: lenient (ours), the reference harness accepts only its exact action format"


def unfixed_deep_search(s: Setting) -> Iterable[str]:
    if s.benchmark == "cts" and s.config.k != 0 and not s.config.deep_search:
        yield ("deep search: the agent under test, the paper kept the deep-search backend fixed while varying the "
               "clarifier (paper 001 line 203)")


def reply_readings(s: Setting) -> Iterable[str]:
    """InteractComp's `--compat strict`: our readings of replies, not the reference's."""
    from clarify_tui.compat import compat_deviations

    return compat_deviations(s.config.compat) if s.benchmark == "interactcomp" else ()


SOURCES: tuple[Callable[[Setting], Iterable[str]], ...] = (
    stand_in_user,
    stand_in_judge,
    stand_in_search,
    checkpoint_reading,
    action_parsing,
    unfixed_deep_search,
    reply_readings,
)


def deviations(setting: Setting, *, demo: bool = False) -> list[str]:
    """Every way `setting` departs from its paper's protocol; none on the bundled demo."""
    if demo:
        return []
    return [line for source in SOURCES for line in source(setting)]


def is_demo_dataset(dataset: str | Path | None) -> bool:
    """`--dataset demo` or a file of the bundled demo folder."""
    if dataset is None:
        return False
    if str(dataset) == "demo":
        return True
    try:
        return Path(dataset).resolve().is_relative_to(demo_dir().resolve())
    except (OSError, ValueError):
        return False


def banner(lines: list[str]) -> str | None:
    """The line `run` prints at its start (None: nothing to say)."""
    if not lines:
        return None
    return "not comparable with the paper: " + "; ".join(lines)
