"""`?`: every key of the workbench, grouped by mode, generated from the bindings.

Each section is the BINDINGS of one screen or play-screen controller (play_controls.py,
play_human.py), so a key added, changed or removed there shows here as it is; the text
is the binding's tooltip (else its description). As Posting's help screen does, nothing
is written twice.

The text (~90 lines of tables) is drawn into lines once per width (`HelpText`): as a Static
it was laid out by Rich four times while the dialog opened (its height measured at each of
three layouts, then drawn), ~12 ms each (benchmarks/bench_tui.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from clarify_tui.tui.speed import Dialog

KEY_NAMES = {"question_mark": "?", "plus": "+", "minus": "-", "slash": "/", "ctrl+up": "ctrl+↑",
             "ctrl+down": "ctrl+↓", "f2": "F2", "f3": "F3"}

PALETTE = Binding("ctrl+p", "command_palette", "Commands", tooltip="command palette: every action usable now")


def key_text(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return " / ".join(KEY_NAMES.get(key, key) for key in binding.key.split(","))


def sections(app_bindings: Iterable[Binding] = ()) -> list[tuple[str, list[Binding]]]:
    """(title, bindings) of every part of the workbench, in the order a person meets them."""
    from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS
    from clarify_tui.tui.screens.picker import PickerScreen
    from clarify_tui.tui.screens.play_controls import QueueControls, StepControls, WatchControls
    from clarify_tui.tui.screens.play_keys import COMMON_BINDINGS
    from clarify_tui.tui.screens.play_human import HumanAgentControls, HumanUserControls, TaskClockControls

    out: dict[str, list[Binding]] = {"Task picker": list(PickerScreen.BINDINGS)}  # type: ignore[arg-type]
    for controls in (WatchControls, StepControls, HumanUserControls, HumanAgentControls, TaskClockControls,
                     QueueControls):
        out.setdefault(controls.TITLE, []).extend(controls.help_bindings())
    out.update(browsing_sections())
    out["Everywhere"] = [PANELS_BINDING, *COMMON_BINDINGS, *QUESTION_BINDINGS, *app_bindings, PALETTE]
    return list(out.items())


def browsing_sections() -> dict[str, list[Binding]]:
    """The sessions list, replay, compare, what-if, scores and ask-vs-guess screens (F2,
    `clarify-tui replay`, `demo`): their keys were nowhere in `?`."""
    from clarify_tui.tui.screens.ask_vs_guess import AskVsGuessScreen
    from clarify_tui.tui.screens.compare import CompareScreen
    from clarify_tui.tui.screens.replay import ReplayScreen
    from clarify_tui.tui.screens.scores import ScoresScreen
    from clarify_tui.tui.screens.sessions import SessionsScreen
    from clarify_tui.tui.screens.whatif import WhatIfScreen

    screens = (("Sessions (F2)", SessionsScreen), ("Replay and fork", ReplayScreen), ("Compare", CompareScreen),
               ("What-if forks (replay i)", WhatIfScreen), ("Scores (F3)", ScoresScreen),
               ("Ask vs guess (demo)", AskVsGuessScreen))
    return {title: [b for b in screen.BINDINGS if isinstance(b, Binding)] for title, screen in screens}


def help_table(app_bindings: Iterable[Binding] = ()) -> Group:
    """Each section's title over a two-column table (key, what it does)."""
    parts: list[Text | Table] = []
    for title, bindings in sections(app_bindings):
        parts.append(Text(title, style="bold underline"))
        table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
        table.add_column(style="bold cyan", no_wrap=True, min_width=12)
        table.add_column()
        for binding in bindings:
            table.add_row(key_text(binding), binding.tooltip or binding.description)
        parts += [table, Text("")]
    return Group(*parts)


class HelpText(Widget):
    """A Rich Group drawn as a Static draws it, into lines once per width and style, a part
    at a time: measuring its height and drawing it use the same lines (the line API), and
    built ahead (tui/speed/ahead.py) its parts are drawn in separate steps (`draw_ahead`)."""

    DEFAULT_CSS = "HelpText { height: auto; }"

    def __init__(self, group: Group, **kwargs) -> None:
        super().__init__(**kwargs)
        self._group = group
        self._parts: dict[int, tuple[object, list[Strip]]] = {}
        self._lines: tuple[object, list[Strip]] | None = None

    def render(self):
        return self._group

    def lines(self, width: int) -> list[Strip]:
        key = (width, self.visual_style, self.text_selection)
        if self._lines is None or self._lines[0] != key:
            if self.text_selection is not None:  # a selection's offsets are the whole text's
                lines = Visual.to_strips(self, visualize(self, self._group), width, None, self.visual_style)
            else:
                lines = [line for i in range(len(self._group.renderables)) for line in self._part(i, width)]
            self._lines = (key, lines)
        return self._lines[1]

    def _part(self, index: int, width: int) -> list[Strip]:
        key = (width, self.visual_style)
        cached = self._parts.get(index)
        if cached is None or cached[0] != key:
            part = visualize(self, Group(self._group.renderables[index]))  # drawn by Rich, as in the whole Group
            cached = self._parts[index] = (key, Visual.to_strips(self, part, width, None, self.visual_style,
                                                                 apply_selection=False))
        return cached[1]

    def draw_ahead(self) -> Iterator[None]:
        """For ScreensAhead: each part drawn in its own step, at the width the dialog will
        give the text (its width less its border, padding and the scrollbar's stable gutter;
        a wrong guess only means the layout draws them)."""
        parent = self.parent
        if not isinstance(parent, Widget) or parent.styles.scrollbar_gutter != "stable":
            return
        size = self.app.size
        width = int(parent.styles.width.resolve(size, size)) if parent.styles.width else size.width
        width -= parent.styles.gutter.width + parent.styles.scrollbar_size_vertical
        for index in range(len(self._group.renderables)):
            self._part(index, width)
            yield

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self.lines(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)


class HelpScreen(Dialog[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        app_bindings = [b for b in self.app.BINDINGS if isinstance(b, Binding)]
        with VerticalScroll(id="help-dialog"):
            yield Static("clarify-tui — keys", classes="dialog-title")
            yield HelpText(help_table(app_bindings))
