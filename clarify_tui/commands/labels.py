"""`clarify-tui labels`: should the agent have asked here? People's labels of a run's
decision points (docs/labels.md).

    labels --run RUN --queue NAME [--per-item K] [--sample N --seed S]   a labelling queue
    labels --run RUN [--format table|json]                               what the labels say
    labels import FILE.jsonl                                             labels made elsewhere
    labels export [--run RUN] [--out FILE | FILE]                        the same format back
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarify_tui.commands.common import add_db, at_least, db_path, open_store, require_runs, run_name
from clarify_tui.errors import UsageError
from clarify_tui.plural import plural

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "labels",
        help="should it have asked here? label a run's decision points (queue, import, export, summary)",
        description=__doc__.split("\n\n", 1)[1] if __doc__ else None,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("action", nargs="?", choices=("import", "export"), help="import FILE.jsonl, or export")
    p.add_argument(
        "file", nargs="?", type=Path, metavar="FILE.jsonl", help="the file to import (export: the file to write)"
    )
    p.add_argument("--run", type=run_name, default=None, help="the run whose decision points are labelled")
    add_db(p)
    p.add_argument("--queue", default=None, metavar="NAME", help="create (or resume) a labelling queue of --run")
    p.add_argument("--per-item", type=at_least(1), default=1, metavar="K", help="annotators per decision point")
    p.add_argument("--sample", type=at_least(1), default=None, metavar="N", help="a seeded sample of N points")
    p.add_argument("--seed", type=int, default=0, help="the sample's seed, and the bootstrap's (default 0)")
    p.add_argument("--bootstrap", type=at_least(0), default=2000, help="bootstrap resamples for the CIs")
    p.add_argument("--format", default="table", choices=("table", "json"))
    p.add_argument("--out", default=None, type=Path, help="export: the file to write (default: stdout)")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    if args.action == "import":
        return import_file(args)
    if args.action == "export":
        return export(args)
    if args.file is not None:
        raise UsageError(f"unexpected argument {args.file}: did you mean `labels import {args.file}`?")
    if args.run is None:
        raise UsageError("labels: give --run RUN (with --queue NAME to make a labelling queue), or import / export")
    if args.queue:
        return make_queue(args)
    if args.sample is not None:
        raise UsageError("--sample chooses the points of a queue: use it with --queue NAME")
    return summary(args)


def make_queue(args: argparse.Namespace) -> int:
    from clarify_tui.labels.points import item_payload, run_points, sample_points

    store = open_store(args, must_exist=True)
    require_runs(store, [args.run])
    points = run_points(store, args.run)
    if not points:
        raise UsageError(
            f"run '{args.run}' has no decision points to label (no completed session searched or answered)"
        )
    chosen = sample_points(points, args.sample, args.seed)
    config: dict[str, Any] = {"sample": args.sample, "seed": args.seed if args.sample else None}
    queue = store.work.create_queue(args.queue, "labels", run=args.run, per_item=args.per_item, config=config)
    added = store.work.add_items(
        queue.name, [(s.id, point.step, item_payload(store, s, steps, point)) for s, steps, point in chosen]
    )
    progress = store.work.progress(queue.name)
    what = f"{plural(added, 'new item')}" + (
        f" (a seeded sample of {len(chosen)} of {len(points)})" if args.sample else ""
    )
    print(
        f"labelling queue '{queue.name}' of run '{args.run}': {what}; {progress['items']} item(s), "
        f"{queue.per_item} annotator(s) per item, {progress['answers']} label(s) so far"
    )
    db = db_path(args)
    print(f"label them in the terminal:  clarify-tui play --queue {queue.name} --db {db}")
    print(f"or in a browser:             clarify-tui serve --queue {queue.name} --db {db}")
    print(f"then:                        clarify-tui labels --run {args.run} --db {db}")
    return 0


def import_file(args: argparse.Namespace) -> int:
    from clarify_tui.labels.transfer import import_labels

    if args.file is None:
        raise UsageError("labels import: give the file, e.g. `clarify-tui labels import labels.jsonl`")
    if args.run is not None or args.queue is not None:
        raise UsageError("labels import: the file's sessions name their run; drop --run / --queue")
    if not args.file.is_file():
        raise FileNotFoundError(f"no file {args.file}")
    store = open_store(args, must_exist=True)
    result = import_labels(store, args.file)
    for line in result.kept:
        print(f"warning: {line}", file=sys.stderr)
    queues = ", ".join(f"'{q}'" for q in sorted(result.queues)) or "none"
    print(
        f"imported {plural(result.added, 'label')} from {args.file} into queue(s) {queues}"
        + (f"; {result.unchanged} already there" if result.unchanged else "")
        + (f"; {len(result.kept)} differing from a label already stored, not imported" if result.kept else "")
    )
    return 0


def export(args: argparse.Namespace) -> int:
    from clarify_tui.atomic_write import atomic_output, check_target
    from clarify_tui.labels.transfer import export_labels

    if args.file is not None:  # `labels export FILE` (DESIGN.md's form) is `--out FILE`
        if args.out is not None:
            raise UsageError(f"labels export: give the file once ({args.file} or --out {args.out})")
        args.out = args.file
    if args.out is not None:
        check_target(args.out, protect=[db_path(args)])
    store = open_store(args, must_exist=True)
    if args.run is not None:
        require_runs(store, [args.run])
    if args.out is None:
        n, differing = export_labels(store, args.run, sys.stdout)
    else:
        with atomic_output(args.out, protect=[store.path]) as out:
            n, differing = export_labels(store, args.run, out)
        print(f"wrote {plural(n, 'label')} to {args.out}", file=sys.stderr)
    for line in differing:
        print(f"warning: {line}", file=sys.stderr)
    return 0


def summary(args: argparse.Namespace) -> int:
    from clarify_tui.labels.summary import labels_summary

    store = open_store(args, must_exist=True)
    require_runs(store, [args.run])
    result = labels_summary(store, args.run, resamples=args.bootstrap, seed=args.seed)
    for line in result["duplicates"]:
        print(f"warning: {line}", file=sys.stderr)
    if args.format == "json":
        json.dump(result, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        print_summary(result)
    return 0


def _num(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _ci(ci: list[float] | None, digits: int = 2) -> str:
    return "-" if not ci else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def print_summary(s: dict[str, Any]) -> None:
    from rich.table import Table

    from clarify_tui.commands.listing import console

    out = console()
    if not s["n_labels"]:
        out.print(
            f"no labels for run '{s['run']}' yet ({plural(s['decision_points'], 'decision point')}): "
            f"make a queue with `clarify-tui labels --run {s['run']} --queue NAME`, or `labels import FILE.jsonl`"
        )
        return
    table = Table(title=f"should it have asked? labels of run {s['run']}", title_justify="left")
    table.add_column("measure")
    table.add_column("value", justify="right")
    shares = s["label_shares"]
    needed = s["needed_ask"]
    fork = s["fork_points"]
    method = {"cohen": "Cohen's", "fleiss": "Fleiss'"}.get(s["kappa_method"] or "", "")
    rows = [
        ("labels", str(s["n_labels"])),
        ("annotators", f"{len(s['annotators'])} ({', '.join(s['annotators'])})"),
        ("decision points labelled", f"{s['points_labelled']} of {s['decision_points']}"),
        ("points with 2+ labels", str(s["points_multiply_labelled"])),
        ("agreement (pairs agreeing)", _num(s["agreement"])),
        (f"{method} kappa [95% CI]".strip(), f"{_num(s['kappa'], 3)} {_ci(s['kappa_ci95'], 3)}"),
        ("needed an ask (majority ask) [95% CI]", f"{_num(needed['share'])} {_ci(needed['ci95'])}"),
        ("labels ask / act / unsure", " / ".join(_num(shares[c]) for c in ("ask", "act", "unsure"))),
        ("labelled points with an ask fork (improved)", f"{fork['labelled_with_ask_fork']} ({fork['improved']})"),
        ("auc_vs_flips [95% CI]", f"{_num(s['auc_vs_flips'])} {_ci(s['auc_vs_flips_ci95'])}"),
    ]
    for name, value in rows:
        table.add_row(name, value)
    out.print(table)
    notes = [
        "kappa CI: percentile bootstrap over the points with 2+ labels "
        f"({s['bootstrap']['resamples']} resamples, seed {s['bootstrap']['seed']}); needed an ask: Wilson",
    ]
    if s["auc_vs_flips"] is None:
        why = (
            "no `whatif` ask fork at a labelled point (clarify-tui whatif --run RUN)"
            if not fork["labelled_with_ask_fork"]
            else "the forks there all flipped, or none did: no ranking to measure"
        )
        notes.append(f"auc_vs_flips: - = {why}")
    for note in notes:
        out.print(f"[dim]{note}[/dim]")
