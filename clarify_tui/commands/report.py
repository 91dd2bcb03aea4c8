"""`clarify-tui report`: each benchmark's main table as its paper prints it (paper units,
the paper's columns and order), one row per run or per agent, with the sessions left out
and the comparability footnotes; markdown, LaTeX or csv (docs/scoring.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, at_least, open_store, require_runs, run_name

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="the papers' main tables (markdown, LaTeX, csv) from saved sessions")
    add_db(p)
    p.add_argument("--run", dest="runs", action="extend", nargs="+", type=run_name, default=None, metavar="NAME",
                   help="only these runs (--run a b, or repeat --run)")
    p.add_argument("--by", default="run", choices=("run", "agent"), help="one row per run (default) or per agent")
    p.add_argument("--format", default="markdown", choices=("markdown", "latex", "csv"))
    p.add_argument("--judge", default=None,
                   help="use the verdicts of this judge spec (default: the latest verdict of any judge)")
    p.add_argument("--bootstrap", type=at_least(0), default=10_000, help="CTS paired bootstrap resamples (default 10000)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters import paper_report
    from clarify_tui.metrics import load_sessions
    from clarify_tui.metrics.paper_tables import build_tables, session_settings

    store = open_store(args, must_exist=True)
    require_runs(store, args.runs)
    loaded = load_sessions(store, runs=args.runs, judge=args.judge)
    sessions = [s for s in loaded if not s.result.informed]
    if len(sessions) < len(loaded):
        print(f"{len(loaded) - len(sessions)} informed session(s) left out (their player had seen hidden "
              "information), as `score` leaves them out", file=sys.stderr)
    if args.runs:
        missing = [r for r in args.runs if not any(s.run == r for s in sessions)]
        if missing:
            raise ValueError(f"--run: no sessions in {store.path} for {', '.join(missing)}")
    if not sessions:
        print("no sessions match", file=sys.stderr)
        return 1
    tables = build_tables(sessions, session_settings(store.conn, sessions), by=args.by,
                          bootstrap=args.bootstrap, seed=args.seed)
    render = {"markdown": paper_report.markdown, "latex": paper_report.latex, "csv": paper_report.csv_text}
    sys.stdout.write(render[args.format](tables))
    return 0
