"""The state panel's shared pieces: what every protocol's panel shows the same way.

A protocol's panel (`protocols/<name>/panel.py`: its spec's `state_panel` and
`score_card`) is Rich renderables built from the engine's `EpisodeState`, so the core
draws it without Textual; the TUI's `widgets/state.py` only shows it. A protocol that
brings no panel gets `generic_panel`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.text import Text

from clarify_tui.models import Task
from clarify_tui.results import AnyResult, EpisodeState

STATUS_STYLE = {
    "pending": "dim",
    "current": "bold yellow",
    "passed": "bold green",
    "failed": "bold red",
    "unreached": "dim strike",
}


def tick(value: bool | None) -> Text:
    if value is None:
        return Text("–", style="dim")
    return Text("✓", style="green") if value else Text("✗", style="red")


def rounds(state: EpisodeState) -> str:
    return f"rounds {state.rounds_used} / {state.max_rounds}"


def verdict(result: AnyResult) -> Text:
    """`correct ✓` or `wrong ✗`: a right-or-wrong answer's score card."""
    ok = result.correct
    return Text("correct ✓" if ok else "wrong ✗", style="bold green" if ok else "bold red")


def generic_panel(task: Task, state: EpisodeState, proto: Any, reveal: bool, spoilers: bool) -> Group:
    """Rounds, and the answer once revealed: for a protocol with no panel of its own."""
    lines: list[Any] = [Text(rounds(state), style="bold")]
    answer = getattr(proto, "answer", None)
    if answer is not None:
        lines.append(Text("answer: ", style="bold").append(str(answer), style=""))
    correct = getattr(proto, "correct", None)
    if reveal and correct is not None:
        lines.append(Text("correct" if correct else "wrong", style="bold green" if correct else "bold red"))
    return Group(*lines)
