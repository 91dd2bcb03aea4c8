"""`clarify-tui sweep FILE.toml`: a matrix of runs (benchmarks x agents x settings) played
at once under one budget, resumable, shardable across machines (docs/sweeps.md)."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from rich.console import Console

from clarify_tui.commands.common import add_db, at_least, db_path, file_path
from clarify_tui.errors import UsageError
from clarify_tui.protocols import registry

if TYPE_CHECKING:
    from clarify_tui.api import PreparedRun
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.store import Store
    from clarify_tui.sweep.cells import Cell, Sweep
    from clarify_tui.sweep.play import CellRun, SweepBudget, SweepOutcome

console = Console(stderr=True, soft_wrap=True)

EXIT_ERRORED = 1  # as `run`: a session errored (or, with --fail-on-error, more than it allows failed)
EXIT_BUDGET = 3  # --max-cost stopped the sweep before every session was played


def shard(text: str) -> tuple[int, int]:
    """An argparse type: I/N with 1 <= I <= N."""
    index, sep, count = text.partition("/")
    try:
        i, n = int(index), int(count)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected I/N (e.g. 2/8), got '{text}'") from None
    if not sep or n < 1 or not 1 <= i <= n:
        raise argparse.ArgumentTypeError(f"expected I/N with 1 <= I <= N (e.g. 2/8), got '{text}'")
    return i, n


def dollars(text: str) -> float:
    """An argparse type: a positive amount of US dollars."""
    try:
        value = float(text.lstrip("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected dollars, e.g. 25 or 2.50, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text}")
    return value


def register(sub: Subparsers) -> None:
    from clarify_tui.agent_faults import ANY, tolerance

    p = sub.add_parser("sweep", help="play a matrix of runs from a TOML file (resumable, shardable)")
    p.add_argument(
        "file",
        type=file_path,
        metavar="FILE.toml",
        help="the sweep: [sweep] with benchmarks, agents, ... "
        "(lists multiply, scalars apply to every cell; docs/sweeps.md)",
    )
    add_db(p)
    p.add_argument(
        "--dry-run",
        action="store_true",
        help="print the plan (cells, sessions, model calls per endpoint, cost) and play nothing",
    )
    p.add_argument(
        "--shard",
        type=shard,
        default=None,
        metavar="I/N",
        help="play the I-th of N deterministic parts of the sessions (one database per shard; "
        "`clarify-tui merge` joins them; docs/scale.md)",
    )
    p.add_argument(
        "--concurrency",
        type=at_least(1),
        default=8,
        metavar="N",
        help="sessions at once across every cell (default 8); also each model endpoint's call limit "
        "unless the config pins it",
    )
    p.add_argument(
        "--max-cost",
        type=dollars,
        default=None,
        metavar="USD",
        help="start no session that would take this invocation's spend past USD; run the same command again to go on",
    )
    p.add_argument(
        "--retry-errored",
        action="store_true",
        help="play the errored sessions of every cell again (the old ones are kept as superseded), "
        "as `run --resume --retry-errored`",
    )
    p.add_argument(
        "--fail-on-error",
        type=tolerance,
        nargs="?",
        const=ANY,
        default=None,
        metavar="N|FRACTION",
        help="exit 1 only when more than N sessions (or FRACTION of them) errored or ended on agent "
        "output that could not be used (bare: any); default: exit 1 when any session errored",
    )
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.store import Store
    from clarify_tui.sweep.estimate import plan_lines
    from clarify_tui.sweep.play import check_cells_resumable, place

    sweep = read_sweep(args.file)
    prepared = prepare_cells(sweep, args)
    path = db_path(args)
    if args.dry_run:
        store = Store(path, readonly=True, existing=True) if path.is_file() else None
        try:
            runs = place(prepared, store, args.shard, args.retry_errored)
            print("\n".join(plan_lines(store, runs, args.shard, args.concurrency, args.max_cost)))
        finally:
            if store is not None:
                store.close()
        return 0
    store = Store(path)
    runs = place(prepared, store, args.shard, args.retry_errored)
    check_cells_resumable(store, runs)
    return play(store, sweep, runs, args)


def run_parser() -> argparse.ArgumentParser:
    """`clarify-tui run`'s own parser: a cell is read by it, so it means what `run` means."""
    from clarify_tui.commands import run

    parent = argparse.ArgumentParser(prog="clarify-tui")
    run.register(parent.add_subparsers())
    parser = next(a for a in parent._actions if isinstance(a, argparse._SubParsersAction)).choices["run"]
    return parser


def run_settings(parser: argparse.ArgumentParser) -> set[str]:
    """The keys a sweep file may set: `run`'s long flags without dashes."""
    return {
        opt[2:].replace("-", "_")
        for a in parser._actions
        for opt in a.option_strings
        if opt.startswith("--") and opt != "--help"
    }


def read_sweep(file: Path) -> Sweep:
    from clarify_tui.sweep.cells import load_sweep

    return load_sweep(file, run_settings(run_parser()))


def cell_args(parser: argparse.ArgumentParser, cell: Cell) -> argparse.Namespace:
    """The cell as `run` would read it; a value `run` refuses is refused naming the cell."""

    def refuse(message: str) -> NoReturn:
        raise UsageError(f"cell {cell.name}: {message}")

    parser.error = refuse  # type: ignore[method-assign]  # argparse would print run's usage and exit
    return parser.parse_args(cell.argv())


def prepare_cells(sweep: Sweep, args: argparse.Namespace) -> list[tuple[Cell, PreparedRun]]:
    """Every cell checked by `run`'s own checks and built (`api.prepare_run` of its
    `RunRequest`) before anything plays: a cell that is not valid for its benchmark is
    refused, naming it."""
    from dataclasses import replace

    from clarify_tui import api
    from clarify_tui.commands.run import (
        check_flag_pairs,
        compat_changes_nothing,
        episode_config,
        other_benchmarks_flags,
        run_request,
    )

    parser = run_parser()
    out = []
    for cell in sweep.cells:
        a = cell_args(parser, cell)
        try:
            check_flag_pairs(a)
            config = episode_config(a)
            registry.get(a.benchmark).check_config(config)
            stray = other_benchmarks_flags(a)
            if stray:
                flags = ", ".join(f"{flag} ({owner} only)" for flag, owner in stray)
                raise UsageError(
                    f"{flags} does not apply to {a.benchmark}; set it under [sweep.{_owner_key(stray)}] "
                    "so it reaches only that benchmark's cells"
                )
            if a.compat is not None and (idle := compat_changes_nothing(a)):
                console.print(f"warning: cell {cell.name}: --compat {a.compat} {idle}", markup=False, highlight=False)
            request = replace(  # what the sweep sets for every cell (cells.py refuses --resume and --take-over)
                run_request(a, config),
                db=args.db,
                name=cell.name,
                concurrency=args.concurrency,
                argv=[*getattr(args, "argv", []), f"(cell {cell.name})"],
            )
            prepared = api.prepare(request)
        except ValueError as exc:
            raise UsageError(f"cell {cell.name}: {exc}") from None
        prepared.spec.run_id = cell.run_id
        out.append((cell, prepared))
    return out


def _owner_key(stray: list[tuple[str, str]]) -> str:
    return {"InteractComp": "interactcomp", "DiscoBench": "discobench", "CTS": "cts"}.get(stray[0][1], stray[0][1])


def play(store: Store, sweep: Sweep, runs: list[CellRun], args: argparse.Namespace) -> int:
    from clarify_tui.commands.sweep_progress import SweepProgress
    from clarify_tui.sweep.play import SweepBudget, play_cells

    budget = SweepBudget(concurrency=args.concurrency, max_cost=args.max_cost)
    label = sweep.name + (f" shard {args.shard[0]}/{args.shard[1]}" if args.shard else "")
    left = sum(r.to_play for r in runs)
    console.print(
        f"sweep {label}: {len(runs)} cell(s), {left} session(s) to play"
        + (f" ({sum(r.done for r in runs)} already done)" if any(r.done for r in runs) else ""),
        markup=False,
        highlight=False,
    )
    progress = SweepProgress(label, console, {r.cell.name: r.to_play for r in runs}, lambda: budget.spent)
    with progress:
        outcome = asyncio.run(
            play_cells(
                store,
                runs,
                budget,
                on_session_done=progress.advance,
                notify=lambda line: console.print(line, markup=False, highlight=False),
            )
        )
    return summarize(store, sweep, runs, budget, outcome, args)


def summarize(
    store: Store,
    sweep: Sweep,
    runs: list[CellRun],
    budget: SweepBudget,
    outcome: SweepOutcome,
    args: argparse.Namespace,
) -> int:
    """One line per cell, the totals, what stopped the sweep and how to go on; the exit code."""
    from clarify_tui.redaction import redact
    from clarify_tui.sweep.failures import fail_on_error_exceeded

    names = [r.cell.name for r in runs]
    every = [s for s in store.sessions(runs=names) if s.status in ("completed", "errored")]
    if args.shard:
        mine = {
            (r.cell.name, t.id, e)
            for r in runs
            for e in range(r.prepared.spec.epochs)
            for t in r.prepared.tasks
            if r.keep is None or r.keep(t.id, e)
        }
        every = [s for s in every if (s.run, s.task_id, s.epoch) in mine]
    for r in runs:
        cell = [s for s in every if s.run == r.cell.name]
        done = sum(1 for s in cell if s.status == "completed")
        line = f"  {r.cell.name}: {done} completed, {len(cell) - done} errored of {r.wanted}"
        if r.cell.name in outcome.failures:
            line += f"; stopped: {redact(str(outcome.failures[r.cell.name]))}"
        console.print(line, markup=False, highlight=False)
    completed = sum(1 for s in every if s.status == "completed")
    errored = len(every) - completed
    total = sum(r.wanted for r in runs)
    unpriced = f" ({budget.unpriced_calls} unpriced model call(s) not counted)" if budget.unpriced_calls else ""
    console.print(
        f"sweep {sweep.name}: {completed} completed, {errored} errored of {total} session(s); "
        f"${budget.spent:.4f} spent{unpriced}",
        markup=False,
        highlight=False,
    )
    again = (
        f"clarify-tui sweep {args.file}"
        + (f" --db {args.db}" if args.db else "")
        + (f" --shard {args.shard[0]}/{args.shard[1]}" if args.shard else "")
    )
    missing = total - len(every)
    if outcome.failures:
        console.print(
            f"{len(outcome.failures)} cell(s) stopped; once the cause is fixed, play their errored "
            f"sessions again with: {again} --retry-errored",
            markup=False,
            highlight=False,
        )
    if budget.stopped:
        console.print(
            f"stopped by {budget.stopped}. {missing} session(s) not played; go on with: {again} "
            "--max-cost MORE (it plays only what is missing)",
            markup=False,
            highlight=False,
        )
    elif missing:
        console.print(f"{missing} session(s) not played; go on with: {again}", markup=False, highlight=False)
    db = store.path
    console.print(
        f"saved to {db}; the table: clarify-tui report --db {db} --sweep {args.file}", markup=False, highlight=False
    )
    if outcome.failures:  # a cell stopped (its endpoint down): as `run`
        return EXIT_ERRORED
    if args.fail_on_error is not None:
        over, bad, ended = fail_on_error_exceeded(every, args.fail_on_error)
        if over:
            console.print(
                f"--fail-on-error {args.fail_on_error:g}: {bad} of {ended} session(s) failed (errored, "
                "or agent output that could not be used)",
                markup=False,
                highlight=False,
            )
            return EXIT_ERRORED
    elif errored:
        return EXIT_ERRORED
    if budget.stopped:
        return EXIT_BUDGET
    return 0
