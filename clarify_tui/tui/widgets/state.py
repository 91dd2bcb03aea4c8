"""The right region: protocol state, rendered from the engine's state snapshot.

The input is `Episode.state()` live or `Step.state` when replaying a stored session (the
same `EpisodeState`), so this never recomputes anything the engine decides. What a
protocol shows is its own (its spec's `state_panel` and `score_card`:
protocols/<name>/panel.py); this widget only shows it.
"""

from __future__ import annotations

from rich.console import RenderableType
from rich.text import Text
from textual.widgets import Static

from clarify_tui.models import Task
from clarify_tui.protocols import registry
from clarify_tui.results import AnyResult, EpisodeState, state_model


def render_state(task: Task, state: EpisodeState, *, reveal: bool, spoilers: bool) -> RenderableType:
    proto = state.protocol if state.protocol is not None else state_model(task.protocol.value)()
    return registry.get(task.protocol).state_panel(task, state, proto, reveal, spoilers)


class StatePanel(Static):
    """Checkpoints / rounds / Q&A pairs of the session; see `render_state`."""

    def show(self, task: Task, state: EpisodeState, *, reveal: bool, spoilers: bool) -> None:
        self.update(render_state(task, state, reveal=reveal, spoilers=spoilers))


def score_card(task: Task, result: AnyResult, status: str) -> Text:
    """The one-line verdict shown when a session ends."""
    if status != "completed":
        return Text(f"session {status}", style="bold red")
    return registry.get(task.protocol).score_card(result)
