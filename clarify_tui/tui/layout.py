"""Responsive layout shared by the workbench's screens.

Both apps (ClarifyApp, BrowseApp) set these breakpoints, so every screen carries
`-narrow` below 120 columns (`-wide` above) and `-short` below 32 rows. The stylesheet
(browse.tcss, loaded by both apps) lays the three regions of play and replay (one
widget, widgets/regions.py) out in one column when narrow: the question on top (scrollable, with a hint), the trajectory
and the action prompt below; the side panels (hidden information, state) are one key
away (`w`), side by side in place of the trajectory.
"""

from __future__ import annotations

from textual.binding import Binding
from textual.events import Resize
from textual.screen import Screen

HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]
VERTICAL_BREAKPOINTS = [(0, "-short"), (32, "-tall")]

PANELS_BINDING = Binding(
    "w",
    "toggle_panels",
    "Panels",
    id="panels",
    tooltip="narrow terminal: show the side panels (hidden info, state) instead of the trajectory",
)
QUESTION_BINDINGS = [
    Binding(
        "ctrl+down",
        "scroll_question(1)",
        "Question ↓",
        id="question-down",
        show=False,
        priority=True,
        tooltip="scroll the question down when it is cut",
    ),
    Binding(
        "ctrl+up",
        "scroll_question(-1)",
        "Question ↑",
        id="question-up",
        show=False,
        priority=True,
        tooltip="scroll the question up",
    ),
]


def breakpoint_classes(width: int, height: int) -> dict[str, bool]:
    """The classes Screen._on_resize would give a screen of this size (Textual's rule: the
    highest breakpoint not above the dimension)."""
    classes = {}
    for size, points in ((width, HORIZONTAL_BREAKPOINTS), (height, VERTICAL_BREAKPOINTS)):
        chosen = max((p for p in points if p[0] <= size), default=None)
        for point in points:
            classes[point[1]] = point == chosen
    return classes


class PresetBreakpoints:
    """For an App: a screen gets the breakpoint classes of the terminal before it mounts.
    Textual sets them on the first resize, after mounting, which restyles every widget of
    the screen a second time (a good share of opening a screen, benchmarks/bench_tui.py)."""

    def push_screen(self, screen, *args, **kwargs):
        width, height = self.size
        if isinstance(screen, Screen) and not screen.is_attached and width and height:
            screen.update_classes(breakpoint_classes(width, height), update=False)
        return super().push_screen(screen, *args, **kwargs)


class PanelsMixin:
    """For a Screen with the three regions: `w` toggles the side panels when narrow,
    ctrl+↑/↓ scroll the question panel (whatever has focus). The screen names its
    question panel with `QUESTION_ID`."""

    QUESTION_ID = "question"

    @property
    def narrow(self) -> bool:
        return self.has_class("-narrow")  # type: ignore[attr-defined]

    def panels_check(self) -> bool | None:
        """check_action for toggle_panels: only in a narrow terminal."""
        return True if self.narrow else False

    def panels_refusal(self) -> str | None:
        """Why `w` does nothing (a wide terminal shows the side panels already)."""
        return None if self.narrow else "The side panels are on screen already (w swaps them in below 120 columns)."

    @property
    def panels_off_screen(self) -> bool:
        """The side panels (hidden info, state) are not drawn: narrow, the trajectory in front."""
        return self.narrow and not self.has_class("-panels")  # type: ignore[attr-defined]

    def say_hidden_toggled(self, shown: bool) -> None:
        """`h` changed the hidden panel: when it is off screen, say so (else nothing showed)."""
        if self.panels_off_screen:
            self.notify(  # type: ignore[attr-defined]
                f"Hidden info {'shown' if shown else 'hidden'} in the side panels: w shows them.",
                timeout=4,
            )

    def action_toggle_panels(self) -> None:
        self.toggle_class("-panels")  # type: ignore[attr-defined]

    def action_scroll_question(self, direction: int) -> None:
        panel = self.query_one(f"#{self.QUESTION_ID}")  # type: ignore[attr-defined]
        if panel.max_scroll_y <= 0:  # as its border says (no "more" hint): said, not silent
            self.notify("The question is shown whole: nothing to scroll.", timeout=4)  # type: ignore[attr-defined]
            return
        before = panel.scroll_y
        panel.scroll_page(direction)
        if panel.scroll_y == before:
            self.notify(  # type: ignore[attr-defined]
                "At the end of the question: ctrl+↑ scrolls up."
                if direction > 0
                else "At the top of the question: ctrl+↓ scrolls down.",
                timeout=4,
            )

    def on_screen_resume(self) -> None:
        self.on_resize()

    def on_resize(self, event: Resize | None = None) -> None:
        self.call_next(self._relayout)  # type: ignore[attr-defined]  # after Screen._on_resize set the classes

    def _relayout(self) -> None:
        compact_when_narrow(self, "Footer, #reply-input, .action-form Input")
        if not self.narrow:
            self.remove_class("-panels")  # type: ignore[attr-defined]
        self.refresh_bindings()  # type: ignore[attr-defined]
        self.call_after_refresh(self._after_resize)  # type: ignore[attr-defined]

    def _after_resize(self) -> None:
        for panel in self.query(".question-panel"):  # type: ignore[attr-defined]
            panel.refresh_compact()


def compact_when_narrow(screen, selector: str) -> None:
    """Filter bars: borderless one-line widgets on a narrow screen, so labels never wrap
    one letter per line (call from the screen's on_resize)."""
    narrow = screen.has_class("-narrow")
    for widget in screen.query(selector):
        widget.compact = narrow
