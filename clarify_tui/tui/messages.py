"""Messages that cross widget boundaries: the driver reports engine events with them.

Names are past tense; high-frequency ones can replace each other in the queue so a fast
scripted agent never floods the screen.
"""

from __future__ import annotations

from textual.message import Message

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Action
from clarify_tui.users.human import ReplyRequest


class StepsChanged(Message):
    """The episode recorded (or re-recorded) steps; handlers read the episode itself."""

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, StepsChanged)


class SessionEnded(Message):
    """The episode finished (completed, errored or abandoned)."""


class ActionProposed(Message):
    """The agent proposed an action (step mode shows it as pending)."""

    def __init__(self, action: Action) -> None:
        super().__init__()
        self.action = action


class AgentTurnStarted(Message):
    """A human agent's turn began: the action bar should accept an action for `view`."""

    def __init__(self, view: AgentView) -> None:
        super().__init__()
        self.view = view


class ReplyRequested(Message):
    """The agent asked and the human user must reply."""

    def __init__(self, request: ReplyRequest) -> None:
        super().__init__()
        self.request = request


class BusyChanged(Message):
    """A backend call started (`what` says which) or finished (`what` is None)."""

    def __init__(self, what: str | None) -> None:
        super().__init__()
        self.what = what
