"""`clarify-tui datasets`: list the bundled datasets; `datasets validate PATH` checks a file."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from clarify_tui.models import PROTOCOLS

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

console = Console()


def register(sub: Subparsers) -> None:
    p = sub.add_parser("datasets", help="list bundled datasets, or validate one")
    p.add_argument("action", nargs="?", choices=("list", "validate"), default="list")
    p.add_argument("path", nargs="?", help="dataset to validate (a file, a release folder or 'demo')")
    p.add_argument("--benchmark", default=None, choices=PROTOCOLS)
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.tasks import list_datasets, validate_dataset

    if args.action == "validate":
        if not args.path:
            raise ValueError("datasets validate needs a PATH")
        problems = validate_dataset(args.path, args.benchmark)
        if not problems:
            console.print(f"[green]ok[/green]: {args.path} is valid")
            return 0
        for p in problems:
            console.print(str(p), markup=False, highlight=False)
        console.print(f"[red]{len(problems)} problem(s)[/red]")
        return 1
    table = Table(title="Bundled datasets (use --dataset demo)")
    for col in ("benchmark", "name", "tasks", "languages", "status", "path"):
        table.add_column(col)
    infos = list_datasets()
    for info in infos:
        status = "[green]ok[/green]" if info.ok else f"[red]{len(info.problems)} problem(s)[/red]"
        table.add_row(
            info.protocol.value, info.name, str(info.task_count), ", ".join(info.languages), status, str(info.path)
        )
    console.print(table)
    if not infos:
        console.print("[yellow]no bundled datasets found[/yellow]")
    return 0 if all(i.ok for i in infos) else 1
