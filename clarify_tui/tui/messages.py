"""The messages of a live episode, and of a worker that failed: one set for every screen.

An `EpisodeDriver` (tui/driver.py) posts the episode messages; each carries the driver
it comes from, so a screen running two episodes at once (ask versus guess) tells them
apart. Dataclass messages, as Toolong and Posting write them. Names are past tense; the
high-frequency `StepsChanged` replaces an older one of the same driver still in the
queue, so a fast scripted agent never floods the screen.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

if TYPE_CHECKING:
    from clarify_tui.agent_view import AgentView
    from clarify_tui.models import Action
    from clarify_tui.tui.driver import EpisodeDriver
    from clarify_tui.users.human import ReplyRequest


@dataclass
class StepsChanged(Message):
    """The episode recorded (or re-recorded) steps; handlers read the episode itself."""

    driver: EpisodeDriver

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StepsChanged) and message.driver is self.driver


@dataclass
class SessionEnded(Message):
    """The episode finished (completed, errored or abandoned)."""

    driver: EpisodeDriver


@dataclass
class ActionProposed(Message):
    """The agent proposed an action (step mode shows it as pending)."""

    driver: EpisodeDriver
    action: Action


@dataclass
class AgentTurnStarted(Message):
    """A human agent's turn began: the action bar should accept an action for `view`."""

    driver: EpisodeDriver
    view: AgentView


@dataclass
class ReplyRequested(Message):
    """The agent asked and the human user must reply."""

    driver: EpisodeDriver
    request: ReplyRequest


@dataclass
class BusyChanged(Message):
    """A backend call started (`what` says which) or finished (`what` is None)."""

    driver: EpisodeDriver
    what: str | None


@dataclass
class WorkerFailed(Message):
    """A screen's worker ended with an error. Textual's Worker.StateChanged does not
    bubble; this does, so one handler in the app tells the person (tui/workers.py). A
    screen may handle it first to put its own state right (play stops auto-running)."""

    group: str
    error: BaseException
