"""`clarify-tui judge`: re-judge the final answers (and CTS nuggets) of stored sessions.

New verdicts are stored beside the old ones with the judge spec; `score --judge SPEC`
chooses which verdicts to score (default: the latest).
"""

from __future__ import annotations

import argparse
import asyncio
from typing import TYPE_CHECKING

from rich.console import Console

from clarify_tui.commands.common import (
    BENCHMARKS,
    add_db,
    add_runs,
    at_least,
    file_path,
    open_store,
    require_runs,
    spec,
)

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers

console = Console(stderr=True)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("judge", help="re-judge stored sessions with another judge")
    add_db(p)
    add_runs(p, required=True, help="runs to re-judge")
    p.add_argument("--judge", required=True, type=spec, help="rule | openai:MODEL")
    p.add_argument("--benchmark", default=None, choices=BENCHMARKS, help="only this benchmark")
    p.add_argument("--concurrency", type=at_least(1), default=4)
    p.add_argument(
        "--resume",
        action="store_true",
        help="skip the sessions that already hold a verdict of this judge (a judge run that was killed)",
    )
    p.add_argument("--config", default=None, type=file_path, help="clarify.toml with endpoints and model settings")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.backend_spec import RoleSpecs
    from clarify_tui.backends import build_backends
    from clarify_tui.rejudge import rejudge

    specs = RoleSpecs.of(judge=args.judge)
    config = None
    if args.config or specs.judge.is_model:  # type: ignore[union-attr]  # given: it was named
        from clarify_tui.config import load_config

        config = load_config(args.config)
    judge = build_backends(specs, config).judge
    store = open_store(args, must_exist=True)
    require_runs(store, args.runs)
    summary = asyncio.run(
        rejudge(
            store, judge, runs=args.runs, benchmark=args.benchmark, concurrency=args.concurrency, resume=args.resume
        )
    )
    console.print(
        f"judge [bold]{args.judge}[/bold]: {summary.judged} session(s) judged, "
        f"{summary.changed} verdict(s) changed, {summary.skipped} skipped (not completed or no answer), "
        f"{len(summary.failed)} failed"
    )
    if summary.already and args.resume:
        console.print(f"  {summary.already} session(s) already held a verdict of {args.judge}: skipped (--resume)")
    elif summary.already:
        console.print(
            f"  {summary.already} session(s) already held a verdict of {args.judge}: judged again, the newest "
            "verdict counts (--resume skips them)"
        )
    for sid, error in summary.failed[:5]:
        console.print(f"  [red]failed[/red] {sid}: {error.splitlines()[0][:200]}")
    return 1 if summary.failed else 0
