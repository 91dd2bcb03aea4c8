"""A person playing the agent: `act` waits until the UI submits an action.

The time between the view being offered and the action arriving is recorded as the
step's latency, which is the human's time per action.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from clarify_tui.agent_view import AgentView
from clarify_tui.models import Action


class HumanAgent:
    spec = "human"

    def __init__(self, on_turn: Callable[[AgentView], None] | None = None) -> None:
        self._actions: asyncio.Queue[Action] = asyncio.Queue()
        self.on_turn = on_turn

    def submit(self, action: Action) -> None:
        self._actions.put_nowait(action)

    async def act(self, view: AgentView) -> Action:
        if self.on_turn:
            self.on_turn(view)
        return await self._actions.get()
