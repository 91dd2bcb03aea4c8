"""`clarify-tui datasets`: list the bundled datasets; `datasets validate PATH` checks a file."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console

from clarify_tui.commands.listing import add_format, emit
from clarify_tui.errors import UsageError
from clarify_tui.models import PROTOCOLS

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

console = Console()


def register(sub: Subparsers) -> None:
    p = sub.add_parser("datasets", help="list bundled datasets, or validate one")
    p.add_argument("action", nargs="?", choices=("list", "validate"), default="list")
    p.add_argument("path", nargs="?", help="dataset to validate (a file, a release folder or 'demo')")
    p.add_argument("--benchmark", default=None, choices=PROTOCOLS)
    add_format(p)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.tasks import list_datasets, validate_dataset

    if args.action == "validate":
        if not args.path:
            raise UsageError("datasets validate needs a PATH")
        problems = validate_dataset(args.path, args.benchmark)
        if not problems:
            console.print(f"[green]ok[/green]: {args.path} is valid")
            return 0
        for p in problems:
            console.print(str(p), markup=False, highlight=False)
        console.print(f"[red]{len(problems)} problem(s)[/red]")
        return 1
    infos = list_datasets()
    rows = [
        {
            "benchmark": i.protocol.value,
            "name": i.name,
            "tasks": i.task_count,
            "languages": i.languages,
            "status": "ok" if i.ok else f"{len(i.problems)} problem(s)",
            "path": str(i.path),
        }
        for i in infos
    ]
    emit(
        rows,
        ("benchmark", "name", "tasks", "languages", "status", "path"),
        args.format,
        title="Bundled datasets (use --dataset demo)",
        empty="no bundled datasets found",
    )
    return 0 if all(i.ok for i in infos) else 1
