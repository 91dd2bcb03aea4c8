"""`clarify-tui demo ask-vs-guess`: two agents on the same task at once, side by side.

Offline by default: scripted:direct-guess against scripted:search-then-ask on the first
bundled DiscoBench demo task, paced so a viewer can follow. Both sessions are saved
(run `ask-vs-guess`) and can be replayed, compared and scored like any other.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from clarify_tui.commands.common import add_db, file_path, open_store, seconds
from clarify_tui.errors import NotFound, UsageError

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.models import Task

DEFAULT_A = "scripted:direct-guess"
DEFAULT_B = "scripted:search-then-ask"


def register(sub: Subparsers) -> None:
    p = sub.add_parser("demo", help="live demos (ask-vs-guess)")
    demos = p.add_subparsers(dest="demo", metavar="DEMO", required=True)
    avg = demos.add_parser("ask-vs-guess", help="a guessing and an asking agent on one task, side by side")
    avg.add_argument(
        "--task", default=None, help="task id (or protocol:id) from --dataset (default: the first DiscoBench demo task)"
    )
    avg.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    avg.add_argument(
        "--agent-a",
        "--guess",
        dest="agent_a",
        default=DEFAULT_A,
        metavar="SPEC",
        help=f"left column, the guessing agent: any agent spec, py:... and http://... too (default {DEFAULT_A})",
    )
    avg.add_argument(
        "--agent-b",
        "--ask",
        dest="agent_b",
        default=DEFAULT_B,
        metavar="SPEC",
        help=f"right column, the asking agent: any agent spec (default {DEFAULT_B})",
    )
    avg.add_argument(
        "--pace", type=seconds(0), default=0.4, metavar="SECONDS", help="seconds between steps (0: as fast as possible)"
    )
    avg.add_argument("--config", default=None, type=file_path, help="clarify.toml with endpoints and model settings")
    add_db(avg)
    avg.set_defaults(func=main)


def pick_task(task_id: str | None, dataset: str = "demo") -> Task:
    """The task to play: by id (or protocol:id), else the first DiscoBench task."""
    from clarify_tui.models import Protocol
    from clarify_tui.tasks import DatasetError, load_tasks

    if task_id is None:
        tasks = load_tasks("discobench", dataset)
        if not tasks:
            raise UsageError(f"no DiscoBench task in {dataset}")
        return tasks[0]
    protocol, _, bare = task_id.rpartition(":")
    protocols = [protocol] if protocol else [p.value for p in Protocol]
    for name in protocols:
        try:
            tasks = load_tasks(name, dataset)
        except (DatasetError, ValueError, FileNotFoundError):
            continue
        for task in tasks:
            if task.id == bare:
                return task
    raise NotFound(f"no task '{task_id}' in {dataset}")


def main(args: argparse.Namespace) -> int:
    from clarify_tui.backend_spec import BackendSpec, RoleSpecs
    from clarify_tui.backends import build_backends

    task = pick_task(args.task, args.dataset)
    agents = [BackendSpec.parse(s) for s in (args.agent_a, args.agent_b)]
    config = None
    if args.config or any(a.is_model for a in agents):
        from clarify_tui.config import load_config

        config = load_config(args.config)
    for spec in agents:
        if spec.is_human:
            raise UsageError("ask-vs-guess plays two automatic agents; use `clarify-tui play --as agent` to play")
        build_backends(RoleSpecs(agent=spec), config)  # a bad spec fails here, before the screen opens
    store = open_store(args)
    from clarify_tui.tui.browse import BrowseApp

    app = BrowseApp(
        store,
        start="ask-vs-guess",
        task=task,
        agent_a=args.agent_a,
        agent_b=args.agent_b,
        pace=args.pace,
        config=config,
    )
    app.run()
    return app.return_code or 0
