"""DiscoBench's state panel and score card (Rich renderables; the TUI only shows them)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from clarify_tui.models import Task
from clarify_tui.plural import plural
from clarify_tui.results import AnyResult, DiscoBenchResult, DiscoBenchState, EpisodeState
from clarify_tui.state_panel import STATUS_STYLE, rounds, tick, verdict


def state_panel(task: Task, state: EpisodeState, proto: DiscoBenchState, reveal: bool, spoilers: bool) -> Group:
    """Rounds and, once revealed, each checkpoint's status, the clues released and the answer."""
    lines: list[Any] = [Text(rounds(state), style="bold")]
    cps = proto.checkpoints
    if not reveal:
        lines.append(
            Text(f"{plural(len(cps), 'checkpoint')} — details hidden until the session ends.", style="dim italic")
        )
        return Group(*lines)
    table = Table(box=None, pad_edge=False, expand=True, show_edge=False)
    for col in ("#", "type", "status", "asked", "right"):
        table.add_column(col, no_wrap=True)
    clues = []
    for cp in cps:
        kind = cp.type
        if kind == "ambi":
            kind += "/" + (cp.ambiguity_type or "?") if spoilers else "/?"
        status = cp.status
        table.add_row(
            str(cp.index + 1),
            kind,
            Text(status, style=STATUS_STYLE.get(status, "")),
            tick(cp.asked),
            tick(cp.asked_right) if cp.asked else Text("–", style="dim"),
        )
        if cp.clue_released and task.discobench:
            clue = task.discobench.checkpoints[cp.index].clue
            clues.append(Text(f"clue {cp.index + 1}: {clue}", style="magenta"))
    lines.append(table)
    lines += clues
    if proto.answer is not None:
        lines.append(Text("answer: ", style="bold").append(str(proto.answer), style=""))
    if proto.correct is not None:
        lines.append(Text("correct" if proto.correct else "wrong", style="bold green" if proto.correct else "bold red"))
    return Group(*lines)


def score_card(result: AnyResult) -> Text:
    text = verdict(result)
    if isinstance(result, DiscoBenchResult):
        cps = result.checkpoints
        passed = sum(1 for c in cps if c.status == "passed")
        text.append(f"  · checkpoints passed {passed}/{len(cps)}", style="")
    return text
