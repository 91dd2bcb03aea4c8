"""Below the trajectory: the pending action (step mode) or a spinner while a backend works."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from clarify_tui.models import Action
from clarify_tui.tui.widgets.step_card import action_line

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


class PendingBar(Static):
    """Shows `busy` (with a spinner) or else the pending `action`, or else a hint."""

    busy: reactive[str | None] = reactive(None, layout=True)
    """What is running right now (e.g. "agent is thinking"), or None."""

    action: reactive[Action | None] = reactive(None, layout=True)
    """The proposed action waiting to be applied, edited or replaced."""

    hint: reactive[str] = reactive("", layout=True)
    """What to do next, shown when nothing is pending or running."""

    stepping: reactive[bool] = reactive(True, layout=True)
    """Step mode: the pending action's keys work (in watch mode they would lie)."""

    _frame = 0

    def on_mount(self) -> None:
        self._timer = self.set_interval(0.1, self._spin, pause=True)

    def watch_busy(self, old: str | None, busy: str | None) -> None:
        if (old is None) != (busy is None):
            self.set_class(busy is not None, "busy")
        if busy is None:
            self._timer.pause()
        else:
            self._timer.resume()

    def _spin(self) -> None:
        self._frame = (self._frame + 1) % len(SPINNER)
        self.refresh()

    def render(self) -> Text:
        if self.busy:
            return Text(f"{SPINNER[self._frame]} {self.busy}…  (escape cancels)", style="bold yellow")
        if self.action is not None:
            text = Text("pending ", style="bold reverse")
            text.append(" ")
            text.append_text(action_line(self.action))
            if self.stepping:
                text.append("\nenter apply · e edit · r replace · escape drop", style="dim")
            else:
                text.append("\nwatch mode: it runs next · a pauses · m step mode to edit it", style="dim")
            return text
        return Text(self.hint, style="dim")
