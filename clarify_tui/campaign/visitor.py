"""One visitor's app process: `python -m clarify_tui.campaign.visitor ...`.

`clarify-tui serve` starts this command (through textual-serve) for every browser that
opens the campaign with a valid token; the annotator's name comes on the command line.
`campaign_tasks` is also how `serve` defines the campaign, so both see the same tasks.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from clarify_tui.argtypes import TaskLimit, at_least, seconds, spec, take, task_limit
from clarify_tui.campaign.claims import DEFAULT_TIMEOUT, Campaign, ClaimBook
from clarify_tui.errors import UsageError
from clarify_tui.lease import pid_alive, process_id
from clarify_tui.models import PROTOCOLS, Task
from clarify_tui.role_flags import add_config, add_deep_search, add_judge, add_user

if TYPE_CHECKING:
    from clarify_tui.config import Config
    from clarify_tui.models import EpisodeConfig


def campaign_tasks(
    run: str, dataset: str, benchmark: str | None, limit: TaskLimit | None, seed: int | None, per_task: int
) -> tuple[Campaign, list[Task]]:
    """The campaign's tasks in serving order (the first `limit`, shuffled by `seed`)."""
    from clarify_tui.sessions_ops import queue_order
    from clarify_tui.tasks.collection import load_all

    tasks, problems = load_all(dataset, benchmark)
    if problems and not tasks:
        raise UsageError("; ".join(problems))
    tasks = queue_order(take(tasks, limit), seed)
    if not tasks:
        raise UsageError(f"no tasks in {dataset}: the campaign would be empty")
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise UsageError("task ids repeat across benchmarks in this dataset; pass --benchmark")
    campaign = Campaign(run=run, task_ids=ids, per_task=per_task, dataset=str(dataset), benchmark=benchmark, seed=seed)
    return campaign, tasks


def add_campaign_options(p: argparse.ArgumentParser) -> None:
    """The options `serve` passes on to each visitor (same names, same meaning)."""
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path (default: demo)")
    p.add_argument("--benchmark", default=None, choices=PROTOCOLS, help="only this benchmark's tasks of --dataset")
    p.add_argument(
        "--limit",
        type=task_limit,
        default=None,
        metavar="N|A-B",
        help="only the first N tasks, or tasks A to B (1-based, inclusive)",
    )
    p.add_argument("--shuffle", type=int, default=None, metavar="SEED", help="serve the tasks in a seeded order")
    p.add_argument(
        "--per-task",
        type=at_least(1),
        default=1,
        metavar="K",
        help="annotators per task (default 1: no two annotators get the same task)",
    )
    p.add_argument(
        "--claim-timeout",
        type=seconds(0, inclusive=False),
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"release a task claimed by an annotator who left after this long (default {DEFAULT_TIMEOUT:g})",
    )
    p.add_argument("--search", default="local", type=spec, help="search backend spec (default: local)")
    add_user(p)  # the roles and settings as `run` reads them (role_flags): the paper's user and judge
    add_judge(p)
    add_deep_search(p)
    add_config(p)


def campaign_settings(args: argparse.Namespace) -> tuple[Config | None, EpisodeConfig]:
    """The model settings (`--config`, `--set`; None when no role needs any, as for `run`)
    and the episode config (`--deep-search`, else [deep_search] spec of the config)."""
    from clarify_tui.api import load_run_config
    from clarify_tui.models import EpisodeConfig
    from clarify_tui.role_flags import parse_overrides

    services = load_run_config(
        args.config, parse_overrides(args.overrides), specs=(args.user, args.judge, args.search, args.deep_search or "")
    )
    deep_search = args.deep_search or (services.deep_search.spec if services is not None else None)
    return services, EpisodeConfig(deep_search=deep_search)


WATCH_EVERY_S = 0.5


def die_with_server(pid: int, ident: str | None) -> None:
    """End this process when the server that started it is gone.

    Why: `serve` killed with -9 left every visitor's app running and holding its task
    claim, so after a restart the annotators saw "open in another tab" for ever. The
    server's identity (pid and start time, lease.process_id) is checked twice a second: a
    reused pid is not the server. Where the server is our parent (textual-serve's shell
    exec'd us), the kernel's parent-death signal ends us at once too."""
    parent_death_signal(pid)
    gone = server_gone_check(pid, ident)

    def watch() -> None:
        while not gone():
            time.sleep(WATCH_EVERY_S)
        os._exit(0)  # no clean-up to wait for: the claim's holder is dead now, and is released on sight

    threading.Thread(target=watch, name="server-watch", daemon=True).start()


def server_gone_check(pid: int | None, ident: str | None) -> Callable[[], bool]:
    """Whether the server (pid and identity, lease.process_id) is gone; never, without a pid."""

    def gone() -> bool:
        if pid is None:
            return False
        return process_id(pid) != ident if ident else not pid_alive(pid)

    return gone


def parent_death_signal(server: int) -> None:
    """prctl(PR_SET_PDEATHSIG, SIGKILL) when the server is our parent (Linux only)."""
    if os.getppid() != server or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != server:  # it died before the signal was armed
        os._exit(0)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="clarify_tui.campaign.visitor")
    p.add_argument("--db", type=Path, required=True)
    p.add_argument("--queue", required=True, metavar="RUN")
    p.add_argument("--annotator", required=True)
    p.add_argument("--server-pid", type=int, default=None, help="end when this process (the server) is gone")
    p.add_argument("--server-id", default=None, help="the server's process identity (lease.process_id)")
    p.add_argument("--work", action="store_true", help="--queue names an audit or labels queue (store/work.py)")
    add_campaign_options(p)
    return p


_WARM: dict[tuple, tuple[Campaign, list[Task]]] = {}  # campaign_tasks, loaded by the zygote before it forks


def _tasks_of(args: argparse.Namespace) -> tuple[Campaign, list[Task]]:
    key = (args.queue, args.dataset, args.benchmark, args.limit, args.shuffle, args.per_task)
    if key not in _WARM:
        _WARM[key] = campaign_tasks(*key)
    return _WARM[key]


def warm_up(args: argparse.Namespace) -> None:
    """What every visitor's app start needs, done once in the zygote (campaign/zygote.py)
    before it forks: the imports of the app, its play screen and the rule components, the
    campaign's tasks, the local search index. Opens no database: a child must not share
    a connection with its parent."""
    import importlib

    if args.work:  # an audit or labels queue: its screen only, no tasks, no search
        for module in ("clarify_tui.store", "clarify_tui.tui.work_app", "textual.drivers.web_driver"):
            importlib.import_module(module)
        return
    for module in (
        "clarify_tui.store",
        "clarify_tui.tui.campaign",
        "clarify_tui.tui.screens.play",
        "clarify_tui.tui.driver",
        "clarify_tui.users.rule",
        "clarify_tui.judges.rule",
        "clarify_tui.sessions_ops",
        "textual.drivers.web_driver",
    ):
        importlib.import_module(module)
    _tasks_of(args)
    if args.search == "local":
        from clarify_tui.backend_spec import RoleSpecs
        from clarify_tui.backends import build_backends
        from clarify_tui.search.local import LocalSearch

        if isinstance(search := build_backends(RoleSpecs.of(search="local")).search, LocalSearch):
            search.search_sync("warm up")  # builds the (process-wide) index


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.server_pid is not None:
        die_with_server(args.server_pid, args.server_id)
    if args.work:
        return work_visit(args)
    from clarify_tui.store import Store
    from clarify_tui.tui.campaign import CampaignApp

    campaign, tasks = _tasks_of(args)
    store = Store(args.db)  # before any other connection of this process (see ClaimBook)
    book = ClaimBook(args.db, campaign, timeout=args.claim_timeout)
    book.register()
    services, episode = campaign_settings(args)
    app = CampaignApp(
        book,
        args.annotator,
        tasks,
        db=args.db,
        store=store,
        search_spec=args.search,
        user_spec=args.user,
        judge_spec=args.judge,
        config=episode,
        services=services,
    )
    try:
        app.run()
    finally:  # the tab closed: the annotator's next tab may take the claim over at once
        book.let_go()
        book.close()
    return app.return_code or 0


def work_visit(args: argparse.Namespace) -> int:
    """A visitor of `serve --queue NAME` on an audit or labels queue: their next items, one at
    a time (tui/work_app.py). No claims: K answers per item are the queue's (store/work.py)."""
    from clarify_tui.store import Store
    from clarify_tui.tui.work_app import WorkVisitorApp

    store = Store(args.db)
    queue = store.work.queue(args.queue)
    if queue is None:
        raise UsageError(f"no work queue named '{args.queue}' in {args.db}")
    app = WorkVisitorApp(store, queue, args.annotator)
    try:
        app.run()
    finally:
        store.close()
    return app.return_code or 0


if __name__ == "__main__":
    sys.exit(main())
