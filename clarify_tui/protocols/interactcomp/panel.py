"""InteractComp's state panel and score card (Rich renderables; the TUI only shows them)."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text

from clarify_tui.models import ActionKind, Task
from clarify_tui.results import AnyResult, EpisodeState, InteractCompResult, InteractCompState
from clarify_tui.state_panel import rounds, verdict


def state_panel(task: Task, state: EpisodeState, proto: InteractCompState, reveal: bool, spoilers: bool) -> Group:
    """Rounds, asks and searches, the answer with its confidence; right or wrong once revealed."""
    lines = [
        Text(rounds(state), style="bold"),
        Text(f"asks {proto.asks} · searches {proto.searches}"),
    ]
    if proto.answer is not None:
        conf = proto.confidence
        line = Text("answer: ", style="bold").append(str(proto.answer), style="")
        if conf is not None:
            line.append(f"  (confidence {conf:g})", style="dim")
        lines.append(line)
    if reveal and proto.correct is not None:
        lines.append(Text("correct" if proto.correct else "wrong", style="bold green" if proto.correct else "bold red"))
    return Group(*lines)


def score_card(result: AnyResult) -> Text:
    text = verdict(result)
    if isinstance(result, InteractCompResult):
        text.append(f"  · rounds {result.rounds} · asks {result.asks}", style="")
    return text


def refusal(kind: ActionKind, phase: str) -> str | None:
    """Why a visit or a clarify is never allowed: InteractComp has neither."""
    if kind in (ActionKind.visit, ActionKind.clarify):
        return f"InteractComp has no {kind.value}: search (s), ask (k) or answer (enter)."
    return None
