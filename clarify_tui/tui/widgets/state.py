"""The right region: protocol state, rendered from the engine's state snapshot.

The input is `Episode.state()` live or `Step.state` when replaying a stored session (the
same dict), so this never recomputes anything the engine decides.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from clarify_tui.models import Protocol, Task

STATUS_STYLE = {
    "pending": "dim", "current": "bold yellow", "passed": "bold green",
    "failed": "bold red", "unreached": "dim strike",
}
COVERAGE_STYLE = {"full": "green", "partial": "yellow", "none": "red"}


def _tick(value: bool | None) -> Text:
    if value is None:
        return Text("–", style="dim")
    return Text("✓", style="green") if value else Text("✗", style="red")


def render_interactcomp(state: dict, proto: dict, reveal: bool) -> Group:
    lines = [
        Text(f"rounds {state.get('rounds_used', 0)} / {state.get('max_rounds', 0)}", style="bold"),
        Text(f"asks {proto.get('asks', 0)} · searches {proto.get('searches', 0)}"),
    ]
    if proto.get("answer") is not None:
        conf = proto.get("confidence")
        line = Text("answer: ", style="bold").append(str(proto["answer"]), style="")
        if conf is not None:
            line.append(f"  (confidence {conf:g})", style="dim")
        lines.append(line)
    if reveal and proto.get("correct") is not None:
        lines.append(Text("correct" if proto["correct"] else "wrong", style="bold green" if proto["correct"] else "bold red"))
    return Group(*lines)


def render_discobench(task: Task, state: dict, proto: dict, reveal: bool, spoilers: bool) -> Group:
    lines: list[Any] = [Text(f"rounds {state.get('rounds_used', 0)} / {state.get('max_rounds', 0)}", style="bold")]
    cps = proto.get("checkpoints", [])
    if not reveal:
        lines.append(Text(f"{len(cps)} checkpoints — details hidden until the session ends.", style="dim italic"))
        return Group(*lines)
    table = Table(box=None, pad_edge=False, expand=True, show_edge=False)
    for col in ("#", "type", "status", "asked", "right"):
        table.add_column(col, no_wrap=True)
    clues = []
    for cp in cps:
        kind = cp.get("type", "?")
        if kind == "ambi":
            kind += "/" + (cp.get("ambiguity_type") or "?") if spoilers else "/?"
        status = cp.get("status", "pending")
        table.add_row(
            str(cp.get("index", 0) + 1), kind, Text(status, style=STATUS_STYLE.get(status, "")),
            _tick(cp.get("asked")), _tick(cp.get("asked_right")) if cp.get("asked") else Text("–", style="dim"),
        )
        if cp.get("clue_released") and task.discobench:
            clue = task.discobench.checkpoints[cp["index"]].clue
            clues.append(Text(f"clue {cp['index'] + 1}: {clue}", style="magenta"))
    lines.append(table)
    lines += clues
    if proto.get("answer") is not None:
        lines.append(Text("answer: ", style="bold").append(str(proto["answer"]), style=""))
    if proto.get("correct") is not None:
        lines.append(Text("correct" if proto["correct"] else "wrong", style="bold green" if proto["correct"] else "bold red"))
    return Group(*lines)


def render_cts(task: Task, state: dict, proto: dict, reveal: bool) -> Group:
    lines: list[Any] = [
        Text(f"phase {proto.get('phase', 'clarify')} · rounds {state.get('rounds_used', 0)} / {state.get('max_rounds', 0)}",
             style="bold"),
    ]
    questions, answers = proto.get("questions", []), proto.get("answers", [])
    if proto.get("orig"):
        lines.append(Text("no clarification (orig baseline)", style="dim"))
    for i, q in enumerate(questions):
        a = answers[i] if i < len(answers) else "…"
        unknown = a.strip().casefold() == "unknown"
        lines.append(Text(f"Q{i + 1}: {q}"))
        lines.append(Text(f"A{i + 1}: {a}" + ("  (unknown)" if unknown else ""), style="yellow" if unknown else "cyan"))
    if proto.get("rewritten"):
        lines.append(Text("rewritten query:", style="bold"))
        lines.append(Text(proto["rewritten"]))
    if proto.get("answer") is not None:
        lines.append(Text("answer given", style="bold"))
    coverage = proto.get("coverage") or []
    if coverage and reveal:
        texts = {n.id: n.text for n in task.cts.nuggets} if task.cts else {}
        table = Table(box=None, pad_edge=False, expand=True, show_edge=False, title="nugget coverage")
        table.add_column("nugget")
        table.add_column("w", no_wrap=True)
        table.add_column("coverage", no_wrap=True)
        for row in coverage:
            cov = row.get("coverage", "none")
            table.add_row(texts.get(row["id"], row["id"]), str(row.get("weight", "")),
                          Text(cov, style=COVERAGE_STYLE.get(cov, "")))
        lines.append(table)
    if reveal and proto.get("restore_score") is not None:
        lines.append(Text(f"restore score {proto['restore_score']:.1f} / 100", style="bold"))
    return Group(*lines)


def render_state(task: Task, state: dict, *, reveal: bool, spoilers: bool):
    proto = state.get("protocol", {})
    if task.protocol == Protocol.interactcomp:
        return render_interactcomp(state, proto, reveal)
    if task.protocol == Protocol.discobench:
        return render_discobench(task, state, proto, reveal, spoilers)
    return render_cts(task, state, proto, reveal)


class StatePanel(Static):
    """Checkpoints / rounds / Q&A pairs of the session; see `render_state`."""

    def show(self, task: Task, state: dict, *, reveal: bool, spoilers: bool) -> None:
        self.update(render_state(task, state, reveal=reveal, spoilers=spoilers))


def score_card(task: Task, result: dict, status: str) -> Text:
    """The one-line verdict shown when a session ends."""
    if status != "completed":
        return Text(f"session {status}", style="bold red")
    if task.protocol == Protocol.cts:
        return Text(f"restore score {result.get('restore_score', 0):.1f} / 100", style="bold")
    ok = result.get("correct")
    text = Text("correct ✓" if ok else "wrong ✗", style="bold green" if ok else "bold red")
    if task.protocol == Protocol.discobench:
        cps = result.get("checkpoints", [])
        passed = sum(1 for c in cps if c.get("status") == "passed")
        text.append(f"  · checkpoints passed {passed}/{len(cps)}", style="")
    else:
        text.append(f"  · rounds {result.get('rounds', 0)} · asks {result.get('asks', 0)}", style="")
    return text
