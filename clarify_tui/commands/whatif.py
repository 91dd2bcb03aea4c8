"""`clarify-tui whatif`: fork a run's sessions at their decision points (ask instead of
guessing) and report which outcomes flip, with a paired bootstrap CI (docs/whatif.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, at_least, file_path, open_store, run_name
from clarify_tui.protocols import registry

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.whatif_results import WhatIfResult


def register(sub: Subparsers) -> None:
    p = sub.add_parser("whatif", help="what if the agent had asked? counterfactual forks of a whole run")
    p.add_argument("--run", required=True, type=run_name, help="the run whose sessions are forked")
    add_db(p)
    p.add_argument(
        "--sessions",
        dest="which",
        default="failed",
        choices=("failed", "all"),
        help="fork the run's failed sessions (default) or all completed ones",
    )
    p.add_argument(
        "--at",
        default="both",
        choices=("answer", "search", "both"),
        help="decision points: the agent's answers, its searches, or both (default)",
    )
    p.add_argument(
        "--intervention",
        default="ask",
        choices=("ask", "answer"),
        help="ask: the agent asks there instead (default); answer: it commits its current best answer",
    )
    p.add_argument("--concurrency", type=at_least(1), default=4, help="forks played at once")
    p.add_argument("--limit", type=at_least(0), default=None, help="play at most N new forks")
    p.add_argument("--format", default="table", choices=("table", "json"))
    p.add_argument("--bootstrap", type=at_least(1), default=10_000, help="paired bootstrap resamples (over tasks)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    p.add_argument("--config", default=None, type=file_path, help="clarify.toml with endpoints and model settings")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.whatif import whatif
    from clarify_tui.whatif_results import summarize

    config_obj = None
    if args.config:
        from clarify_tui.config import load_config

        config_obj = load_config(args.config)
    store = open_store(args, must_exist=True)

    def on_plan(result: WhatIfResult, reused: int, to_play: int) -> None:
        skipped = sum(result.skipped.values())
        print(
            f"what-if on run '{result.run}' ({args.intervention} at {args.at}): {result.sessions} session(s), "
            f"{len(result.points)} decision point(s){f', {skipped} skipped' if skipped else ''}; "
            f"{reused} fork(s) reused, {to_play} to play",
            file=sys.stderr,
        )

    result = asyncio.run(
        whatif(
            store,
            args.run,
            which=args.which,
            at=args.at,
            intervention=args.intervention,
            concurrency=args.concurrency,
            limit=args.limit,
            config_obj=config_obj,
            on_plan=on_plan,
        )
    )
    summary = summarize(result, resamples=args.bootstrap, seed=args.seed)
    if args.format == "json":
        json.dump(summary, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print_table(summary)
    return 1 if summary["forks_errored"] else 0


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:+.1f} pp"


def print_table(summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    cts = registry.get(summary["benchmark"]).graded_by == "nuggets"  # restore scores, not answers
    voa = summary["value_of_asking"]
    ci = voa["ci95"]
    if cts:
        delta = "–" if voa["delta"] is None else f"{voa['delta']:+.1f}"
        ci_text = "" if not ci else f" [{ci[0]:+.1f}, {ci[1]:+.1f}]"
    else:
        delta = _pct(voa["delta"])
        ci_text = "" if not ci else f" [{100 * ci[0]:+.1f}, {100 * ci[1]:+.1f}]"
    table = Table(
        title=f"what if it had {'asked' if summary['intervention'] == 'ask' else 'answered'}: run {summary['run']}"
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    cost = summary["extra_cost"]
    rows = [
        ("sessions", summary["sessions"]),
        ("decision points", summary["decision_points"]),
        ("forks (reused)", f"{summary['forks']} ({summary['forks_reused']})"),
    ]
    names = {
        "wrong_to_right": "wrong → right",
        "right_to_wrong": "right → wrong",
        "unchanged": "unchanged",
        "improved": "restore score up",
        "worsened": "restore score down",
    }
    rows += [(names[k], v) for k, v in summary["flips"].items()]
    over = f" over {voa['tasks']} forked task{'s' * (voa['tasks'] != 1)}"  # not the run's every task
    rows += [
        (f"Δ restore score{over} [95% CI]" if cts else f"value of asking{over} [95% CI]", delta + ci_text),
        ("forks errored (not scored)", summary["forks_errored"]),
        ("extra tokens", cost["tokens_in"] + cost["tokens_out"]),
        ("extra cost $", "unpriced" if cost["cost_usd"] is None else f"{cost['cost_usd']:.4f}"),
    ]
    for name, value in rows:
        table.add_row(name, str(value))
    console.print(table)
    points = Table(title="decision points", show_lines=False)
    for c in ("task", "step", "kind", "parent", "fork", "fork session"):
        points.add_column(c)
    for task in summary["tasks"]:
        for p in task["points"]:
            if cts:
                before, after = p["parent_restore_score"], p["fork_restore_score"]
                show = lambda v: "–" if v is None else f"{v:.0f}"
            else:
                before, after = p["parent_correct"], p["fork_correct"]
                show = lambda v: "–" if v is None else ("right" if v else "wrong")
            fork = show(after) + (" (fallback)" if p["fallback"] else "")
            points.add_row(task["task_id"], str(p["step"]), p["kind"], show(before), fork, p["fork_id"][:8])
    if summary["tasks"]:
        console.print(points)
    skipped = summary["skipped_points"]
    for why, n in skipped.items():
        console.print(f"[dim]{n} decision point(s) skipped: {why}[/dim]")
