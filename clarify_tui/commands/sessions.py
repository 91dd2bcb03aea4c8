"""`clarify-tui sessions`: the stored sessions, as a table (plain columns when piped), CSV or JSON."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, at_least, open_store, require_runs, run_name
from clarify_tui.commands.listing import add_format, emit
from clarify_tui.models import PROTOCOLS, SESSION_STATUSES
from clarify_tui.summary import active, duration, failed, outcome

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

# what a reviewer needs first: at 80 columns the later ones give way (listing.fitting)
COLUMNS = (
    "id",
    "task",
    "outcome",
    "annotator",
    "run",
    "agent",
    "mode",
    "steps",
    "active",
    "duration",
    "protocol",
    "user",
    "note",
)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("sessions", help="list stored sessions")
    add_db(p)
    p.add_argument(
        "--run", dest="runs", action="append", type=run_name, default=None, help="only these runs (repeatable)"
    )
    p.add_argument("--protocol", default=None, choices=PROTOCOLS)
    p.add_argument("--status", default=None, choices=SESSION_STATUSES)
    p.add_argument(
        "--failed",
        action="store_true",
        help="only completed sessions with a wrong answer (CTS: a restore score below 100)",
    )
    p.add_argument("--limit", type=at_least(1), default=200, help="the newest N sessions (default 200)")
    add_format(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    store = open_store(args, must_exist=True)
    require_runs(store, args.runs)
    sessions = store.sessions(runs=args.runs, protocol=args.protocol, status=args.status)
    if args.failed:
        sessions = [s for s in sessions if failed(s)]
    counts = store.step_counts()
    rows = [
        {
            "id": s.id,
            "task": s.task_id,
            "outcome": outcome(s),
            "annotator": s.annotator,
            "run": s.run,
            "agent": s.agent,
            "mode": s.mode,
            "steps": counts.get(s.id, 0),
            "active": active(s),
            "duration": duration(s),
            "protocol": s.protocol.value,
            "user": s.user,
            "note": s.note,
        }
        for s in sessions[-args.limit :]
    ]
    emit(rows, COLUMNS, args.format, title=f"{len(sessions)} session(s) in {store.path}", empty="no sessions match")
    return 0
