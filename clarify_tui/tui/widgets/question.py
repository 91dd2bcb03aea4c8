"""The left region's top: the question exactly as the agent sees it (from the engine's
AgentView), with the protocol and task metadata.

The panel scrolls (a scroll container around the text: a Static alone keeps its text in
place however far it is scrolled, issue 30), and the view's notice ("You are on
checkpoint 2 of 3 …", "you must answer now") is pinned under the text, so it stays on
screen however the question is cut or scrolled."""

from __future__ import annotations

from rich.console import Group
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Task


def render_question(task: Task, view: AgentView, *, compact: bool = False) -> Group:
    """The panel's scrolling text (the notice is pinned apart: `render_notice`); `compact`
    (narrow terminals) leaves out the metadata lines, which then go into the border title
    (`title_for`), so the question itself comes first."""
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


def render_notice(view: AgentView) -> Text | None:
    """The rule the agent must know now (the checkpoint it is on, its last round), or None."""
    return Text("⚑ " + view.notice, style="yellow") if view.notice else None


def _question_lines(view: AgentView, label: bool = False) -> list[Text]:
    lines = [Text("Rewritten query (search phase)", style="bold underline")] if label else []
    lines.append(Text(view.question))
    lines.append(Text())
    status = Text()
    status.append(f"phase {view.phase} · rounds {view.rounds_used}/{view.max_rounds}", style="dim")
    if view.allowed:
        status.append("\nallowed: " + ", ".join(k.value for k in view.allowed), style="dim")
    lines.append(status)
    if view.context:
        lines.append(Text("\nContext (full_with_context ablation)", style="bold"))
        lines.append(Text(view.context))
    return lines


def title_for(task: Task, compact: bool) -> str:
    if not compact:
        return "Question"
    return " · ".join(bit for bit in ("Question", task.protocol.value, task.id, task.domain, task.language) if bit)


class QuestionPanel(VerticalScroll, can_focus=False):
    """The agent's view of the task; refreshed from `Episode.view()` after each step.
    When its text is taller than the panel, the bottom border says how to scroll
    (ctrl+↑/↓ from anywhere, the wheel); the notice stays pinned at the bottom."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.add_class("question-panel")
        self._shown: tuple[Task, AgentView] | None = None
        self._compact = False
        self._hint = ""

    def compose(self) -> ComposeResult:
        yield Static(classes="question-text")
        notice = Static(classes="question-notice")
        notice.display = False
        yield notice

    @property
    def compact(self) -> bool:
        return self.is_mounted and self.screen.has_class("-narrow")

    @property
    def text(self) -> Static:
        return self.query_one(".question-text", Static)

    @property
    def notice(self) -> Static:
        return self.query_one(".question-notice", Static)

    def scroll_text(self, lines: int) -> None:
        """Scroll the question's text by `lines` (the notice stays where it is)."""
        self.scroll_relative(y=lines, animate=False, immediate=True)

    @property
    def window(self) -> int:
        """How many lines of the text are on screen (the pinned notice takes its own)."""
        return self.scrollable_content_region.height - (self.notice.outer_size.height if self.notice.display else 0)

    def scroll_page(self, direction: int) -> None:
        """ctrl+↓ / ctrl+↑: one window of text less a line, so a line stays for context
        (the window is the panel less the pinned notice)."""
        self.scroll_text(direction * max(1, self.window - 1))

    def show(self, task: Task, view: AgentView) -> None:
        self._shown = (task, view)
        self._compact = self.compact
        self.border_title = title_for(task, self._compact)
        self.text.update(render_question(task, view, compact=self._compact))
        notice = render_notice(view)
        self.notice.display = notice is not None
        if notice is not None:
            self.notice.update(notice)
        self.call_after_refresh(self.update_hint)

    def refresh_compact(self) -> None:
        """After a resize: re-render if the screen crossed the narrow breakpoint."""
        if self._shown is not None and self.compact != self._compact:
            self.show(*self._shown)
        else:
            self.update_hint()

    def update_hint(self) -> None:
        if not self.scrollable_content_region.height:
            return
        hidden = self.max_scroll_y
        if hidden <= 0:
            hint = ""
        elif self.scroll_y >= hidden:
            hint = "end · ctrl+↑ scrolls up"
        else:
            hint = "more ↓ ctrl+↓ or wheel"
        if hint != self._hint:  # Textual repaints the panel on every assignment, same text or not
            self._hint = hint
            self.border_subtitle = hint

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_hint)

    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self.update_hint()
