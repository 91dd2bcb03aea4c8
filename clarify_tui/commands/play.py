"""`clarify-tui play`: open the workbench on a task as observer, user or agent.

`--queue NAME` on an audit or labels queue of the --db file (`audit --queue`, `labels
--queue`) opens its items one at a time for `--annotator` (commands/work_queues.py).

`--queue RUN` (with `--as agent`) collects a human baseline: the tasks of `--dataset`
(the first `--limit`, in the order `--shuffle SEED` gives) are served one after another
to `--annotator`, each recorded in run RUN as a `human_agent` session. Quit at any time;
the same command carries on at the next unfinished task (one left in the middle resumes
at its last step). A finished session's result holds `active_ms`: the task clock's time,
pauses excluded (a resumed task starts from the latencies of its recorded actions).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from clarify_tui.argtypes import task_limit
from clarify_tui.backend_spec import BackendSpec
from clarify_tui.commands.common import (
    BENCHMARKS,
    add_db,
    db_path,
    refuse_unusable_db,
    run_name,
    seconds,
    spec,
)
from clarify_tui.errors import UsageError

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("play", help="play a task in the TUI: watch/step an agent, play the user or the agent")
    add_db(p)
    p.add_argument("--task", default=None, help="task id (or protocol:id) to open directly")
    p.add_argument(
        "--as",
        dest="as_",
        default="observer",
        choices=("agent", "user", "observer"),
        help="agent: you act (human baseline); user: you answer the agent; observer: watch or step",
    )
    p.add_argument(
        "--agent",
        default="scripted:search-then-ask",
        type=spec,
        help="agent spec when you are not the agent (py:FILE.py:NAME and http://... too)",
    )
    p.add_argument(
        "--agent-arg",
        dest="agent_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword argument for a py: agent's class or factory (repeatable; wins over [agent.args])",
    )
    p.add_argument("--user", default="rule", type=spec, help="user spec when you are not the user")
    p.add_argument(
        "--search", default="local", type=spec, help="local | tavily | serper (Google, as the InteractComp reference)"
    )
    p.add_argument("--judge", default="rule", type=spec, help="rule | openai:MODEL")
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    p.add_argument("--benchmark", default=None, choices=BENCHMARKS, help="protocol of --dataset (inferred if omitted)")
    p.add_argument(
        "--k",
        type=int,
        default=None,
        choices=(0, 1, 2, 3),
        help="CTS clarification budget: questions in the one clarify turn (default 1; 0 = orig)",
    )
    p.add_argument("--step", action="store_true", help="start in step mode instead of watch mode")
    p.add_argument(
        "--pace",
        type=seconds(0),
        default=None,
        metavar="SECONDS",
        help="watch mode: seconds between two steps of the agent (default 0.5; + / - change it on screen)",
    )
    p.add_argument("--annotator", default=None, help="who plays (recorded with the session); default: your user name")
    p.add_argument(
        "--queue",
        type=run_name,
        default=None,
        metavar="RUN",
        help="human baseline: serve the dataset's tasks one after another, recorded in run RUN "
        "(needs --as agent; relaunch to resume); or answer the audit/labels queue of that name in --db",
    )
    p.add_argument(
        "--limit",
        type=task_limit,
        default=None,
        metavar="N|A-B",
        help="--queue: only the first N tasks, or tasks A to B (1-based, inclusive)",
    )
    p.add_argument(
        "--shuffle", type=int, default=None, metavar="SEED", help="--queue: serve the tasks in a seeded order"
    )
    p.set_defaults(func=main, parser=p)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.tui.app import run_app

    queue = None
    if args.queue is not None:
        from clarify_tui.commands import work_queues

        refuse_unusable_db(db_path(args))
        kind = work_queues.work_queue_kind(db_path(args), args.queue)
        if kind is not None:  # an audit or labels queue: its screen, not a human baseline
            return work_queues.play(args, db_path(args), kind)
        from clarify_tui.tui.play_setup import default_annotator
        from clarify_tui.tui.screens.play_queue import QueueSpec

        problem = None
        if args.as_ != "agent":
            problem = "--queue collects a human baseline: add --as agent"
        elif args.task:
            problem = "--queue serves every task of the dataset; drop --task (or use --limit)"
        annotator = args.annotator or default_annotator()
        if problem or not annotator:
            parser: argparse.ArgumentParser = args.parser
            parser.error(problem or "cannot tell who you are: pass --annotator NAME")
        queue = QueueSpec(run=args.queue, annotator=annotator, seed=args.shuffle, limit=args.limit)
    elif args.limit is not None or args.shuffle is not None:
        args.parser.error("--limit and --shuffle go with --queue")
    if args.pace is not None and args.as_ == "agent":
        args.parser.error("--pace paces a watched agent; with --as agent you make every step yourself")
    config = None
    if args.k is not None:
        from clarify_tui.models import EpisodeConfig  # only then: the first paint builds no models

        config = EpisodeConfig(k=args.k)
    if args.agent_args and (args.as_ == "agent" or not BackendSpec.parse(args.agent).is_py):
        who = "you play the agent" if args.as_ == "agent" else f"--agent {args.agent} takes none"
        args.parser.error(f"--agent-arg goes to a py: agent's class or factory; {who}")
    refuse_unusable_db(db_path(args))
    if args.agent_args:
        import json
        import os

        from clarify_tui.config import AGENT_ARGS_ENV
        from clarify_tui.plugins import parse_args

        current = json.loads(os.environ.get(AGENT_ARGS_ENV) or "{}")
        os.environ[AGENT_ARGS_ENV] = json.dumps({**current, **parse_args(args.agent_args)})
    check_own_specs(args)
    check_before_screen(args)
    return run_app(
        config=config,
        db=args.db,
        task_id=args.task,
        as_=args.as_,
        agent_spec=args.agent,
        user_spec=args.user,
        search_spec=args.search,
        judge_spec=args.judge,
        dataset=args.dataset,
        benchmark=args.benchmark,
        run_mode="step" if args.step else "watch",
        pace=args.pace,
        annotator=args.annotator,
        queue=queue,
    )


def check_own_specs(args: argparse.Namespace) -> None:
    """A researcher's `py:`/`http://` spec is loaded before the screen opens, so a bad one
    is the one line every command gives, not an error inside the TUI (only those: the
    built-in specs cost the first paint nothing)."""

    specs = {role: BackendSpec.parse(getattr(args, role)) for role in ("agent", "user", "judge")}
    if not any(s.is_custom for s in specs.values()):
        return
    from clarify_tui.backends import check_spec

    for role, given in specs.items():
        if given.is_custom:
            check_spec(role, given)  # found and checked, not made: the screen makes it once


def check_before_screen(args: argparse.Namespace) -> None:
    """What the screen would only notify (a missing dataset, a task id it does not have,
    a spec naming nothing) is one line here, before the screen takes the terminal. Cheap
    checks only: the default specs and the bundled demo cost the first paint nothing."""
    from pathlib import Path

    from clarify_tui.task_rows import DEMO, quick_rows

    if str(args.dataset) != DEMO and not Path(args.dataset).exists():
        raise FileNotFoundError(f"--dataset {args.dataset}: no such file or folder")
    defaults = {"agent": "scripted:search-then-ask", "user": "rule", "judge": "rule", "search": "local"}
    given = {role: getattr(args, role) for role in defaults if getattr(args, role) != defaults[role]}
    if given:
        from clarify_tui.backends import check_known

        for role, spec in given.items():
            check_known(role, spec)
    if args.task:
        rows = quick_rows(args.dataset, args.benchmark)  # None when they cannot be told cheaply: the screen says
        if rows is not None and not any(args.task in (row.id, row.key) for row in rows):  # as find_task
            shown = ", ".join(row.id for row in rows[:10]) + (", ..." if len(rows) > 10 else "")
            raise UsageError(f"--task {args.task}: no such task in {args.dataset} (it has {len(rows)}: {shown})")
