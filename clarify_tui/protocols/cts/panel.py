"""CTS's state panel and score card (Rich renderables; the TUI only shows them)."""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text

from clarify_tui.models import ActionKind, Task
from clarify_tui.results import AnyResult, CTSResult, CTSState, EpisodeState
from clarify_tui.state_panel import rounds

COVERAGE_STYLE = {"full": "green", "partial": "yellow", "none": "red"}


def state_panel(task: Task, state: EpisodeState, proto: CTSState, reveal: bool, spoilers: bool) -> Group:
    """The phase, each question and its answer, the rewritten query; the nuggets once revealed."""
    lines: list[Any] = [
        Text(f"phase {proto.phase} · {rounds(state)}", style="bold"),
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
            table.add_row(texts.get(row.id, row.id), str(row.weight), Text(cov, style=COVERAGE_STYLE.get(cov, "")))
        lines.append(table)
    if reveal and proto.restore_score is not None:
        lines.append(Text(f"restore score {proto.restore_score:.1f} / 100", style="bold"))
    return Group(*lines)


def score_card(result: AnyResult) -> Text:
    score = result.restore_score if isinstance(result, CTSResult) else None
    return Text(f"restore score {score or 0.0:.1f} / 100", style="bold")


def refusal(kind: ActionKind, phase: str) -> str | None:
    """Why an action is not allowed now: the clarification comes first, and only once."""
    if kind != ActionKind.clarify and phase == "clarify":
        return f"CTS: clarify first (c); {kind.value} comes after the clarification."
    if kind == ActionKind.clarify:
        return "CTS: the clarification is over; search (s) or answer (enter)."
    return None
