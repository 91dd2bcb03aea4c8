"""`clarify-tui play`: open the workbench on a task as observer, user or agent."""

from __future__ import annotations

import argparse

from clarify_tui.commands.common import BENCHMARKS, add_db


def register(sub) -> None:
    p = sub.add_parser("play", help="play a task in the TUI: watch/step an agent, play the user or the agent")
    add_db(p)
    p.add_argument("--task", default=None, help="task id (or protocol:id) to open directly")
    p.add_argument("--as", dest="as_", default="observer", choices=("agent", "user", "observer"),
                   help="agent: you act (human baseline); user: you answer the agent; observer: watch or step")
    p.add_argument("--agent", default="scripted:search-then-ask", help="agent spec when you are not the agent")
    p.add_argument("--user", default="rule", help="user spec when you are not the user")
    p.add_argument("--search", default="local", help="local | tavily")
    p.add_argument("--judge", default="rule", help="rule | openai:MODEL")
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    p.add_argument("--benchmark", default=None, choices=BENCHMARKS, help="protocol of --dataset (inferred if omitted)")
    p.add_argument("--step", action="store_true", help="start in step mode instead of watch mode")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.tui.app import run_app

    return run_app(
        db=args.db, task_id=args.task, as_=args.as_, agent_spec=args.agent, user_spec=args.user,
        search_spec=args.search, judge_spec=args.judge, dataset=args.dataset, benchmark=args.benchmark,
        run_mode="step" if args.step else "watch",
    )
