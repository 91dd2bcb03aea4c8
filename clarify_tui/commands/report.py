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
    from clarify_tui.metrics.paper_tables import PaperTable
    from clarify_tui.store import Store


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
    p.add_argument("--whatif", action="store_true",
                   help="add each run's what-if columns (forks, flips, value of asking with its 95%% CI) "
                        "from the forks `whatif` stored, one group per intervention (docs/whatif.md)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters import paper_report
    from clarify_tui.metrics import load_sessions
    from clarify_tui.metrics.paper_tables import build_tables, session_settings
    from clarify_tui.errors import UsageError

    if args.whatif and args.by != "run":
        raise UsageError("--whatif: what-if forks belong to a run; use it with --by run (the default)")
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
            raise UsageError(f"--run: no sessions in {store.path} for {', '.join(missing)}")
    if not sessions:
        print("no sessions match", file=sys.stderr)
        return 1
    tables = build_tables(sessions, session_settings(store.conn, sessions), by=args.by,
                          bootstrap=args.bootstrap, seed=args.seed)
    if args.whatif:
        add_whatif_columns(store, tables, sorted({s.run for s in sessions}), args.bootstrap, args.seed)
    render = {"markdown": paper_report.markdown, "latex": paper_report.latex, "csv": paper_report.csv_text}
    sys.stdout.write(render[args.format](tables))
    return 0


def add_whatif_columns(store: Store, tables: list[PaperTable], runs: list[str], bootstrap: int, seed: int) -> None:
    """Each run's stored forks, summarized by the code `whatif --format json` prints."""
    from clarify_tui.metrics.whatif_columns import add_whatif
    from clarify_tui.whatif import interventions, stored, summarize

    summaries = {run: {i: summarize(stored(store, run, i), resamples=bootstrap, seed=seed)
                       for i in interventions(store, run)} for run in runs}
    add_whatif(tables, summaries, bootstrap, seed)
