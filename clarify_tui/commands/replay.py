"""`clarify-tui replay SESSION_ID`: open one stored session in the replay screen.

An id prefix is enough (Store.session resolves it). A failed DiscoBench session opens at
its first failed checkpoint; `f` forks from any step and continues live.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, open_store, seconds

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("replay", help="step through a stored session (and fork it)")
    p.add_argument("session_id", help="session id or a unique prefix of it")
    add_db(p)
    p.add_argument("--pace", type=seconds(0), default=0.3, help="seconds between the steps of a live fork")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    store = open_store(args, must_exist=True)
    session = store.session(args.session_id)  # NotFound (no such / ambiguous id) -> exit 2
    from clarify_tui.tui.browse import BrowseApp

    app = BrowseApp(store, start="replay", session_id=session.id, pace=args.pace)
    app.run()
    return app.return_code or 0
