"""The right region: protocol state, rendered from the engine's state snapshot.

The input is `Episode.state()` live or `Step.state` when replaying a stored session (the
same `EpisodeState`), so this never recomputes anything the engine decides.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from clarify_tui.models import Task
from clarify_tui.plural import plural
from clarify_tui.results import (
    STATE_MODELS,
    AnyResult,
    CTSResult,
    CTSState,
    DiscoBenchResult,
    DiscoBenchState,
    EpisodeState,
    InteractCompResult,
    InteractCompState,
)

STATUS_STYLE = {
    "pending": "dim", "current": "bold yellow", "passed": "bold green",
    "failed": "bold red", "unreached": "dim strike",
}
COVERAGE_STYLE = {"full": "green", "partial": "yellow", "none": "red"}


def _tick(value: bool | None) -> Text:
    if value is None:
        return Text("–", style="dim")
    return Text("✓", style="green") if value else Text("✗", style="red")


def _rounds(state: EpisodeState) -> str:
    return f"rounds {state.rounds_used} / {state.max_rounds}"


def render_interactcomp(state: EpisodeState, proto: InteractCompState, reveal: bool) -> Group:
    lines = [
        Text(_rounds(state), style="bold"),
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


def render_discobench(task: Task, state: EpisodeState, proto: DiscoBenchState, reveal: bool, spoilers: bool) -> Group:
    lines: list[Any] = [Text(_rounds(state), style="bold")]
    cps = proto.checkpoints
    if not reveal:
        lines.append(Text(f"{plural(len(cps), 'checkpoint')} — details hidden until the session ends.", style="dim italic"))
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
            str(cp.index + 1), kind, Text(status, style=STATUS_STYLE.get(status, "")),
            _tick(cp.asked), _tick(cp.asked_right) if cp.asked else Text("–", style="dim"),
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


def render_cts(task: Task, state: EpisodeState, proto: CTSState, reveal: bool) -> Group:
    lines: list[Any] = [
        Text(f"phase {proto.phase} · {_rounds(state)}", style="bold"),
    ]
    questions, answers = proto.questions, proto.answers
    if proto.orig:
        lines.append(Text("no clarification (orig baseline)", style="dim"))
    for i, q in enumerate(questions):
        a = answers[i] if i < len(answers) else "…"
        unknown = a.strip().casefold() == "unknown"
        lines.append(Text(f"Q{i + 1}: {q}"))
        lines.append(Text(f"A{i + 1}: {a}" + ("  (unknown)" if unknown else ""), style="yellow" if unknown else "cyan"))
    if proto.rewritten:
        lines.append(Text("rewritten query:", style="bold"))
        lines.append(Text(proto.rewritten))
    if proto.answer is not None:
        lines.append(Text("answer given", style="bold"))
    coverage = proto.coverage
    if coverage and reveal:
        texts = {n.id: n.text for n in task.cts.nuggets} if task.cts else {}
        table = Table(box=None, pad_edge=False, expand=True, show_edge=False, title="nugget coverage")
        table.add_column("nugget")
        table.add_column("w", no_wrap=True)
        table.add_column("coverage", no_wrap=True)
        for row in coverage:
            cov = row.coverage
            table.add_row(texts.get(row.id, row.id), str(row.weight),
                          Text(cov, style=COVERAGE_STYLE.get(cov, "")))
        lines.append(table)
    if reveal and proto.restore_score is not None:
        lines.append(Text(f"restore score {proto.restore_score:.1f} / 100", style="bold"))
    return Group(*lines)


def render_state(task: Task, state: EpisodeState, *, reveal: bool, spoilers: bool):
    proto = state.protocol if state.protocol is not None else STATE_MODELS[task.protocol.value]()
    if isinstance(proto, InteractCompState):
        return render_interactcomp(state, proto, reveal)
    if isinstance(proto, DiscoBenchState):
        return render_discobench(task, state, proto, reveal, spoilers)
    return render_cts(task, state, proto, reveal)


class StatePanel(Static):
    """Checkpoints / rounds / Q&A pairs of the session; see `render_state`."""

    def show(self, task: Task, state: EpisodeState, *, reveal: bool, spoilers: bool) -> None:
        self.update(render_state(task, state, reveal=reveal, spoilers=spoilers))


def score_card(task: Task, result: AnyResult, status: str) -> Text:
    """The one-line verdict shown when a session ends."""
    if status != "completed":
        return Text(f"session {status}", style="bold red")
    if isinstance(result, CTSResult):
        return Text(f"restore score {result.restore_score or 0.0:.1f} / 100", style="bold")
    ok = result.correct
    text = Text("correct ✓" if ok else "wrong ✗", style="bold green" if ok else "bold red")
    if isinstance(result, DiscoBenchResult):
        cps = result.checkpoints
        passed = sum(1 for c in cps if c.status == "passed")
        text.append(f"  · checkpoints passed {passed}/{len(cps)}", style="")
    elif isinstance(result, InteractCompResult):
        text.append(f"  · rounds {result.rounds} · asks {result.asks}", style="")
    return text
