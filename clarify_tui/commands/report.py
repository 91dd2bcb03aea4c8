"""`clarify-tui report`: each benchmark's main table as its paper prints it (paper units,
the paper's columns and order), one row per run or per agent, with the sessions left out
and the comparability footnotes; markdown, LaTeX or csv (docs/scoring.md)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from clarify_tui.commands.common import add_db, add_runs, at_least, file_path, open_store, require_runs
from clarify_tui.errors import UsageError

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.metrics.paper_tables import PaperTable
    from clarify_tui.store import Store
    from clarify_tui.sweep.cells import Sweep


def register(sub: Subparsers) -> None:
    p = sub.add_parser("report", help="the papers' main tables (markdown, LaTeX, csv) from saved sessions")
    add_db(p)
    add_runs(p)
    p.add_argument("--by", default="run", choices=("run", "agent"), help="one row per run (default) or per agent")
    p.add_argument("--format", default="markdown", choices=("markdown", "latex", "csv"))
    p.add_argument(
        "--judge", default=None, help="use the verdicts of this judge spec (default: the latest verdict of any judge)"
    )
    p.add_argument(
        "--bootstrap", type=at_least(0), default=10_000, help="CTS paired bootstrap resamples (default 10000)"
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument(
        "--whatif",
        action="store_true",
        help="add each run's what-if columns (forks, flips, value of asking with its 95%% CI) "
        "from the forks `whatif` stored, one group per intervention (docs/whatif.md)",
    )
    p.add_argument(
        "--labels",
        action="store_true",
        help="add each run's should-it-have-asked labels: count, annotators, kappa with its CI, the share "
        "of points needing an ask, auc_vs_flips (docs/labels.md)",
    )
    p.add_argument(
        "--audit",
        action="store_true",
        help="add each run's simulator audit: asks audited, agreement, kappa, flips, accuracy shift (docs/audit.md)",
    )
    p.add_argument(
        "--sweep",
        default=None,
        type=file_path,
        metavar="FILE.toml",
        help="the sweep's matrix in one table: a row per agent, a column group per benchmark (docs/sweeps.md)",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.exporters import paper_report
    from clarify_tui.metrics import load_sessions
    from clarify_tui.metrics.paper_tables import build_tables, session_settings
    from clarify_tui.metrics.records import is_informed

    for flag, what in (("whatif", "what-if forks"), ("labels", "labels"), ("audit", "audit answers")):
        if getattr(args, flag, False) and args.by != "run":
            raise UsageError(f"--{flag}: {what} belong to a run; use it with --by run (the default)")
    store = open_store(args, must_exist=True)
    sweep = sweep_cells(args, store) if args.sweep else None
    cells = sweep.cells if sweep is not None else None
    require_runs(store, args.runs)
    loaded = load_sessions(store, runs=args.runs, judge=args.judge)
    sessions = [s for s in loaded if not is_informed(s)]  # a running one is counted `running`
    if len(sessions) < len(loaded):
        print(
            f"{len(loaded) - len(sessions)} informed session(s) left out (their player had seen hidden "
            "information), as `score` leaves them out",
            file=sys.stderr,
        )
    if args.runs:
        missing = [r for r in args.runs if not any(s.run == r for s in sessions)]
        if missing:
            raise UsageError(f"--run: no sessions in {store.path} for {', '.join(missing)}")
    if not sessions:
        print("no sessions match", file=sys.stderr)
        return 1
    tables = build_tables(
        sessions, session_settings(store.conn, sessions), by=args.by, bootstrap=args.bootstrap, seed=args.seed
    )
    if args.whatif or (cells is not None and has_forks(store, sorted({s.run for s in sessions}))):
        add_whatif_columns(store, tables, sorted({s.run for s in sessions}), args.bootstrap, args.seed)
    if getattr(args, "labels", False):
        add_label_columns(store, tables, sorted({s.run for s in sessions}), args.bootstrap, args.seed)
    if getattr(args, "audit", False):
        add_audit_columns(store, tables, sorted({s.run for s in sessions}))
    if cells is not None:
        from clarify_tui.sweep.table import sweep_table

        tables = [sweep_table(sweep.name, cells, tables)]  # type: ignore[union-attr]  # cells: a sweep's
    render = {"markdown": paper_report.markdown, "latex": paper_report.latex, "csv": paper_report.csv_text}
    sys.stdout.write(render[args.format](tables))
    return 0


def sweep_cells(args: argparse.Namespace, store: Store) -> Sweep:
    """`--sweep FILE`: its cells' runs become the selection (the cells the database holds)."""
    from clarify_tui.commands.sweep import read_sweep

    if args.runs or args.by != "run":
        raise UsageError("--sweep chooses the runs and the rows (a row per agent): drop --run and --by")
    sweep = read_sweep(args.sweep)
    known = set(store.run_names())
    cells = [c for c in sweep.cells if c.name in known]
    if not cells:
        raise UsageError(
            f"no cell of the sweep {sweep.name} ({args.sweep}) in {store.path}: play it with "
            f"`clarify-tui sweep {args.sweep} --db {store.path}` (or merge its shards)"
        )
    args.runs = [c.name for c in cells]
    sweep.cells = cells
    return sweep


def has_forks(store: Store, runs: list[str]) -> bool:
    from clarify_tui.whatif_results import interventions

    return any(interventions(store, run) for run in runs)


def add_whatif_columns(store: Store, tables: list[PaperTable], runs: list[str], bootstrap: int, seed: int) -> None:
    """Each run's stored forks, summarized by the code `whatif --format json` prints."""
    from clarify_tui.metrics.whatif_columns import add_whatif
    from clarify_tui.whatif_results import interventions, stored, summarize

    summaries = {
        run: {i: summarize(stored(store, run, i), resamples=bootstrap, seed=seed) for i in interventions(store, run)}
        for run in runs
    }
    add_whatif(tables, summaries, bootstrap, seed)


def add_label_columns(store: Store, tables: list[PaperTable], runs: list[str], bootstrap: int, seed: int) -> None:
    """Each run's labels, summarized by the code `labels --run RUN --format json` prints."""
    from clarify_tui.labels.summary import labels_summary
    from clarify_tui.metrics.human_columns import add_labels

    summaries = {
        run: labels_summary(store, run, resamples=bootstrap, seed=seed)
        if store.work.answers(run=run, kind="labels")
        else None
        for run in runs
    }
    add_labels(tables, summaries, bootstrap, seed)


def audit_summaries(store: Store, runs: list[str]) -> dict[str, Any]:
    """`audit_summary(store, run)` of clarify_tui.audit (the audit's own JSON), for each run;
    None for every run while that package is not installed in this tree."""
    import importlib
    import importlib.util

    if importlib.util.find_spec("clarify_tui.audit") is None:
        return {run: None for run in runs}
    summary = getattr(importlib.import_module("clarify_tui.audit"), "audit_summary", None)
    return {run: summary(store, run) if summary is not None else None for run in runs}


def add_audit_columns(store: Store, tables: list[PaperTable], runs: list[str]) -> None:
    from clarify_tui.metrics.human_columns import add_audit

    add_audit(tables, audit_summaries(store, runs))
