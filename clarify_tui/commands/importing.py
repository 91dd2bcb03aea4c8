"""`clarify-tui import`: results of other tools into the database as sessions.

    clarify-tui import --format interactcomp-harness --dataset PATH FILE.csv [--run NAME]
    clarify-tui import --format cts-candidates --dataset RELEASE_OR_FILE FILE.jsonl [--run NAME]

(The module is not called `import` because that is a Python keyword.)
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.commands.common import add_db, at_least, db_path, file_path, open_store, run_name, spec

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.store import Store

FORMATS = ("interactcomp-harness", "cts-candidates")
console = Console(stderr=True)


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "import",
        help="import results of the reference harnesses as sessions",
        description="Import the InteractComp reference harness's results CSV or Clarify-Then-Search "
        "candidate files as sessions, played through the engine and scored like any session. "
        "Any bad row is reported with file and line, and then nothing is written.",
    )
    add_db(p)
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument(
        "--dataset",
        required=True,
        help="the tasks the file refers to (InteractComp release or Task JSONL; CTS release folder or file)",
    )
    p.add_argument("file", help="the results file to import")
    p.add_argument("--run", type=run_name, default=None, help="run name (default: from the file name)")
    p.add_argument(
        "--max-rounds",
        type=at_least(1),
        default=None,
        help="interactcomp-harness: the harness's round limit (default: the protocol's 10)",
    )
    p.add_argument("--canary", default=None, help="decrypt an InteractComp release whose canary column was stripped")
    p.add_argument(
        "--user", default="rule", type=spec, help="cts-candidates: simulator for replies or rewrites not in the file"
    )
    p.add_argument(
        "--judge", default="rule", type=spec, help="cts-candidates: nugget judge when the file stores no coverage"
    )
    p.add_argument("--config", default=None, type=file_path, help="clarify.toml (for openai: user or judge)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.importers import (
        ImportFileError,
        import_cts_candidates,
        import_harness,
    )

    created = not db_path(args).exists()
    store = open_store(args)
    config_obj = None
    try:
        if args.format == "interactcomp-harness":
            summary = import_harness(
                store, args.file, args.dataset, run=args.run, max_rounds=args.max_rounds, canary=args.canary
            )
        else:
            if args.config or any(BackendSpec.parse(s).is_model for s in (args.user, args.judge)):
                from clarify_tui.config import load_config

                config_obj = load_config(args.config)
            summary = import_cts_candidates(
                store, args.file, args.dataset, run=args.run, user=args.user, judge=args.judge, config_obj=config_obj
            )
    except ImportFileError as exc:
        if created:
            _drop_if_empty(store)
        console.print(f"[red]Cannot import[/red] {args.file}", soft_wrap=True)
        console.print(str(exc), markup=False, highlight=False, soft_wrap=True)
        return 2
    from clarify_tui.provenance import imported_provenance

    benchmark = "interactcomp" if args.format == "interactcomp-harness" else "cts"
    store.set_run_provenance(
        summary.run,
        imported_provenance(
            benchmark=benchmark,
            dataset=str(args.dataset),
            source=args.file,
            row=store.run_row(summary.run) or {},
            config_obj=config_obj,
            argv=getattr(args, "argv", None),
        ),
    )
    console.print(
        f"imported {len(summary.sessions)} session(s) into run [bold]{summary.run}[/bold] "
        f"({summary.completed} completed, {summary.errored} errored) in {store.path}",
        soft_wrap=True,
    )
    return 0


def _drop_if_empty(store: Store) -> None:
    """A bad file leaves no database behind: the one this command created is removed while
    it still holds no session (so nothing another process wrote meanwhile is lost)."""
    from pathlib import Path

    if store.sessions():
        return
    store.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{store.path}{suffix}").unlink(missing_ok=True)
