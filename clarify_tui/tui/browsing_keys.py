"""F2, F3 and ? on the workbench: the sessions, scores and help screens, and the rule that
keeps the first two shut while a person plays the agent on an unfinished task (they
would show other sessions' answers).

Why apart from the app: what a person may open, and when, is one rule the bindings, the
command palette and the help screen all ask (`check_action`, `get_system_commands`);
the app (tui/app.py) is what serves tasks. The campaign app narrows it further.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from textual.app import App, SystemCommand
from textual.screen import Screen

if TYPE_CHECKING:
    from clarify_tui.tui.speed import ScreensAheadLike

    _App = App[Any]
else:
    _App = object


class BrowsingKeys(_App):
    """App mixin: the sessions, scores and help actions (built ahead while idle: `ahead`)."""

    ahead: ScreensAheadLike
    store: Any  # the app's Store, opened on first use

    def _playing_blind(self) -> bool:
        """A person is playing the agent on an unfinished task: other sessions must stay shut.
        Asked for every footer repaint: before any play screen exists its (heavy) module is
        not imported just to answer no."""
        play = sys.modules.get("clarify_tui.tui.screens.play")
        PlayScreen = getattr(play, "PlayScreen", None)
        if PlayScreen is None:
            return False

        return any(isinstance(s, PlayScreen) and s.role == "agent" and not s.driver.done for s in self.screen_stack)

    def check_action(self, action: str, parameters: tuple) -> bool | None:
        return True  # F2 / F3 while a person plays blind: the action says why they stay shut

    def action_sessions(self) -> None:
        from clarify_tui.tui.screens.sessions import SessionsScreen

        if self._playing_blind():
            self.notify("Sessions open when the task ends (they show answers).", severity="warning")
        elif not isinstance(self.screen, SessionsScreen):
            self.push_screen(self.ahead.take("sessions") or SessionsScreen(self.store))

    def action_scores(self) -> None:
        from clarify_tui.tui.screens.scores import ScoresScreen

        if self._playing_blind():
            self.notify("Scores open when the task ends.", severity="warning")
        elif not isinstance(self.screen, ScoresScreen):
            self.push_screen(self.ahead.take("scores") or ScoresScreen(self.store))

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        blind = " · not now: they open when the task ends" if self._playing_blind() else ""
        # listed even while blocked: picking one says why (action_sessions / action_scores)
        yield SystemCommand(
            "Sessions", "every stored session: replay, compare, fork (F2)" + blind, self.action_sessions
        )
        yield SystemCommand("Scores", "scores and charts of this database (F3)" + blind, self.action_scores)
        yield SystemCommand("Help", "every key, this screen's first (?)", self.action_help)

    def action_help(self) -> None:
        from clarify_tui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(self.ahead.take("help") or HelpScreen())
