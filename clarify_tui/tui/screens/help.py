"""`?`: every key of the current screen, grouped by mode, with what it does."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

SECTIONS = [
    ("Task picker", [("enter", "open the task"), ("/", "search box"), ("tab", "next filter")]),
    ("Watch mode", [("a", "pause / resume the agent"), ("+ / -", "faster / slower"), ("m", "switch to step mode")]),
    ("Step mode", [("space", "ask the agent for its next action (shown as pending)"),
                   ("enter", "apply the pending action"), ("e", "edit it before applying"),
                   ("r", "replace it with an action you type"), ("escape", "drop it / cancel a running call"),
                   ("m", "switch to watch mode")]),
    ("Playing the user (--as user)", [("y / n / i", "InteractComp: yes / no / i don't know (nothing else)"),
                                      ("c", "DiscoBench: release the clue"), ("u", "CTS: unknown"),
                                      ("t, or a letter no key uses", "start typing a reply; enter sends")]),
    ("Playing the agent (--as agent)", [("s", "search"), ("k", "ask the user"), ("v", "visit a url, or a result number of the last search (CTS)"),
                                        ("c", "clarify: type k questions (CTS)"),
                                        ("enter", "answer (with confidence in InteractComp)"),
                                        ("p / ctrl+t", "pause / resume the task clock (the task is hidden meanwhile)"),
                                        ("ctrl+n", "add a note to this session")]),
    ("Human-baseline queue (--queue RUN)", [("n", "next task, once this one has ended"),
                                            ("ctrl+o", "skip this task, after a y (saved as abandoned, never scored)"),
                                            ("q", "quit; the same command resumes where you stopped")]),
    ("Everywhere", [("w", "narrow terminal (< 120 columns): side panels instead of the trajectory"),
                    ("ctrl+↑ / ctrl+↓", "scroll the question when it is cut"),
                    ("h", "hidden panel (locked for a human agent until the end)"), ("f", "fold / unfold long steps"),
                    ("escape", "cancel the running backend call"), ("q", "back to the picker"),
                    ("F2", "sessions: replay, compare, fork (shut while you play the agent)"),
                    ("F3", "scores and charts"),
                    ("ctrl+p", "command palette"), ("?", "this help"), ("ctrl+q", "quit (play --task offers to resume a task left running)")]),
]


def help_table() -> Table:
    table = Table(box=None, show_header=False, pad_edge=False)
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column()
    for title, rows in SECTIONS:
        table.add_row(Text(title, style="bold underline"), "")
        for key, what in rows:
            table.add_row(key, what)
        table.add_row("", "")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close")]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-dialog"):
            yield Static("clarify-tui — keys", classes="dialog-title")
            yield Static(help_table())
