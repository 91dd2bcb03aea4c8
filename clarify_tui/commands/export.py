"""`clarify-tui export`: sessions out of the database in standard files."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from clarify_tui.argtypes import names_a_folder
from clarify_tui.atomic_write import OutputError, atomic_output, check_target
from clarify_tui.commands.common import add_db, db_path, open_store, require_runs, run_name
from clarify_tui.errors import UsageError
from clarify_tui.plural import plural

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.store import Store


def register(sub: Subparsers) -> None:
    p = sub.add_parser("export", help="write sessions to stdout (or --out) in a standard format")
    add_db(p)
    p.add_argument("--format", default="jsonl", help="jsonl (full sessions) and the formats listed by --help-formats")
    p.add_argument("--help-formats", action=_HelpFormats, help="list the formats with what each writes, and exit")
    p.add_argument(
        "--run", dest="runs", action="append", type=run_name, default=None, help="only these runs (repeatable)"
    )
    p.add_argument("--out", default=None, help="file to write (default: stdout)")
    p.add_argument(
        "--include-hidden",
        action="store_true",
        help="write the hidden fields of encrypted releases (InteractComp) in plain text; "
        "by default they stay encrypted with the release's own canary",
    )
    p.set_defaults(func=main)


class _HelpFormats(argparse.Action):
    """`--help-formats`: what each --format writes (the --format help pointed here before it existed)."""

    def __init__(self, option_strings: list[str], dest: str, **kw: object) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=kw.get("help"))  # type: ignore[arg-type]

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from clarify_tui.exporters import FORMATS

        width = max(map(len, FORMATS))
        print("\n".join(f"{name:<{width}}  {what}" for name, what in FORMATS.items()))
        parser.exit()


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters import EXPORTERS

    if args.format == "inspect":
        return export_inspect(args)
    exporter = EXPORTERS.get(args.format)
    if exporter is None:
        raise UsageError(f"unknown export format '{args.format}'; choose one of: {', '.join(EXPORTERS)}, inspect")
    if args.out:  # refused before the database is opened: --out may name it
        if names_a_folder(args.out):
            raise OutputError(
                f"--out {args.out} ends in '/': it names a folder, and --format {args.format} writes "
                f"one file; name a file (e.g. {args.out}sessions.{_suffix(args.format)})"
            )
        check_target(Path(args.out), protect=[db_path(args)])
    store = open_store(args, must_exist=True)
    require_runs(store, args.runs)
    check_holds_protocol(store, args.format, args.runs)
    if not args.out:
        exporter(store, args.runs, sys.stdout, include_hidden=args.include_hidden)
        return 0
    with atomic_output(Path(args.out), protect=[store.path], newline="") as out:
        written = exporter(store, args.runs, out, include_hidden=args.include_hidden)
    # on stderr, as export's other messages (notes, inspect's files): stdout is for data
    print(f"wrote {plural(written, 'session')} to {args.out} ({args.format})", file=sys.stderr)
    return 0


def _suffix(format_: str) -> str:
    return "jsonl" if format_ in ("jsonl", "cts-candidates") else "csv"


# formats of one benchmark's harness: on a database without its sessions they wrote an empty file, exit 0
_ONE_PROTOCOL = {"interactcomp-csv": "interactcomp", "cts-candidates": "cts"}


def check_holds_protocol(store: Store, format_: str, runs: list[str] | None) -> None:
    """Refuse a one-benchmark format (`interactcomp-csv`, `cts-candidates`) when the selected
    sessions hold none of that benchmark, rather than write an empty file and exit 0."""
    protocol = _ONE_PROTOCOL.get(format_)
    if protocol is None or store.sessions(runs=runs, protocol=protocol):
        return
    where = f"run(s) {', '.join(runs)} of {store.path}" if runs else str(store.path)
    raise UsageError(
        f"nothing to export: --format {format_} writes {protocol} sessions and {where} holds none; nothing was written"
    )


def export_inspect(args: argparse.Namespace) -> int:
    """Inspect AI `.eval` logs, one per run, into the folder --out (exporters/inspect_eval.py)."""
    from pathlib import Path

    from clarify_tui.exporters.inspect_eval import export_inspect as write

    if not args.out:
        raise UsageError("export --format inspect writes one .eval log per run: give --out FOLDER")
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise OutputError(
            f"--out {out} is a file; export --format inspect writes one .eval log per run into a folder: name a folder"
        )
    store = open_store(args, must_exist=True)
    require_runs(store, args.runs)
    try:
        written = write(store, args.runs, out, include_hidden=args.include_hidden)
    except OSError as exc:
        raise OutputError(f"cannot write into {out}: {exc.strerror or exc}") from exc
    for path in written:
        print(path, file=sys.stderr)
    if not written:
        print("no finished sessions to export", file=sys.stderr)
    return 0
