"""What an agent is: something that turns an AgentView into its next Action."""

from __future__ import annotations

from typing import Protocol as TypingProtocol

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Action


class Agent(TypingProtocol):
    spec: str

    async def act(self, view: AgentView) -> Action:
        """Return the next action. Attach the call's cost as `action.usage`."""
        ...
