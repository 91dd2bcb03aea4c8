"""`clarify-tui queue status RUN`: how far a human-baseline campaign is, per annotator.

The campaign's tasks and annotators per task come from `clarify-tui serve` (recorded in the
database); for a queue played only in the TUI (`play --queue`), pass its --dataset (and
--benchmark, --limit, --shuffle) instead.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from clarify_tui.argtypes import task_limit
from clarify_tui.commands.common import BENCHMARKS, add_db, at_least, db_path, refuse_unusable_db, run_name
from clarify_tui.errors import UsageError
from clarify_tui.plural import plural

if TYPE_CHECKING:
    from clarify_tui.campaign.status import CampaignStatus, PlanRow
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("queue", help="human-baseline campaigns: progress per annotator (queue status RUN)")
    actions = p.add_subparsers(dest="queue_action", metavar="ACTION", required=True)
    s = actions.add_parser("status", help="per annotator: done, in progress, skipped, remaining, time, accuracy")
    s.add_argument("run", type=run_name, metavar="RUN")
    add_db(s)
    s.add_argument(
        "--per-task",
        type=at_least(1),
        default=None,
        metavar="K",
        help="annotators wanted per task (default: the campaign's); K >= 2 adds their agreement",
    )
    s.add_argument("--dataset", default=None, help="the queue's dataset when the run was not served by `serve`")
    s.add_argument("--benchmark", default=None, choices=BENCHMARKS)
    s.add_argument("--limit", type=task_limit, default=None, metavar="N|A-B")
    s.add_argument("--shuffle", type=int, default=None, metavar="SEED")
    s.add_argument(
        "--ci-width",
        type=_width,
        default=None,
        metavar="W",
        help="campaign planning: how many more tasks bring the 95%% CI of the human baseline's accuracy "
        "to this width (default 0.2, i.e. +-10 points), if accuracy stays as it is so far",
    )
    s.add_argument(
        "--format", default="table", choices=("table", "json"), help="table (plain columns when piped) or json"
    )
    s.set_defaults(func=status)


def _width(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a CI width such as 0.1)") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} is no CI width of an accuracy: give a number between 0 and 1")
    return value


def status(args: argparse.Namespace) -> int:
    from clarify_tui.campaign.claims import load_campaign
    from clarify_tui.campaign.status import DEFAULT_CI_WIDTH, campaign_status

    path = db_path(args)
    if not path.is_file():
        raise FileNotFoundError(f"no database at {path} (pass --db)")
    refuse_unusable_db(path)  # another application's file: the one line every command gives
    campaign = load_campaign(path, args.run)
    if args.dataset is not None or campaign is None:
        from clarify_tui.campaign.visitor import campaign_tasks

        if args.dataset is None:
            raise UsageError(
                f"run '{args.run}' was not served with `clarify-tui serve` in {path}: "
                "pass the queue's --dataset (and --benchmark / --limit / --shuffle)"
            )
        campaign, _ = campaign_tasks(
            args.run, args.dataset, args.benchmark, args.limit, args.shuffle, args.per_task or 1
        )
    per_task = args.per_task or campaign.per_task
    if per_task < 1:
        raise UsageError("--per-task must be at least 1")
    width = DEFAULT_CI_WIDTH if args.ci_width is None else args.ci_width
    report = campaign_status(path, args.run, campaign.task_ids, per_task, ci_width=width)
    for line in report["duplicates"]:
        print(f"warning: {line}", file=sys.stderr)
    if args.format == "json":
        json.dump(report, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        print_status(report)
    return 0


def print_status(report: CampaignStatus) -> None:
    from rich import box
    from rich.table import Table

    from clarify_tui.commands.listing import console as report_console

    console = report_console()
    if not report["annotators"]:
        console.print(
            f"[yellow]nobody has played run '{report['run']}' yet[/yellow] ({plural(report['tasks'], 'task')})"
        )
        return
    cts = any(a["restore_score_mean"] is not None for a in report["annotators"])
    table = Table(
        title=f"queue {report['run']}: {plural(report['tasks'], 'task')}, {report['per_task']} annotator(s) per "
        f"task, {report['tasks_complete']} complete",
        title_justify="left",
        box=box.SIMPLE_HEAD,
    )
    table.add_column("annotator", overflow="fold")
    for name in ("done", "playing", "skipped", "left", "time", "acc", "95% CI", "n") + (("CTS",) if cts else ()):
        table.add_column(name, justify="right", no_wrap=True)
    for a in report["annotators"]:
        ci = a["accuracy_ci95"]
        minutes, seconds = divmod(int(a["active_ms"] / 1000), 60)
        table.add_row(
            a["annotator"],
            str(a["done"]),
            str(a["in_progress"]),
            str(a["skipped"]),
            str(a["remaining"]),
            f"{minutes}:{seconds:02d}",
            "-" if a["accuracy"] is None else f"{a['accuracy']:.2f}",
            "-" if ci is None else f"[{ci[0]:.2f}, {ci[1]:.2f}]",
            str(a["graded"]),
            *(["-" if a["restore_score_mean"] is None else f"{a['restore_score_mean']:.1f}"] if cts else []),
        )
    console.print(table)
    console.print(
        "[dim]playing: a running session or a live claim; left: tasks still open to them; "
        "time: the task clock, pauses excluded; 95% CI: Wilson[/dim]"
    )
    for line in plan_lines(report):
        console.print(line)
    agreement = report.get("agreement")
    if agreement:
        share = "-" if agreement["all_agree"] is None else f"{agreement['all_agree']:.2f}"
        kappa = "undefined" if agreement["fleiss_kappa"] is None else f"{agreement['fleiss_kappa']:.3f}"
        console.print(
            f"agreement on correctness over {agreement['tasks']} task(s) with {report['per_task']} "
            f"annotators: all agree {share}, Fleiss' kappa {kappa}"
        )
        for pair in agreement["pairs"]:
            value = "undefined" if pair["cohen_kappa"] is None else f"{pair['cohen_kappa']:.3f}"
            console.print(
                f"  {' & '.join(pair['annotators'])}: Cohen's kappa {value} over {pair['tasks']} shared task(s)"
            )


def _more(row: PlanRow) -> str:
    return "-" if row["more_tasks"] is None else str(row["more_tasks"])


def plan_lines(report: CampaignStatus) -> list[str]:
    """Campaign planning: the pooled baseline's sentence, then each annotator's own."""
    plan = report["planning"]
    people = ", ".join(f"{who} {_more(row)}" for who, row in plan["annotators"].items())
    own = (
        f"  each annotator's own CI {plan['ci_width']:g} wide, at their accuracy so far: {people} more tasks"
        if people
        else ""
    )
    return [baseline_line(report)] + ([own] if own else [])


def baseline_line(report: CampaignStatus) -> str:
    """The pooled baseline's CI and the tasks still needed for the width wanted."""
    plan = report["planning"]
    row, width = plan["baseline"], plan["ci_width"]
    if row["accuracy"] is None or row["width"] is None:
        return f"human baseline: no graded session yet, so no estimate of the tasks a 95% CI {width:g} wide needs"
    head = (
        f"human baseline: accuracy {row['accuracy']:.2f} over {plural(row['graded'], 'graded session')}, "
        f"95% CI {row['width']:.2f} wide"
    )
    if row["more_tasks"] is None:
        return f"{head}; no number of tasks brings it to {width:g}"
    if row["more_tasks"] == 0:
        return f"{head}: already at most {width:g}"
    left = report["tasks"] - report["tasks_complete"]
    room = (
        f"; the queue has only {plural(left, 'task')} left to complete: add tasks (a larger --limit, another dataset)"
        if row["more_tasks"] > left
        else f" (the queue has {plural(left, 'task')} left to complete)"
    )
    return (
        f"{head}; for {width:g}: about {plural(row['more_tasks'], 'more task')} at {report['per_task']} "
        f"annotator(s) per task ({row['sessions_needed']} graded sessions in all), if accuracy stays "
        f"{row['accuracy']:.2f}{room}"
    )
