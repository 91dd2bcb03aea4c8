"""The left region's top: the question exactly as the agent sees it (from the engine's
AgentView), with the protocol and task metadata."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.strip import Strip
from textual.visual import Visual
from textual.widgets import Static

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Task


def render_question(task: Task, view: AgentView, *, compact: bool = False) -> Group:
    """The full panel; `compact` (narrow terminals) leaves out the metadata lines, which
    then go into the border title (`title_for`), so the question itself comes first."""
    if compact:
        return Group(*_question_lines(view, label=view.phase == "search"))
    meta = Text()
    meta.append(f"{task.protocol.value}", style="bold reverse")
    meta.append(f"  {task.id}", style="bold")
    if task.domain:
        meta.append(f"  · {task.domain}", style="dim")
    meta.append(f"  · {task.language}", style="dim")
    lines = [meta, Text()]
    label = "Question" if view.phase != "search" else "Rewritten query (search phase)"
    lines.append(Text(label, style="bold underline"))
    lines += _question_lines(view)
    return Group(*lines)


def _question_lines(view: AgentView, label: bool = False) -> list[Text]:
    lines = [Text("Rewritten query (search phase)", style="bold underline")] if label else []
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
    return lines


def title_for(task: Task, compact: bool) -> str:
    if not compact:
        return "Question"
    return " · ".join(bit for bit in ("Question", task.protocol.value, task.id, task.domain, task.language) if bit)


class QuestionPanel(Static):
    """The agent's view of the task; refreshed from `Episode.view()` after each step.
    When its content is taller than the panel, the bottom border says how to scroll."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_class("question-panel")
        self._shown: tuple[Task, AgentView] | None = None
        self._compact = False
        self._hint = ""
        self._all_lines: tuple[tuple, Visual, list[Strip]] | None = None  # (key, content, lines): render_line
        self.top = 0
        """The first line of the text shown (ctrl+↓ / the wheel move it)."""

    @property
    def compact(self) -> bool:
        return self.is_mounted and self.screen.has_class("-narrow")

    def scroll_text(self, lines: int) -> None:
        """Scroll the question's text by `lines` (within its hidden lines). Textual scrolls
        only widgets with children or a layout: on this Static ctrl+↓ and the wheel moved
        `scroll_y` (clamped to a virtual size that was stale after a relayout) and the panel
        still drew its first lines. So the panel keeps its own first line, `top`, and
        `render_line` draws from it."""
        top = max(0, min(self.hidden_lines(), self.top + lines))
        if top != self.top:
            self.top = top
            self.refresh()
        self.update_hint()

    def render_line(self, y: int) -> Strip:
        """Line `y` of the view: the text's line `top + y` (all of it drawn once per
        width, style and content)."""
        width, visual = self.size.width, self.visual
        key = (width, self.visual_style)
        cached = self._all_lines
        if cached is None or cached[0] != key or cached[1] is not visual:
            cached = self._all_lines = (key, visual, Visual.to_strips(self, visual, width, None, self.visual_style))
        lines = cached[2]
        index = self.top + y
        return lines[index] if index < len(lines) else Strip.blank(width, self.visual_style.rich_style)

    def hidden_lines(self) -> int:
        """How many lines of the text the panel cannot show at once (0: it fits)."""
        region = self.content_region
        if not region.height:
            return 0
        return max(0, self.get_content_height(region.size, region.size, region.width) - region.height)

    def on_mouse_scroll_down(self, event) -> None:
        self.scroll_text(1)
        event.stop()

    def on_mouse_scroll_up(self, event) -> None:
        self.scroll_text(-1)
        event.stop()

    def show(self, task: Task, view: AgentView) -> None:
        self._shown = (task, view)
        self._compact = self.compact
        self.border_title = title_for(task, self._compact)
        self.update(render_question(task, view, compact=self._compact))
        self.call_after_refresh(self.update_hint)

    def refresh_compact(self) -> None:
        """After a resize: re-render if the screen crossed the narrow breakpoint."""
        if self._shown is not None and self.compact != self._compact:
            self.show(*self._shown)
        else:
            self.update_hint()

    def update_hint(self) -> None:
        region = self.content_region
        if not region.height:
            return
        hidden = self.get_content_height(region.size, region.size, region.width) - region.height
        if self.top > max(0, hidden):  # the text got shorter, or the panel taller
            self.top = max(0, hidden)
            self.refresh()
        if hidden <= 0:
            hint = ""
        elif self.top >= hidden:
            hint = "end · ctrl+↑ scrolls up"
        else:
            hint = "more ↓ ctrl+↓ or wheel"
        if hint != self._hint:  # Textual repaints the panel on every assignment, same text or not
            self._hint = hint
            self.border_subtitle = hint

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_hint)
