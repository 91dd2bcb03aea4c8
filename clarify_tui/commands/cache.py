"""`clarify-tui cache`: share recorded search responses so a run replays on another machine.

clarify-tui cache export --db sessions/clarify.db --out searches.jsonl
clarify-tui cache import --db other.db searches.jsonl
clarify-tui run ... --search tavily --search-cache replay   # no key needed
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from clarify_tui.argtypes import output_file
from clarify_tui.atomic_write import check_target
from clarify_tui.commands.common import add_db, db_path, open_store

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

console = Console(stderr=True)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("cache", help="export, import or count recorded search responses")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    exp = actions.add_parser("export", help="write the cached responses to a JSONL file")
    exp.add_argument("--out", type=output_file, required=True, help="JSONL file to write")
    imp = actions.add_parser("import", help="add cached responses from a JSONL file")
    imp.add_argument("file", type=Path, help="JSONL file written by cache export")
    stats = actions.add_parser("stats", help="count cached responses per backend")
    for parser in (exp, imp, stats):
        add_db(parser)
        parser.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.search.cache import counts, ensure_table, export_cache, import_cache, read_cache_file

    if args.action == "export":  # refused before the database is opened: --out may name it
        check_target(args.out, protect=[db_path(args)])
    rows = read_cache_file(args.file) if args.action == "import" else None  # a bad file creates no database
    store = open_store(args, must_exist=args.action != "import")
    ensure_table(store.db)
    if args.action == "export":
        n = export_cache(store.db, args.out, protect=[store.path])
        console.print(f"exported {n} cached response(s) to {args.out}")
    elif args.action == "import":
        n = import_cache(store.db, args.file, rows)
        console.print(f"imported {n} cached response(s) into {store.path}")
    else:
        for backend, count in counts(store.db) or [("(empty)", 0)]:
            console.print(f"{backend}: {count}")
    return 0
