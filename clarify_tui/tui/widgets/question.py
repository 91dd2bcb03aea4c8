"""The left region's top: the question exactly as the agent sees it (from the engine's
AgentView), with the protocol and task metadata."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from clarify_tui.engine.view import AgentView
from clarify_tui.models import Task


def render_question(task: Task, view: AgentView) -> Group:
    meta = Text()
    meta.append(f"{task.protocol.value}", style="bold reverse")
    meta.append(f"  {task.id}", style="bold")
    if task.domain:
        meta.append(f"  · {task.domain}", style="dim")
    meta.append(f"  · {task.language}", style="dim")
    lines = [meta, Text()]
    label = "Question" if view.phase != "search" else "Rewritten query (search phase)"
    lines.append(Text(label, style="bold underline"))
    lines.append(Text(view.question))
    lines.append(Text())
    status = Text()
    status.append(f"phase {view.phase} · rounds {view.rounds_used}/{view.max_rounds}", style="dim")
    if view.allowed:
        status.append("\nallowed: " + ", ".join(k.value for k in view.allowed), style="dim")
    lines.append(status)
    if view.notice:
        lines.append(Text("⚑ " + view.notice, style="yellow"))
    if view.context:
        lines.append(Text("\nContext (full_with_context ablation)", style="bold"))
        lines.append(Text(view.context))
    return Group(*lines)


class QuestionPanel(Static):
    """The agent's view of the task; refreshed from `Episode.view()` after each step."""

    def show(self, task: Task, view: AgentView) -> None:
        self.update(render_question(task, view))
