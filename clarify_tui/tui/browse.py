"""BrowseApp: a small app that hosts the browsing screens (sessions, replay, compare,
scores, ask-versus-guess) for `clarify-tui replay`, `clarify-tui demo ask-vs-guess` and
the tests. The workbench app (`tui/app.py`) pushes the same screens.

Nothing happens at import time; the store is opened by the caller (or lazily from `db`).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from clarify_tui.tui.commands import ScreenCommands
from clarify_tui.tui.layout import HORIZONTAL_BREAKPOINTS, VERTICAL_BREAKPOINTS, PresetBreakpoints
from clarify_tui.tui.terminal import NeedsTerminal
from clarify_tui.tui.typeahead import TypeaheadApp
from clarify_tui.tui.workers import NotifiesWorkerErrors

Start = Literal["sessions", "replay", "compare", "scores", "ask-vs-guess"]


class BrowseApp(NeedsTerminal, NotifiesWorkerErrors, PresetBreakpoints, TypeaheadApp, App):
    """Opens on `start`; `q` on the first screen quits. Replay opens over the sessions
    list, so `q` there shows the session among its family (and any fork just made)."""

    CSS_PATH = "browse.tcss"
    COMMANDS = App.COMMANDS | {ScreenCommands}
    HORIZONTAL_BREAKPOINTS = HORIZONTAL_BREAKPOINTS
    VERTICAL_BREAKPOINTS = VERTICAL_BREAKPOINTS
    TITLE = "clarify-tui"
    BINDINGS = [
        Binding("question_mark", "help", "Help", id="browse-help", tooltip="all keys (this help)"),
        Binding("f2", "sessions", "Sessions", id="browse-sessions", tooltip="every stored session"),
        Binding("f3", "scores", "Scores", id="browse-scores", tooltip="scores and charts of this database"),
        Binding("ctrl+q", "quit", "Quit", id="browse-quit", show=False),
    ]

    def __init__(
        self,
        store=None,
        *,
        db: Path | None = None,
        start: Start = "sessions",
        session_id: str | None = None,
        other_id: str | None = None,
        task=None,
        agent_a: str | None = None,
        agent_b: str | None = None,
        pace: float = 0.4,
        by: str = "run",
        config=None,
    ) -> None:
        super().__init__()
        self._store = store
        self.db = db
        self.start = start
        self.session_id, self.other_id = session_id, other_id
        self.task_ = task
        self.agents = (agent_a, agent_b)
        self.pace = pace
        self.by = by
        self.config = config

    @property
    def store(self):
        if self._store is None:
            from clarify_tui.paths import default_db_path
            from clarify_tui.store import Store

            self._store = Store(self.db or default_db_path())
        return self._store

    def _needed(self, session_id: str | None) -> str:
        """The session id `start` needs (the command that made this app checked it)."""
        if session_id is None:
            raise ValueError(f"{self.start} needs a session id")
        return session_id

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        """The app's own commands, as the workbench offers them (the demo's palette had none)."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Sessions", "every stored session: replay, compare, fork (F2)", self.action_sessions)
        yield SystemCommand("Scores", "scores and charts of this database (F3)", self.action_scores)
        yield SystemCommand("Help", "every key, this screen's first (?)", self.action_help)

    def action_help(self) -> None:
        from clarify_tui.tui.screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            self.push_screen(HelpScreen())

    def action_sessions(self) -> None:
        from clarify_tui.tui.screens.sessions import SessionsScreen

        if not isinstance(self.screen, SessionsScreen):
            self.push_screen(SessionsScreen(self.store))

    def action_scores(self) -> None:
        from clarify_tui.tui.screens.scores import ScoresScreen

        if not isinstance(self.screen, ScoresScreen):
            self.push_screen(ScoresScreen(self.store, by=self.by))

    def on_mount(self) -> None:
        from clarify_tui.tui.screens.sessions import SessionsScreen

        if self.start == "sessions":
            self.push_screen(SessionsScreen(self.store))
        elif self.start == "replay":
            from clarify_tui.tui.screens.replay import ReplayScreen

            session_id = self._needed(self.session_id)
            self.push_screen(SessionsScreen(self.store, select=self.store.session(session_id).id))
            self.push_screen(ReplayScreen(self.store, session_id, pace=self.pace, config=self.config))
        elif self.start == "compare":
            from clarify_tui.tui.screens.compare import CompareScreen

            self.push_screen(CompareScreen(self.store, self._needed(self.session_id), self._needed(self.other_id)))
        elif self.start == "scores":
            from clarify_tui.tui.screens.scores import ScoresScreen

            self.push_screen(ScoresScreen(self.store, by=self.by))
        elif self.start == "ask-vs-guess":
            from clarify_tui.tui.screens.ask_vs_guess import (
                DEFAULT_A,
                DEFAULT_B,
                AskVsGuessScreen,
            )

            a, b = self.agents
            self.push_screen(
                AskVsGuessScreen(
                    self.store, self.task_, a or DEFAULT_A, b or DEFAULT_B, pace=self.pace, config=self.config
                )
            )
        else:
            raise ValueError(f"unknown start screen {self.start!r}")
