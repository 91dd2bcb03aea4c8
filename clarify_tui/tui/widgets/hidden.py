"""The left region's bottom: what the agent must not see (context, clues, intent query,
gold). Its text is only ever put into the widget when it may be shown: while locked or
hidden the widget holds a placeholder, so nothing hidden is rendered anywhere."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.widgets import Static

from clarify_tui.models import Task
from clarify_tui.tui import glyphs


def render_hidden(task: Task) -> Group:
    out: list[Text] = []

    def section(title: str, body: str, style: str = "") -> None:
        out.append(Text(title, style="bold underline"))
        out.append(Text(body, style=style))

    if task.answer:
        section("Gold answer", " / ".join(task.answer.forms()), "bold green")
    if task.interactcomp:
        section("Context", task.interactcomp.context)
        if task.interactcomp.distractors:
            section("Distractors", ", ".join(task.interactcomp.distractors), "dim")
    if task.discobench:
        section("Original question", task.discobench.original_question, "dim")
        for i, cp in enumerate(task.discobench.checkpoints, 1):
            head = f"Checkpoint {i} · {cp.type}" + (f" / {cp.ambiguity_type}" if cp.ambiguity_type else "")
            text = f"target: {' / '.join(cp.target_forms())}"
            if cp.distractors:
                text += f"\ndistractors: {', '.join(cp.distractors)}"
            if cp.ambiguity_logic:
                text += f"\nwhy ambiguous: {cp.ambiguity_logic}"
            if cp.clue:
                text += f"\nclue: {cp.clue}"
            section(head, text)
    if task.cts:
        section("Intent query", task.cts.fused_query, "bold")
        if task.cts.intent_slots:
            section("Intent slots", "\n".join(f"{k}: {v}" for k, v in task.cts.intent_slots.items()))
        section("Gold nuggets", "\n".join(f"[{n.id} ×{n.weight}] {n.text}" for n in task.cts.nuggets))
    return Group(*out)


class HiddenPanel(Static):
    """Three states: locked (human agent, session running), hidden (spoiler toggle off), shown."""

    _shown_as: tuple | None = None

    def show_state(self, task: Task, *, locked: bool, shown: bool) -> None:
        if self._shown_as == (task.id, locked, shown):
            return  # nothing changed: skip re-rendering on every step
        self._shown_as = (task.id, locked, shown)
        self.set_class(locked, "locked")
        if locked:
            self.border_title = f"Hidden {glyphs.icon('locked')}"
            self.update(Text("Locked until the session ends.", style="dim italic"))
        elif not shown:
            self.border_title = "Hidden (spoiler)"
            self.update(Text("Press h to reveal context, clues, intent and gold.", style="dim italic"))
        else:
            self.border_title = "Hidden information"
            self.update(render_hidden(task))
