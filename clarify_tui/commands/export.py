"""`clarify-tui export`: sessions out of the database in standard files."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, open_store

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("export", help="write sessions to stdout (or --out) in a standard format")
    add_db(p)
    p.add_argument("--format", default="jsonl", help="jsonl (full sessions) and the formats listed by --help-formats")
    p.add_argument("--run", dest="runs", action="append", default=None, help="only these runs (repeatable)")
    p.add_argument("--out", default=None, help="file to write (default: stdout)")
    p.add_argument("--include-hidden", action="store_true",
                   help="write the hidden fields of encrypted releases (InteractComp) in plain text; "
                        "by default they stay encrypted with the release's own canary")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters import EXPORTERS

    exporter = EXPORTERS.get(args.format)
    if exporter is None:
        raise ValueError(f"unknown export format '{args.format}'; choose one of: {', '.join(EXPORTERS)}")
    store = open_store(args, must_exist=True)
    out = open(args.out, "w", encoding="utf-8", newline="") if args.out else sys.stdout
    try:
        exporter(store, args.runs, out, include_hidden=args.include_hidden)
    finally:
        if args.out:
            out.close()
    return 0
