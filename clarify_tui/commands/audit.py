"""`clarify-tui audit`: audit a run's user simulator (docs/audit.md). Every ask of the run is
answered blind by another simulator (`--with SPEC`) or by people (`--queue NAME`, played with
`play --queue NAME` / `serve --queue NAME`); without either it reports on every answer so far.
Disagreements are forked with the auditor's reply (flips, accuracy_shift)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import TYPE_CHECKING, Any

from clarify_tui.commands.common import add_db, at_least, db_path, file_path, open_store, run_name

if TYPE_CHECKING:
    from clarify_tui.commands.common import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("audit", help="audit a run's user simulator: blind replies, agreement, kappa, what it changes")
    p.add_argument("--run", required=True, type=run_name, help="the run whose asks are audited")
    add_db(p)
    who = p.add_mutually_exclusive_group()
    who.add_argument(
        "--with", dest="with_spec", metavar="SPEC", help="answer with this user simulator (as `run --user SPEC`)"
    )
    who.add_argument("--queue", metavar="NAME", help="create an audit queue for people (play/serve --queue NAME)")
    p.add_argument("--sample", type=at_least(1), default=None, metavar="N", help="a seeded sample of N asks")
    p.add_argument("--seed", type=int, default=0, help="the sample's and the bootstrap's seed (default 0)")
    p.add_argument("--per-item", type=at_least(1), default=1, metavar="K", help="answers wanted per item (people)")
    p.add_argument("--no-forks", action="store_true", help="do not fork the disagreements (no flips, no shift)")
    p.add_argument("--format", default="table", choices=("table", "json"))
    p.add_argument("--config", default=None, type=file_path, help="clarify.toml with endpoints and model settings")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from clarify_tui.audit.run import audit

    config_obj = None
    if args.config:
        from clarify_tui.config import load_config

        config_obj = load_config(args.config)
    store = open_store(args, must_exist=True)
    say = lambda line: print(line, file=sys.stderr)
    summary = asyncio.run(
        audit(
            store,
            args.run,
            with_spec=args.with_spec,
            queue=args.queue,
            n=args.sample,
            seed=args.seed,
            per_item=args.per_item,
            forks=not args.no_forks,
            config_obj=config_obj,
            say=say,
        )
    )
    if args.queue and not args.with_spec:
        db = db_path(args)
        say(
            f"play it: clarify-tui play --queue {args.queue} --db {db}  (browser: clarify-tui serve --queue "
            f"{args.queue} --db {db}); then report: clarify-tui audit --run {args.run} --db {db}"
        )
    if args.queue and not args.with_spec and args.format == "table":
        return 0  # a new queue for people: the lines above say how to play it and report on it
    if args.format == "json":
        json.dump(summary, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        print_tables(summary)
    return 0


def _num(v: Any, pct: bool = False) -> str:
    if v is None:
        return "–"
    return f"{100 * v:.1f}%" if pct else f"{v:.3f}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f" [{ci[0]:.3f}, {ci[1]:.3f}]"


def _compared(comparison: str) -> str:
    return "reply classes" if comparison.startswith("reply classes") else comparison.split(": ", 1)[-1]


def _shift(s: dict[str, Any]) -> str:
    if s.get("delta") is None:
        return "–"
    nuggets = str(s.get("unit", "")).startswith("restore")
    f = (lambda v: f"{v:+.1f}") if nuggets else (lambda v: f"{100 * v:+.1f} pp")
    ci = s.get("ci95")
    return f(s["delta"]) + (f" [{f(ci[0])}, {f(ci[1])}]" if ci else f" ({s['note']})" if s.get("note") else "")


def print_tables(summary: dict[str, Any]) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    console.print(f"simulator audit of run {summary['run']}: {summary['asks_in_run']} ask(s)")
    for name in summary["unauditable"]:
        console.print(f"cannot audit protocol '{name}': it has no audit hooks (docs/audit.md)")
    if not summary["audits"]:
        console.print("no audit yet: audit --with SPEC, or --queue NAME for people")
    for a in summary["audits"]:
        for bench, b in a["benchmarks"].items():
            who = (
                f"auditor {a['auditor']}"
                if a["auditor"] != "people"
                else f"people: {', '.join(a['annotators']) or 'none yet'}"
            )
            t = Table(title=f"{bench}: {who} (queue {a['queue']})")
            t.add_column("measure")
            t.add_column("value", justify="right")
            rows = [
                ("asks audited / in the run", f"{b['asks']} / {b['asks_in_run']}"),
                ("agreement", _num(b["agreement"], pct=True)),
                (f"kappa ({b['method'] or '-'}) [95% CI]", _num(b["kappa"]) + _ci(b["kappa_ci95"])),
                ("compared by", _compared(b["comparison"])),
            ]
            if b.get("among_auditors"):
                m = b["among_auditors"]
                rows.append((f"kappa among auditors ({m['method']})", _num(m["kappa"]) + _ci(m["kappa_ci95"])))
            rows += [
                (
                    f"  simulator said {c}",
                    f"{v['asks']} of {v['asks_in_run']} audited, {_num(v['agreement'], True)} agree",
                )
                for c, v in b["by_class"].items()
            ]
            rows += [("disagreements", b["disagreements"]), ("forks (errored)", f"{b['forks']} ({b['forks_errored']})")]
            rows += [(f"  {k.replace('_', ' ')}", v) for k, v in b["flips"].items()]
            rows.append(
                (f"accuracy_shift over {b['accuracy_shift']['tasks']} task(s) [95% CI]", _shift(b["accuracy_shift"]))
            )
            for k, v in rows:
                t.add_row(k, str(v))
            console.print(t)
            conf = b.get("confusion")
            if conf:
                c = Table(title=f"confusion: rows {conf['rows']}, columns {conf['columns']}")
                c.add_column("")
                for cat in conf["categories"]:
                    c.add_column(cat, justify="right")
                for cat, row in zip(conf["categories"], conf["table"]):
                    c.add_row(cat, *map(str, row))
                console.print(c)
