"""The what-if view of one session: its decision points with each fork's outcome
(`clarify-tui whatif` made the forks; docs/whatif.md). Enter opens the side-by-side
compare of parent and fork, scrolled to where they part."""

from __future__ import annotations

import shlex
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Header, Static

from clarify_tui.models import Session
from clarify_tui.plural import plural
from clarify_tui.protocols import registry
from clarify_tui.tui.widgets.footer import Footer


def _outcome_text(session: Session) -> str:
    from clarify_tui.whatif_results import outcome

    value = outcome(session)
    if value is None:
        return session.status
    if registry.get(session.protocol).graded_by == "nuggets":
        return f"restore {value:.0f}"
    return "right" if value else "wrong"


def forks_of(store, parent_id: str) -> list[Session]:
    """The counterfactual forks of a session, by decision step (the latest of each)."""
    forks = [s for s in store.sessions() if s.parent_id == parent_id and s.counterfactual and s.status != "superseded"]
    return sorted(forks, key=lambda s: (s.counterfactual.get("step", 0), s.counterfactual.get("intervention", "")))


def whatif_command(store, run: str) -> str:
    """The command that makes a run's what-if forks, with `--db FILE` when this database is
    not the one the command would open by itself (it would find no such run there)."""
    from clarify_tui.paths import default_db_path

    command = f"clarify-tui whatif --run {shlex.quote(run)} --sessions all"
    path = getattr(store, "path", None)
    if path is not None and Path(path).resolve() != default_db_path().resolve():
        command += f" --db {shlex.quote(str(path))}"
    return command


class WhatIfScreen(Screen):
    """A session's what-if forks: step, kind, intervention, parent and fork outcome."""

    BINDINGS = [
        Binding("enter", "compare", "Compare", id="whatif-compare", tooltip="parent and fork side by side"),
        Binding("q", "back", "Back", id="whatif-back"),
        Binding("escape", "back", "Back", show=False),
    ]

    def __init__(self, store, session_id: str) -> None:
        super().__init__()
        self.store = store
        session = store.session(session_id)
        # a fork's what-if view is its parent's
        self.origin = store.session(session.parent_id) if session.counterfactual and session.parent_id else session
        self.forks = forks_of(store, self.origin.id)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(id="whatif-head")
        yield DataTable(id="whatif-table", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"what-if · {self.origin.task_id}"
        head = self.query_one("#whatif-head", Static)
        table = self.query_one("#whatif-table", DataTable)
        parent = _outcome_text(self.origin)
        if not self.forks:
            head.update(
                f"Session {self.origin.id} ({parent}) has no what-if forks yet. Make them with:\n"
                f"  {whatif_command(self.store, self.origin.run)}"
            )
            table.display = False
            table.disabled = True  # focused, its enter took the key: enter says there is nothing to compare
            return
        flips = sum(_outcome_text(f) != parent for f in self.forks)
        head.update(
            f"Session {self.origin.id} of run {self.origin.run}: {parent}. "
            f"{plural(len(self.forks), 'fork')}, {flips} with another outcome. Enter: compare."
        )
        table.add_columns("step", "was", "instead", "parent", "fork", "fork session")
        for fork in self.forks:
            cf = fork.counterfactual or {}
            instead = cf.get("intervention", "?") + (" (fallback)" if cf.get("fallback") else "")
            if cf.get("intervention") == "reply":  # the simulator audit's fork: the auditor's reply
                instead = f"reply {str((cf.get('answer') or {}).get('reply') or '')[:30]!r}"
            table.add_row(
                str(cf.get("step")), str(cf.get("kind")), instead, parent, _outcome_text(fork), fork.id, key=fork.id
            )
        table.focus()

    def action_compare(self) -> None:
        from clarify_tui.tui.screens.compare import CompareScreen

        if not self.forks:
            self.notify("No forks to compare.", severity="warning")
            return
        table = self.query_one("#whatif-table", DataTable)
        fork = self.forks[table.cursor_row]
        self.app.push_screen(CompareScreen(self.store, self.origin.id, fork.id, at_divider=True))

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_compare()

    def action_back(self) -> None:
        self.app.pop_screen()
