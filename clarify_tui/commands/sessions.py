"""`clarify-tui sessions`: the stored sessions as a table in the terminal."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from clarify_tui.commands.common import add_db, open_store
from clarify_tui.models import PROTOCOLS, SESSION_STATUSES
from clarify_tui.summary import active, duration, failed, outcome

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

console = Console()


def register(sub: Subparsers) -> None:
    p = sub.add_parser("sessions", help="list stored sessions")
    add_db(p)
    p.add_argument("--run", dest="runs", action="append", default=None, help="only these runs (repeatable)")
    p.add_argument("--protocol", default=None, choices=PROTOCOLS)
    p.add_argument("--status", default=None, choices=SESSION_STATUSES)
    p.add_argument("--failed", action="store_true",
                   help="only completed sessions with a wrong answer (CTS: a restore score below 100)")
    p.add_argument("--limit", type=int, default=200)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    store = open_store(args, must_exist=True)
    sessions = store.sessions(runs=args.runs, protocol=args.protocol, status=args.status)
    if args.failed:
        sessions = [s for s in sessions if failed(s)]
    counts = store.step_counts()
    table = Table(title=f"{len(sessions)} session(s) in {store.path}")
    for col in ("id", "run", "task", "protocol", "agent", "user", "mode", "annotator", "outcome", "steps", "duration",
                "active"):
        table.add_column(col, no_wrap=col in ("id", "outcome", "steps"), overflow="fold")
    for s in sessions[-args.limit:]:
        table.add_row(
            s.id, s.run, s.task_id, s.protocol.value, s.agent, s.user, s.mode, s.annotator or "",
            outcome(s), str(counts.get(s.id, 0)), duration(s), active(s),
        )
    console.print(table)
    return 0
