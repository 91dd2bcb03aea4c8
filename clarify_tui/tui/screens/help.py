"""`?`: every key of the workbench, grouped by mode, generated from the bindings.

Each section is the BINDINGS of one screen or play-screen controller (play_controls.py,
play_human.py), so a key added, changed or removed there shows here as it is; the text
is the binding's tooltip (else its description). As Posting's help screen does, nothing
is written twice. The sections of the screen `?` was pressed on come first, marked "this
screen" (`sections_of`), then the others; the app's own keys close the list ("Everywhere":
only those that work in this app: a campaign's shut F2 / F3 are not listed).

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
from textual.screen import Screen
from textual.strip import Strip
from textual.visual import Visual, visualize
from textual.widget import Widget
from textual.widgets import Static

from clarify_tui.tui.screens.play_keys import parse_action
from clarify_tui.tui.speed import Dialog

KEY_NAMES = {
    "question_mark": "?",
    "plus": "+",
    "minus": "-",
    "slash": "/",
    "ctrl+up": "ctrl+↑",
    "ctrl+down": "ctrl+↓",
    "f2": "F2",
    "f3": "F3",
}

PALETTE = Binding("ctrl+p", "command_palette", "Commands", tooltip="command palette: every action usable now")
PLAY = "Play screen (every role)"
EVERYWHERE = "Everywhere"
THIS_SCREEN = "  · this screen"


def key_text(binding: Binding) -> str:
    if binding.key_display:
        return binding.key_display
    return " / ".join(KEY_NAMES.get(key, key) for key in binding.key.split(","))


def sections(app_bindings: Iterable[Binding] = (), browsing: bool = True) -> list[tuple[str, list[Binding]]]:
    """(title, bindings) of every part of the workbench, in the order a person meets them;
    without the browsing screens where they never open (`browsing` False: a campaign)."""
    from clarify_tui.tui.layout import PANELS_BINDING, QUESTION_BINDINGS
    from clarify_tui.tui.screens.picker import PickerScreen
    from clarify_tui.tui.screens.play_controls import QueueControls, StepControls, WatchControls
    from clarify_tui.tui.screens.play_human import HumanAgentControls, HumanUserControls, TaskClockControls
    from clarify_tui.tui.screens.play_keys import COMMON_BINDINGS

    out: dict[str, list[Binding]] = {"Task picker": list(PickerScreen.BINDINGS)}  # type: ignore[arg-type]
    for controls in (
        WatchControls,
        StepControls,
        HumanUserControls,
        HumanAgentControls,
        TaskClockControls,
        QueueControls,
    ):
        out.setdefault(controls.TITLE, []).extend(controls.help_bindings())
    out[PLAY] = [PANELS_BINDING, *COMMON_BINDINGS, *QUESTION_BINDINGS]
    if browsing:
        out.update(browsing_sections())
    out[EVERYWHERE] = [*app_bindings, PALETTE]
    return list(out.items())


def sections_of(screen) -> list[str]:
    """The titles of the sections holding `screen`'s keys (the screen `?` was pressed on)."""
    from clarify_tui.tui.screens.picker import PickerScreen

    if isinstance(screen, PickerScreen):
        return ["Task picker"]
    controls = getattr(screen, "controls", None)  # a play screen: its role's controllers
    if isinstance(controls, list):
        titles = [c.TITLE for c in controls]
        if getattr(screen, "run_mode", None) == "watch" and "Step mode" in titles and "Watch mode" in titles:
            titles.remove("Watch mode")
            titles.insert(titles.index("Step mode"), "Watch mode")
        return [*dict.fromkeys(t for t in titles if t), PLAY]
    return [title for title, cls in browsing_screens() if isinstance(screen, cls)]


def browsing_sections() -> dict[str, list[Binding]]:
    """The sessions list, replay, compare, what-if, scores and ask-vs-guess screens (F2,
    `clarify-tui replay`, `demo`): their keys were nowhere in `?`."""
    return {title: [b for b in screen.BINDINGS if isinstance(b, Binding)] for title, screen in browsing_screens()}


def browsing_screens() -> list[tuple[str, type[Screen]]]:
    """(section title, screen class) of the browsing screens."""
    from clarify_tui.tui.screens.ask_vs_guess import AskVsGuessScreen
    from clarify_tui.tui.screens.compare import CompareScreen
    from clarify_tui.tui.screens.replay import ReplayScreen
    from clarify_tui.tui.screens.scores import ScoresScreen
    from clarify_tui.tui.screens.sessions import SessionsScreen
    from clarify_tui.tui.screens.whatif import WhatIfScreen

    return [
        ("Sessions (F2)", SessionsScreen),
        ("Replay and fork", ReplayScreen),
        ("Compare", CompareScreen),
        ("What-if forks (replay i)", WhatIfScreen),
        ("Scores (F3)", ScoresScreen),
        ("Ask vs guess (demo)", AskVsGuessScreen),
    ]


def help_tables(app_bindings: Iterable[Binding] = (), browsing: bool = True) -> dict[str, Group]:
    """Each section's two-column table (key, what it does) and a blank line, by title."""
    tables = {}
    for title, bindings in sections(app_bindings, browsing):
        table = Table(box=None, show_header=False, pad_edge=False, padding=(0, 2, 0, 0))
        table.add_column(style="bold cyan", no_wrap=True, min_width=12)
        table.add_column()
        for binding in bindings:
            table.add_row(key_text(binding), binding.tooltip or binding.description)
        tables[title] = Group(table, Text(""))
    return tables


def help_group(tables: dict[str, Group], first: Iterable[str] = ()) -> Group:
    """Each section's title over its table, the sections titled `first` (the screen's own)
    at the top and marked. The tables are the objects given (HelpText keeps their lines)."""
    first = [t for t in first if t in tables]
    order = first + [t for t in tables if t not in first]
    parts: list[Text | Group] = []
    for title in order:
        parts += [
            Text.assemble((title, "bold underline"), (THIS_SCREEN if title in first else "", "bold")),
            tables[title],
        ]
    return Group(*parts)


def help_table(app_bindings: Iterable[Binding] = (), first: Iterable[str] = ()) -> Group:
    """The whole help text (see help_group)."""
    return help_group(help_tables(app_bindings), first)


class HelpText(Widget):
    """A Rich Group drawn as a Static draws it, into lines once per width and style, a part
    at a time: measuring its height and drawing it use the same lines (the line API), and
    built ahead (tui/speed/ahead.py) its parts are drawn in separate steps (`draw_ahead`)."""

    DEFAULT_CSS = "HelpText { height: auto; }"

    def __init__(self, group: Group, **kwargs) -> None:
        super().__init__(**kwargs)
        self._group = group
        self._parts: dict[int, tuple[object, list[Strip]]] = {}  # id(part) -> (key, lines): the group's parts
        # are alive while it is shown, so their ids are theirs (`show` forgets the others)
        self._lines: tuple[object, list[Strip]] | None = None

    def render(self):
        return self._group

    def show(self, group: Group) -> None:
        """Another text; the lines of the parts it shares with this one (the same objects,
        in any order: the sections reordered for another screen) are kept."""
        self._group = group
        kept = {id(part) for part in group.renderables}
        self._parts = {k: v for k, v in self._parts.items() if k in kept}
        self._lines = None
        self.refresh(layout=True)

    def lines(self, width: int) -> list[Strip]:
        key = (width, self.visual_style, self.text_selection)
        if self._lines is None or self._lines[0] != key:
            if self.text_selection is not None:  # a selection's offsets are the whole text's
                lines = Visual.to_strips(self, visualize(self, self._group), width, None, self.visual_style)
            else:
                lines = [line for part in self._group.renderables for line in self._part(part, width)]
            self._lines = (key, lines)
        return self._lines[1]

    def _part(self, part, width: int) -> list[Strip]:
        key = (width, self.visual_style)
        cached = self._parts.get(id(part))
        if cached is None or cached[0] != key:
            visual = visualize(self, Group(part))  # drawn by Rich, as in the whole Group
            cached = self._parts[id(part)] = (
                key,
                Visual.to_strips(self, visual, width, None, self.visual_style, apply_selection=False),
            )
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
        for part in self._group.renderables:
            self._part(part, width)
            yield

    def get_content_height(self, container, viewport, width: int) -> int:
        return len(self.lines(width))

    def render_line(self, y: int) -> Strip:
        lines = self.lines(self.size.width)
        return lines[y] if y < len(lines) else Strip.blank(self.size.width, self.visual_style.rich_style)


class HelpScreen(Dialog[None]):
    """Every key; the keys of the screen beneath first (built ahead, it learns which screen
    that is when it is shown, and reorders the sections it drew)."""

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def __init__(self) -> None:
        super().__init__()
        self._tables: dict[str, Group] = {}
        self._first: list[str] = []

    def beneath(self):
        """The screen `?` was pressed on (under this one, or on top while built ahead)."""
        from textual.command import CommandPalette

        stack = [s for s in self.app.screen_stack if s is not self and not isinstance(s, CommandPalette)]
        return stack[-1] if stack else None

    def compose(self) -> ComposeResult:
        app = self.app
        # an app's key that is shut for good there (a campaign's F2 / F3) is not listed
        app_bindings = [
            b for b in app.BINDINGS if isinstance(b, Binding) and app.check_action(*parse_action(b.action)) is not False
        ]
        browsing = app.check_action("sessions", ()) is not False  # else sessions, replay, scores never open
        self._tables = help_tables(app_bindings, browsing)
        self._first = sections_of(self.beneath())
        with VerticalScroll(id="help-dialog"):
            yield Static("clarify-tui — keys", classes="dialog-title")
            yield HelpText(help_group(self._tables, self._first))

    def on_screen_resume(self) -> None:
        first = sections_of(self.beneath())
        if first != self._first:
            self._first = first
            self.query_one(HelpText).show(help_group(self._tables, first))
            self.query_one("#help-dialog").scroll_home(animate=False)
