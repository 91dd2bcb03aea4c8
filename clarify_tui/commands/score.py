"""`clarify-tui score`: every metric of the three papers over saved sessions.

`--format table` prints a rich table per benchmark (metrics as rows, groups as columns),
`json` the object of metrics/report.py (ScoreReport), `csv` one row per group with dotted column names.
`--from-export FILE` scores an `export --format jsonl` file instead of the database, with
the same numbers (docs/scoring.md).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import multiprocessing
import os
import sys
from collections.abc import Iterator
from concurrent.futures import Executor
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from clarify_tui.commands.common import BENCHMARKS, add_db, add_runs, at_least
from clarify_tui.metrics.profiles import DEFAULT_SUBSET, PROFILES, SUBSETS
from clarify_tui.metrics.report import format_metric
from clarify_tui.metrics.roles import mixed_role_lines
from clarify_tui.metrics.table_rows import COMMON_ROWS, benchmark_rows, group_label, profile_cell
from clarify_tui.protocols import registry
from clarify_tui.protocols.cts.metric_model import CTSMetrics
from clarify_tui.protocols.discobench.metric_model import DiscoBenchMetrics

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from clarify_tui.commands.common import Subparsers
    from clarify_tui.metrics.model import Group, RoleTokens, Scores
    from clarify_tui.protocols.cts.metric_model import Turn
    from clarify_tui.protocols.discobench.metric_model import AmbiguityRow

WIDE_GROUPS = 4  # more groups than this: one row per group instead of one column


def register(sub: Subparsers) -> None:
    p = sub.add_parser("score", help="score saved sessions with the papers' metrics")
    add_db(p)
    p.add_argument(
        "--from-export",
        type=Path,
        default=None,
        metavar="FILE",
        help="score an `export --format jsonl` file instead of the database",
    )
    add_runs(p)
    p.add_argument("--benchmark", default=None, choices=BENCHMARKS, help="only this benchmark")
    p.add_argument("--by", default="run", choices=("run", "agent", "mode", "annotator"), help="group sessions by")
    p.add_argument(
        "--include-informed",
        action="store_true",
        help="keep sessions whose player had seen hidden information (a person's fork made in "
        "replay, after the gold answer was on screen); left out of every group by default",
    )
    p.add_argument("--format", default="table", choices=("table", "json", "csv"))
    p.add_argument(
        "--judge", default=None, help="use the verdicts of this judge spec (default: the latest verdict of any judge)"
    )
    p.add_argument(
        "--profile-subset",
        choices=SUBSETS,
        default=DEFAULT_SUBSET,
        help="DiscoBench profiles over the reached ambiguous checkpoints every group reached (common: "
        "the paper's Tables 3 and 5) or each group's own (all); default: %(default)s",
    )
    p.add_argument(
        "--profile-k",
        type=profile_k,
        default=None,
        metavar="K|data",
        help="DiscoBench profiles: searches above K make a guess search-heavy (default: the paper's "
        "K = 3 for every group; data = one K for all groups scored together, the median search "
        "count of their successful no-ask ambiguous checkpoints, as the paper derived its K)",
    )
    p.add_argument(
        "--bootstrap",
        type=at_least(0),
        default=10_000,
        help="CTS paired bootstrap resamples (default 10000; 0: no interval)",
    )
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument(
        "--jobs",
        type=jobs,
        default=1,
        metavar="N|auto",
        help="processes for the CTS bootstrap (default 1; auto = the CPU count; results do not depend on it)",
    )
    p.set_defaults(func=main)


def jobs(text: str) -> int:
    """--jobs: a count >= 1, or `auto` (0 inside: the CPU count)."""
    if text == "auto":
        return 0
    try:
        return at_least(1)(text)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(f"{exc} (or auto for the CPU count)") from None


def _subset_words(m: DiscoBenchMetrics) -> str:
    """Which checkpoints the profile rows count, as the caption says it."""
    if m.profile_subset == "common":
        return (
            f"the common subset: the {m.profile_n} reached ambiguous checkpoint(s) every group reached "
            "(--profile-subset all: each group's own)"
        )
    return "each group's reached ambiguous checkpoints"


def profile_k(text: str) -> float | str:
    """An argparse type: "data" or a number >= 0 (argparse names the flag in its error)."""
    if text == "data":
        return text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number or 'data', got '{text}'") from None
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {text}")
    if value == float("inf"):  # every guess would be "few searches", and --format json would print Infinity
        raise argparse.ArgumentTypeError(f"must be a finite number, got {text}")
    return int(value) if value.is_integer() else value


def main(args: argparse.Namespace) -> int:
    from clarify_tui import api

    with _bootstrap_pool(args.jobs) as executor:
        report = api.scores(
            args.db,
            runs=args.runs,
            benchmark=args.benchmark,
            by=args.by,
            judge=args.judge,
            include_informed=args.include_informed,
            profile_k=args.profile_k,
            bootstrap=args.bootstrap,
            seed=args.seed,
            from_export=args.from_export,
            executor=executor,
            profile_subset=args.profile_subset,
            on_note=lambda note: print(note, file=sys.stderr),
        )
    if args.format == "json":
        json.dump(report.to_json(), sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    elif args.format == "csv":
        write_csv(report, sys.stdout)
    else:
        print_tables(report, args.by)
        for line in epoch_lines(report):
            print(line)
    return 0


def epoch_lines(report: Scores) -> list[str]:
    """One line per group played over several epochs: mean, std over epochs, pass^k."""
    lines = []
    for g in report.groups:
        ep = g.metrics.epochs
        if ep is None:
            continue
        label = ", ".join(f"{k}={v}" for k, v in g.key.items())
        line = f"{g.benchmark} {label}: {ep.n_epochs} epochs, mean {ep.mean:.3f}, std over epochs {ep.std:.3f}"
        if ep.pass_k:
            line += ", " + ", ".join(f"pass^{k} {v:.3f}" for k, v in ep.pass_k.items() if v is not None)
        lines.append(line)
    return lines


@contextlib.contextmanager
def _bootstrap_pool(jobs: int | None) -> Iterator[Executor | None]:
    """A process pool for the CTS bootstrap chunks; workers start only if a CI is computed."""
    jobs = jobs or (os.cpu_count() or 1)
    if jobs <= 1:
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else None)
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context)
    try:
        yield pool
    finally:
        pool.shutdown(cancel_futures=True)


def write_csv(report: Scores, out: TextIO) -> None:
    """One row per group; the metrics as dotted columns, from their JSON (as `--format json`)."""
    from clarify_tui.metrics import flatten

    rows = []
    for g in report.groups:
        row = {
            "benchmark": g.benchmark,
            **{f"key.{k}": v for k, v in g.key.items()},
            "n_sessions": g.n_sessions,
            "comparable": g.comparable,
            "deviations": "; ".join(g.deviations),
        }
        row.update(flatten(g.metrics.to_json()))
        rows.append(row)
    columns: list[str] = []
    for row in rows:
        columns += [c for c in row if c not in columns]
    writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if v is None else v) for k, v in row.items()})


def print_tables(report: Scores, by: str) -> None:
    from rich.table import Table

    from clarify_tui.commands.listing import console as report_console

    console = report_console()
    if not report.groups:
        console.print("[yellow]no sessions match[/yellow]")
        return
    for benchmark in BENCHMARKS:
        groups = [g for g in report.groups if g.benchmark == benchmark]
        if not groups:
            continue
        for line in mixed_role_lines(groups, by):  # a person's sessions are never pooled with others
            console.print(f"{benchmark}: {line}", style="bold", markup=False, highlight=False)
        if len(groups) > WIDE_GROUPS:
            console.print(_summary_table(benchmark, by, groups))
            _print_footnotes(console, groups)
            continue
        caption = None
        disco = [m for g in groups if isinstance(m := g.metrics, DiscoBenchMetrics)]
        if len(disco) == len(groups):  # DiscoBench's profiles
            ks = ", ".join(f"{group_label(g)}: {m.profile_k} ({m.profile_k_source})" for g, m in zip(groups, disco))
            caption = f"profiles: {_subset_words(disco[0])}; search-heavy above K = {ks}"
        table = Table(title=f"{benchmark} — by {by}", title_justify="left", caption=caption, caption_justify="left")
        table.add_column("metric")
        for g in groups:
            table.add_column(group_label(g), justify="right")
        table.add_row("sessions scored", *[str(g.n_sessions) for g in groups])
        rows = benchmark_rows(benchmark, groups) + COMMON_ROWS
        for key, label, kind in rows:
            cells = []
            for g in groups:
                m = g.metrics
                if key == "delta_vs_orig" and isinstance(m, CTSMetrics) and m.n_orig and not m.n_clarified:
                    cells.append("(orig baseline)")
                else:
                    cells.append(format_metric(m.value(key), kind))
            table.add_row(label, *cells)
        for role in ("agent", "user", "judge"):
            table.add_row(
                f"  {role} in/out/USD",
                *[_role_cell(g.metrics.usage.tokens_by_role.get(role)) for g in groups],
            )
        if len(disco) == len(groups):
            table.add_section()
            for name in PROFILES:
                table.add_row(f"{name} share/pass", *[profile_cell(m.profiles[name]) for m in disco])
            types = sorted({t for m in disco for t in m.by_ambiguity_type})
            if types:
                table.add_section()
            for t in types:
                table.add_row(f"{t} recall/pass", *[_type_cell(m.by_ambiguity_type.get(t)) for m in disco])
        turned = [m.per_turn if isinstance(m := g.metrics, CTSMetrics) else [] for g in groups]
        if any(turned):
            table.add_section()
            for i in range(max(len(turns) for turns in turned)):
                table.add_row(f"turn {i + 1} unk/region/reg-unk", *[_turn_cell(turns[i : i + 1]) for turns in turned])
        console.print(table)
        notes = []
        for g in groups:
            x = g.metrics.excluded
            extra = [f"{n} {k}" for k, n in (("running", x.running), ("unjudged", x.unjudged)) if n]
            if extra:
                notes.append(f"{group_label(g)}: " + ", ".join(extra))
        if notes:
            console.print("[dim]excluded: " + "; ".join(notes) + "[/dim]")
        unpriced = sorted({m for g in groups for m in g.metrics.usage.unpriced_models})
        if unpriced:
            console.print(
                f"unpriced (no price in clarify.toml [prices] or genai-prices; cost unknown, not $0): "
                f"{', '.join(unpriced)}",
                markup=False,
                highlight=False,
            )
        _print_footnotes(console, groups)


def _print_footnotes(console: Console, groups: list[Group]) -> None:
    """The comparability footnotes under a benchmark's table (metrics/comparability.py)."""
    from clarify_tui.metrics.comparability import footnotes

    for line in footnotes(groups, group_label):
        console.print(line, style="yellow", markup=False, highlight=False)


def _summary_table(benchmark: str, by: str, groups: list[Group]) -> Table:
    """Many groups: one row per group with the headline metrics only."""
    from rich import box
    from rich.table import Table

    from clarify_tui.plural import plural

    table = Table(
        title=f"{benchmark} — by {by} ({plural(len(groups), 'group')}; all metrics: --format json or csv)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    table.add_column(by, overflow="fold", min_width=8)
    table.add_column("n", justify="right", no_wrap=True)
    headers = registry.get(benchmark).summary_columns
    columns = [(key, label, kind) for key, label, kind in benchmark_rows(benchmark, groups) if key in headers]
    for key, _label, kind in columns:
        table.add_column(headers[key], justify="right", no_wrap=kind != "delta", overflow="fold")
    table.add_column("err", justify="right", no_wrap=True)
    table.add_column("abd", justify="right", no_wrap=True)
    for g in groups:
        m = g.metrics
        table.add_row(
            group_label(g),
            str(g.n_sessions),
            *[format_metric(m.value(key), kind).replace(" (n=", "\n(n=") for key, _label, kind in columns],
            str(m.excluded.errored),
            str(m.excluded.abandoned),
        )
    return table


def _role_cell(u: RoleTokens | None) -> str:
    if u is None:
        return "-"
    cost = "unpriced" if u.cost_usd is None else f"{u.cost_usd:.4f}"
    return f"{u.tokens_in}/{u.tokens_out}/{cost}"


def _type_cell(t: AmbiguityRow | None) -> str:
    if t is None:
        return "-"
    recall = "-" if t.detection_recall is None else f"{t.detection_recall:.2f}"
    rate = "-" if t.pass_rate is None else f"{t.pass_rate:.2f}"
    return f"{recall} / {rate} (n={t.n})"


def _turn_cell(turn: list[Turn]) -> str:
    if not turn:
        return "-"
    t = turn[0]
    return " / ".join(
        "-" if v is None else f"{v:.2f}" for v in (t.ua_unknown_rate, t.cq_region_rate, t.region_only_unknown_rate)
    )
