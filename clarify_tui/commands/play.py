"""`clarify-tui play`: open the workbench on a task as observer, user or agent.

`--queue RUN` (with `--as agent`) collects a human baseline: the tasks of `--dataset`
(the first `--limit`, in the order `--shuffle SEED` gives) are served one after another
to `--annotator`, each recorded in run RUN as a `human_agent` session. Quit at any time;
the same command carries on at the next unfinished task (one left in the middle resumes
at its last step). A finished session's result holds `active_ms`: the task clock's time,
pauses excluded (a resumed task starts from the latencies of its recorded actions).
"""

from __future__ import annotations

import argparse

from clarify_tui.commands.common import BENCHMARKS, add_db, db_path, refuse_unusable_db


def register(sub) -> None:
    p = sub.add_parser("play", help="play a task in the TUI: watch/step an agent, play the user or the agent")
    add_db(p)
    p.add_argument("--task", default=None, help="task id (or protocol:id) to open directly")
    p.add_argument("--as", dest="as_", default="observer", choices=("agent", "user", "observer"),
                   help="agent: you act (human baseline); user: you answer the agent; observer: watch or step")
    p.add_argument("--agent", default="scripted:search-then-ask", help="agent spec when you are not the agent")
    p.add_argument("--user", default="rule", help="user spec when you are not the user")
    p.add_argument("--search", default="local", help="local | tavily | serper (Google, as the InteractComp reference)")
    p.add_argument("--judge", default="rule", help="rule | openai:MODEL")
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    p.add_argument("--benchmark", default=None, choices=BENCHMARKS, help="protocol of --dataset (inferred if omitted)")
    p.add_argument("--k", type=int, default=None, choices=(0, 1, 2, 3),
                   help="CTS clarification budget: questions in the one clarify turn (default 1; 0 = orig)")
    p.add_argument("--step", action="store_true", help="start in step mode instead of watch mode")
    p.add_argument("--annotator", default=None, help="who plays (recorded with the session); default: your user name")
    p.add_argument("--queue", default=None, metavar="RUN",
                   help="human baseline: serve the dataset's tasks one after another, recorded in run RUN "
                        "(needs --as agent; relaunch to resume)")
    p.add_argument("--limit", type=int, default=None, help="--queue: only the first N tasks")
    p.add_argument("--shuffle", type=int, default=None, metavar="SEED", help="--queue: serve the tasks in a seeded order")
    p.set_defaults(func=main, parser=p)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.tui.app import run_app

    queue = None
    if args.queue is not None:
        from clarify_tui.tui.driver import default_annotator
        from clarify_tui.tui.screens.play_queue import QueueSpec

        problem = None
        if args.as_ != "agent":
            problem = "--queue collects a human baseline: add --as agent"
        elif args.task:
            problem = "--queue serves every task of the dataset; drop --task (or use --limit)"
        elif args.limit is not None and args.limit < 1:
            problem = "--limit must be at least 1"
        annotator = args.annotator or default_annotator()
        if not problem and not annotator:
            problem = "cannot tell who you are: pass --annotator NAME"
        if problem:
            args.parser.error(problem)
        queue = QueueSpec(run=args.queue, annotator=annotator, seed=args.shuffle, limit=args.limit)
    elif args.limit is not None or args.shuffle is not None:
        args.parser.error("--limit and --shuffle go with --queue")
    config = None
    if args.k is not None:
        from clarify_tui.models import EpisodeConfig  # only then: the first paint builds no models

        config = EpisodeConfig(k=args.k)
    refuse_unusable_db(db_path(args))
    return run_app(
        config=config,
        db=args.db, task_id=args.task, as_=args.as_, agent_spec=args.agent, user_spec=args.user,
        search_spec=args.search, judge_spec=args.judge, dataset=args.dataset, benchmark=args.benchmark,
        run_mode="step" if args.step else "watch", annotator=args.annotator, queue=queue,
    )
