"""`clarify-tui serve --queue RUN --db PATH`: a human-baseline campaign in the browser.

Each annotator opens the printed link (with the secret token) and `&annotator=NAME`, or
types a name on first load; each gets their own app process playing the agent on the
campaign's tasks, recorded in run RUN of the one database. See `clarify_tui.campaign`.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from urllib.parse import quote
from typing import TYPE_CHECKING

from clarify_tui.commands.common import db_path, file_path, port as port_number, run_name
from clarify_tui.plural import plural

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    from clarify_tui.campaign.visitor import add_campaign_options

    p = sub.add_parser("serve", help="serve a human-baseline campaign in the browser (one shared database)")
    p.add_argument("--queue", type=run_name, required=True, metavar="RUN", help="the campaign's run name")
    p.add_argument("--db", type=file_path, default=None,
                   help="the shared SQLite file (default: $CLARIFY_DB or sessions/clarify.db)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for a lab network)")
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument("--token", default=None, help="the secret every link needs (default: a new random one)")
    p.add_argument("--title", default=None, help="the page title (default: the run name)")
    add_campaign_options(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.campaign.claims import ClaimBook
    from clarify_tui.campaign.server import CampaignServer, visitor_command
    from clarify_tui.campaign.visitor import campaign_tasks

    if args.token is not None and len(args.token) < 8:
        raise ValueError("--token must be at least 8 characters")
    db = db_path(args).resolve()
    _check_port(args.host, args.port)  # before the database is made: a bad address leaves no file behind
    campaign, _tasks = campaign_tasks(args.queue, args.dataset, args.benchmark, args.limit, args.shuffle,
                                      args.per_task)
    from clarify_tui.store import Store

    store = Store(db)  # creates the file and its tables (before the claims' connection)
    book = ClaimBook(db, campaign, timeout=args.claim_timeout)
    book.register()
    released = book.release_dead_holders()  # visitors of a server that was killed: their tasks come back
    book.close()
    store.close()
    token = args.token or secrets.token_urlsafe(24)
    from clarify_tui import logsetup

    logsetup.redact(token)  # aiohttp logs a request line over 8 KB whole, and the link carries the token
    options = ["--dataset", str(args.dataset), "--per-task", str(args.per_task),
               "--claim-timeout", str(args.claim_timeout), "--search", args.search]
    for flag, value in (("--benchmark", args.benchmark), ("--limit", args.limit), ("--shuffle", args.shuffle)):
        if value is not None:
            options += [flag, str(value)]
    server = CampaignServer(visitor_command(sys.executable, db, args.queue, options), token,
                            host=args.host, port=args.port, title=args.title or f"clarify-tui · {args.queue}")
    shown = "THIS-MACHINE" if args.host in ("0.0.0.0", "::", "") else args.host
    where = ("this machine only (pass --host 0.0.0.0 to open it to your network)" if args.host in
             ("127.0.0.1", "localhost", "::1") else f"address {args.host}: anyone who can reach it on the network "
             "and has the token can annotate")
    print(f"Campaign '{args.queue}': {plural(len(campaign.task_ids), 'task')}, {args.per_task} annotator(s) per task, "
          f"database {db}", flush=True)
    print(f"Listening on {args.host}:{args.port} — {where}.", flush=True)
    print("Send each annotator this link with their name" + (" (THIS-MACHINE: this machine's address)"
          if shown == "THIS-MACHINE" else "") + ":", flush=True)
    print(f"    http://{shown}:{args.port}/?token={quote(token)}&annotator=NAME", flush=True)
    print("Ctrl+C stops the server; unfinished sessions resume when their annotator comes back.", flush=True)
    if released:
        print(f"Released {released} task claim(s) of visitors of a server that stopped; their annotators get "
              "their tasks back.", flush=True)
    server.serve()
    return 0


def _check_port(host: str, port: int) -> None:
    """Say so in one line when the address is taken or the host unknown (aiohttp would print a traceback)."""
    import socket

    try:
        socket.getaddrinfo(host, port)
    except (OSError, UnicodeError) as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}; check --host") from None
    try:
        with socket.create_server((host, port), reuse_port=False):
            pass
    except OSError as exc:
        raise ValueError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; pick another --port") from None
