"""`clarify-tui serve --queue RUN --db PATH`: a human-baseline campaign in the browser.

When RUN names an audit or labels queue of the --db file (`audit --queue`, `labels --queue`),
each visitor answers that queue's items instead (tui/work_app.py), with the same links,
token and visitor cap.

Each annotator opens the printed link (with the secret token) and `&annotator=NAME`, or
types a name on first load; each gets their own app process playing the agent on the
campaign's tasks, recorded in run RUN of the one database. `--annotators FILE` gives each
listed annotator a signed link of their own instead (campaign/links.py), and
`--participant-param` takes the annotator from a crowdsourcing platform's parameter.
See `clarify_tui.campaign` and docs/campaigns.md.
"""

from __future__ import annotations

import argparse
import secrets
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from clarify_tui.argtypes import at_least
from clarify_tui.commands.common import db_path, file_path, run_name
from clarify_tui.commands.common import port as port_number
from clarify_tui.errors import UsageError
from clarify_tui.plural import plural
from clarify_tui.protocols import registry

if TYPE_CHECKING:
    from clarify_tui.campaign.links import Signer
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.store import Store


def register(sub: Subparsers) -> None:
    from clarify_tui.campaign.visitor import add_campaign_options

    p = sub.add_parser(
        "serve", help="serve a human-baseline campaign, or an audit/labels queue, in the browser (one shared database)"
    )
    p.add_argument(
        "--queue",
        type=run_name,
        required=True,
        metavar="RUN",
        help="the campaign's run name, or the name of an audit/labels queue of --db",
    )
    p.add_argument(
        "--db",
        type=file_path,
        default=None,
        help="the shared SQLite file (default: $CLARIFY_DB or sessions/clarify.db)",
    )
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 for a lab network)",
    )
    p.add_argument("--port", type=port_number, default=8000)
    p.add_argument("--token", default=None, help="the secret every link needs (default: a new random one)")
    p.add_argument("--title", default=None, help="the page title (default: the run name)")
    p.add_argument(
        "--annotators",
        type=file_path,
        default=None,
        metavar="FILE",
        help="one annotator name a line: each gets a signed link of their own (printed, and written "
        "mode 0600 to DB.links-RUN.tsv); the session's annotator is the link's. Remove a name and "
        "restart to revoke its link. Without it: the shared --token link, the name typed",
    )
    p.add_argument(
        "--participant-param",
        default=None,
        metavar="NAME",
        type=_param_name,
        help="take the annotator from this link parameter, as a crowdsourcing platform fills it in "
        "(e.g. PROLIFIC_PID); no name form",
    )
    from clarify_tui.campaign.server import DEFAULT_MAX_VISITORS

    p.add_argument(
        "--max-visitors",
        type=at_least(1),
        default=DEFAULT_MAX_VISITORS,
        metavar="N",
        help=f"app processes at once (default {DEFAULT_MAX_VISITORS}: each takes ~67 MB and ~0.9 CPU-s "
        "to start; 30 fit a small 2-core, 4 GB machine); the next visitor is told the campaign is "
        "full and to retry",
    )
    add_campaign_options(p)
    p.set_defaults(func=main, parser=p)


def _param_name(text: str) -> str:
    """A query parameter name (letters, digits, _ . -), not `token` or `sig`, which the links use."""
    import re

    if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", text):
        raise argparse.ArgumentTypeError(f"'{text}' is not a link parameter name (letters, digits, _ . -)")
    if text in ("token", "sig"):
        raise argparse.ArgumentTypeError(f"'{text}' is the campaign link's own parameter; pick another")
    return text


def main(args: argparse.Namespace) -> int:
    from clarify_tui.campaign.links import Signer, load_secret, read_names, secret_path
    from clarify_tui.campaign.server import CampaignServer

    if args.token is not None and len(args.token) < 8:
        raise UsageError("--token must be at least 8 characters")
    if args.annotators is not None and args.token is not None:
        raise UsageError("--annotators gives each annotator a signed link instead of the shared --token; give one")
    db = db_path(args).resolve()
    names = read_names(args.annotators) if args.annotators is not None else None
    _check_port(args.host, args.port)  # before the database is made: a bad address leaves no file behind
    from clarify_tui.commands.work_queues import work_queue_kind

    kind = work_queue_kind(db, args.queue)
    if kind is not None:  # an audit or labels queue: each visitor answers its items
        command_for, intro, released = _work_queue(args, db, kind)
    else:
        command_for, intro, released = _campaign(args, db)
    token = args.token or secrets.token_urlsafe(24)
    from clarify_tui import logsetup

    logsetup.redact(token)  # aiohttp logs a request line over 8 KB whole, and the link carries the token
    signer = Signer(load_secret(secret_path(db)), args.queue, names) if names is not None else None
    server = CampaignServer(
        command_for,
        token,
        host=args.host,
        port=args.port,
        title=args.title or f"clarify-tui · {args.queue}",
        signer=signer,
        participant_param=args.participant_param,
        max_visitors=args.max_visitors,
    )
    shown = "THIS-MACHINE" if args.host in ("0.0.0.0", "::", "") else args.host
    who = "has their link" if signer is not None else "has the token"
    where = (
        "this machine only (pass --host 0.0.0.0 to open it to your network)"
        if args.host in ("127.0.0.1", "localhost", "::1")
        else f"address {args.host}: anyone who can reach it on the network and {who} can annotate"
    )
    print(intro, flush=True)
    print(f"Listening on {args.host}:{args.port} — {where}; at most {args.max_visitors} visitors at once.", flush=True)
    _print_links(args, db, token, signer, names or [], shown)
    later = "each annotator carries on at their next item" if kind else "unfinished sessions resume"
    print(f"Ctrl+C stops the server; {later} when they come back.", flush=True)
    if released:
        print(
            f"Released {released} task claim(s) of visitors of a server that stopped; their annotators get "
            "their tasks back.",
            flush=True,
        )
    server.serve()
    return 0


def _campaign(args: argparse.Namespace, db: Path) -> tuple[Callable[[str], str], str, int]:
    """A human-baseline campaign: its tasks, its run row and claims; (visitor command, intro line,
    claims released)."""
    from clarify_tui.campaign.claims import ClaimBook
    from clarify_tui.campaign.server import visitor_command
    from clarify_tui.campaign.visitor import campaign_tasks
    from clarify_tui.models import PROTOCOLS
    from clarify_tui.store import Store

    campaign, tasks = campaign_tasks(args.queue, args.dataset, args.benchmark, args.limit, args.shuffle, args.per_task)
    settings = _settings(args, sorted({t.protocol.value for t in tasks}, key=PROTOCOLS.index))
    store = Store(db)  # creates the file and its tables (before the claims' connection)
    settings(store)  # the run row: these settings, or a refusal when the run was served with others
    book = ClaimBook(db, campaign, timeout=args.claim_timeout)
    book.register()
    released = book.release_dead_holders()  # visitors of a server that was killed: their tasks come back
    book.close()
    store.close()
    options = [
        "--dataset",
        str(args.dataset),
        "--per-task",
        str(args.per_task),
        "--claim-timeout",
        str(args.claim_timeout),
        "--search",
        args.search,
    ]
    options += ["--user", args.user, "--judge", args.judge, *(f"--set={item}" for item in args.overrides)]
    for flag, value in (
        ("--benchmark", args.benchmark),
        ("--limit", args.limit),
        ("--shuffle", args.shuffle),
        ("--deep-search", args.deep_search),
        ("--config", args.config.resolve() if args.config is not None else None),
    ):
        if value is not None:
            options += [flag, str(value)]
    intro = (
        f"Campaign '{args.queue}': {plural(len(campaign.task_ids), 'task')}, {args.per_task} annotator(s) per task, "
        f"database {db}"
    )
    return visitor_command(sys.executable, db, args.queue, options), intro, released


CAMPAIGN_ONLY = ("dataset", "benchmark", "limit", "shuffle", "per_task", "search", "user", "judge", "deep_search")


def _work_queue(args: argparse.Namespace, db: Path, kind: str) -> tuple[Callable[[str], str], str, int]:
    """An audit or labels queue: each visitor answers their next items (tui/work_app.py);
    the campaign's task options do not apply."""
    from clarify_tui.campaign.server import visitor_command
    from clarify_tui.commands.work_queues import refuse_baseline_options
    from clarify_tui.store import Store

    parser: argparse.ArgumentParser = args.parser
    refuse_baseline_options(args, {name: parser.get_default(name) for name in CAMPAIGN_ONLY}, kind)
    store = Store(db)
    queue = store.work.queue(args.queue)
    assert queue is not None
    done = store.work.progress(args.queue)
    store.close()
    intro = (
        f"{kind.capitalize()} queue '{args.queue}' of run '{queue.run}': {plural(done['items'], 'item')}, "
        f"{plural(queue.per_item, 'answer')} each ({done['complete']} complete), database {db}"
    )
    return visitor_command(sys.executable, db, args.queue, ["--work"]), intro, 0


def _print_links(
    args: argparse.Namespace, db: Path, token: str, signer: Signer | None, names: list[str], shown: str
) -> None:
    """The links to hand out: one signed link per annotator (also written to a file), the
    platform's study link, or the shared token link with the name left to fill in."""
    from clarify_tui import logsetup
    from clarify_tui.campaign.links import SIG_PARAM, links_path, write_links

    machine = " (THIS-MACHINE: this machine's address)" if shown == "THIS-MACHINE" else ""
    base = f"http://{shown}:{args.port}/"
    param = args.participant_param or "annotator"
    if signer is not None:
        rows = [(name, f"{base}?{param}={quote(name)}&{SIG_PARAM}={signer.sign(name)}") for name in names]
        for _, link in rows:
            logsetup.redact(link.rsplit("=", 1)[1])
        written = links_path(db, args.queue)
        write_links(written, rows)
        print(f"One link per annotator{machine}, each theirs alone (also in {written}, mode 0600):", flush=True)
        for name, link in rows:
            print(f"    {name}: {link}", flush=True)
    elif args.participant_param:
        print(
            f"Give the platform this study link{machine}, with its placeholder for the participant's id in "
            f"place of ID (Prolific: {{{{%PROLIFIC_PID%}}}}):",
            flush=True,
        )
        print(f"    {base}?token={quote(token)}&{param}=ID", flush=True)
    else:
        print(f"Send each annotator this link with their name{machine}:", flush=True)
        print(f"    {base}?token={quote(token)}&annotator=NAME", flush=True)


def _settings(args: argparse.Namespace, benchmarks: list[str]) -> Callable[[Store], None]:
    """Check the roles as `run` does (a bad spec, a missing key or config is one line before
    anything is served); the returned call records them on the campaign's run row."""
    from clarify_tui.backend_spec import RoleSpecs
    from clarify_tui.backends import build_backends
    from clarify_tui.campaign.run_settings import campaign_provenance, record_campaign_run
    from clarify_tui.campaign.visitor import campaign_settings

    services, episode = campaign_settings(args)
    deep_search = episode.deep_search if any("deep_search" in registry.get(b).run_flags for b in benchmarks) else None
    build_backends(
        RoleSpecs.of(user=args.user, judge=args.judge, deep_search=deep_search), services
    )  # CTS: a fixed deep searcher
    provenance = campaign_provenance(
        benchmarks,
        dataset=str(args.dataset),
        user=args.user,
        judge=args.judge,
        search=args.search,
        deep_search=episode.deep_search,
        config_obj=services,
        argv=_without_token(getattr(args, "argv", None)),
    )

    def record(store: Store) -> None:
        record_campaign_run(
            store,
            args.queue,
            benchmarks,
            dataset=str(args.dataset),
            user=args.user,
            judge=args.judge,
            search=args.search,
            episode=episode,
            provenance=provenance,
        )

    return record


def _without_token(argv: list[str] | None) -> list[str] | None:
    """The command line as recorded: the campaign's secret token is not part of it."""
    if argv is None:
        return None
    out: list[str] = []
    hide = False
    for item in argv:
        out.append("[token]" if hide else "--token=[token]" if item.startswith("--token=") else item)
        hide = item == "--token"
    return out


def _check_port(host: str, port: int) -> None:
    """Say so in one line when the address is taken or the host unknown (aiohttp would print a traceback)."""
    import socket

    try:
        socket.getaddrinfo(host, port)
    except (OSError, UnicodeError) as exc:
        raise UsageError(
            f"cannot listen on {host}:{port}: {getattr(exc, 'strerror', None) or exc}; check --host"
        ) from None
    try:
        with socket.create_server((host, port), reuse_port=False):
            pass
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}; pick another --port") from None
