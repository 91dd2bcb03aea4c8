"""`clarify-tui run`: a batch of episodes into the database, with a progress bar and a summary."""

from __future__ import annotations

import argparse
import asyncio
from datetime import datetime

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from clarify_tui.commands.common import BENCHMARKS, add_db, config_choices, open_store
from clarify_tui.compat import DEFAULT_COMPAT, strict_note
from clarify_tui.models import EpisodeConfig
from clarify_tui.results import CTSResult, InteractCompResult

console = Console(stderr=True, soft_wrap=True)


def register(sub) -> None:
    p = sub.add_parser("run", help="run a batch of episodes (offline by default)")
    p.add_argument("--benchmark", required=True, choices=BENCHMARKS)
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    p.add_argument("--agent", required=True, help="scripted:POLICY | openai:MODEL")
    p.add_argument("--user", default="rule", help="rule | openai:MODEL")
    p.add_argument("--search", default="local", help="local | tavily | serper (Google, as the InteractComp reference)")
    p.add_argument("--judge", default="rule", help="rule | openai:MODEL")
    add_db(p)
    p.add_argument("--run", dest="run_name", default=None, help="run name (default: agent and time)")
    p.add_argument("--concurrency", type=at_least(1), default=4,
                   help="episodes at once; also raises the model endpoint's call limit unless the config pins it")
    p.add_argument("--limit", type=at_least(0), default=None, help="only the first N tasks")
    p.add_argument("--resume", action="store_true", help="continue a run: skip finished tasks")
    p.add_argument("--retry-errored", action="store_true",
                   help="with --resume: play errored tasks again (the old sessions are kept as superseded)")
    p.add_argument("--task-attempts", type=at_least(1), default=None, metavar="N",
                   help="play a task up to N times while it errors or (InteractComp) its action cannot be called; "
                        "earlier attempts are kept as superseded (default: 3 for InteractComp, as its reference "
                        "harness re-runs such a task; 1 otherwise)")
    p.add_argument("--k", type=int, default=1, choices=(0, 1, 2, 3),
                   help="CTS clarification budget; 0 = orig (deep search on the blurred query, no clarification)")
    p.add_argument("--deep-search", default=None, metavar="SPEC",
                   help="CTS: the fixed deep-search agent (scripted:POLICY | openai:MODEL; or `spec` in [deep_search] "
                        "of clarify.toml, with its settings); required for a clarifier that is not scripted (paper "
                        "001 varies only the clarifier); scripted clarifiers without it search themselves")
    p.add_argument("--max-rounds", type=at_least(1), default=None)
    p.add_argument(
        "--mode", default="full",
        choices=config_choices("interactcomp_mode"),
        help="InteractComp action space",
    )
    p.add_argument("--forced-asks", type=int, default=None, metavar="N",
                   help="InteractComp forced_ask: asks required before answering (default 5, as the reference)")
    p.add_argument("--actions", default="reference", choices=config_choices("actions"),
                   help="InteractComp action parsing: the reference harness's exact rules, or ours "
                        "(aliases, flat params, <answer> tags)")
    p.add_argument("--compat", default=None, choices=config_choices("compat"),
                   help="InteractComp responder/grader readings: paper (default: the reference harness's, "
                        "comparable with the paper), strict (ours; not the paper's numbers), reference (the "
                        "harness's readings and its turning failed calls into answers)")
    p.add_argument("--prompting", default="neutral", choices=config_choices("prompting"), help="DiscoBench prompting")
    p.add_argument(
        "--ablation", default="none", choices=config_choices("ablation"),
        help="DiscoBench ablation",
    )
    p.add_argument(
        "--checkpoints", default="answer", choices=config_choices("checkpoints"),
        help="DiscoBench: answer = the agent answers each checkpoint; a wrong one fails it and the next "
             "becomes current, unannounced; the last checkpoint's answer decides accuracy (paper §3, B.1, "
             "B.2; default); strict = a wrong intermediate answer ends the task (not the paper's); "
             "trajectory = infer checkpoint outcomes from a single-answer trajectory",
    )
    p.add_argument("--search-cache", default="record", choices=("record", "replay", "off"),
                   help="cache searches in the database (record: use and fill; replay: cache only)")
    p.add_argument("--config", default=None, help="clarify.toml with endpoints and model settings")
    p.add_argument(
        "--set", dest="overrides", action="append", default=[], metavar="ROLE.FIELD=VALUE",
        help="override a config field, e.g. --set agent.temperature=0.2 --set judge.model=gpt-4o (wins over clarify.toml)",
    )
    p.set_defaults(func=main)


def at_least(low: int):
    """An argparse type: an integer >= low (argparse names the flag in its error)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got '{text}'") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    parse.__name__ = "number"
    return parse


def main(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from clarify_tui.deviations import banner
    from clarify_tui.runner import RunSpec, apply_call_limit, run_batch, run_deviations, validate_spec
    from clarify_tui.tasks import load_tasks

    if args.retry_errored and not args.resume:
        raise ValueError("--retry-errored continues a run: give --resume (and --run NAME) too")
    for role in ("agent", "user"):  # a batch run has nobody at the keyboard: it would wait for ever
        if (getattr(args, role, None) or "").split(":")[0] == "human":
            raise ValueError(f"run has no person at the keyboard: --{role} human is played in the TUI, "
                             f"`clarify-tui play --as {role}` (--queue RUN for a whole dataset)")

    tasks = load_tasks(args.benchmark, args.dataset)
    if args.limit is not None:
        tasks = tasks[: args.limit]
    mode = "forced_ask" if args.forced_asks and args.mode == "full" else args.mode
    config = EpisodeConfig(
        max_rounds=args.max_rounds, interactcomp_mode=mode,
        forced_asks=5 if args.forced_asks is None else args.forced_asks,
        prompting=args.prompting, ablation=args.ablation, k=args.k, checkpoints=args.checkpoints,
        deep_search=args.deep_search,
        actions=args.actions, compat=args.compat or DEFAULT_COMPAT,
    )
    check_interactcomp_flags(args.benchmark, config)
    if args.compat is not None and (idle := compat_changes_nothing(args)):
        console.print(f"warning: --compat {args.compat} {idle}", markup=False, highlight=False)
    name = args.run_name or f"{args.benchmark}-{args.agent.replace(':', '-')}-{datetime.now():%Y%m%d-%H%M%S}"
    spec = RunSpec(
        name=name, agent=args.agent, user=args.user, search=args.search, judge=args.judge,
        benchmark=args.benchmark, dataset=str(args.dataset), config=config,
        concurrency=args.concurrency, search_cache=args.search_cache, task_attempts=args.task_attempts,
    )
    config_obj = None
    specs = (args.agent, args.user, args.judge, args.search, args.deep_search or "")
    if args.config or args.overrides or any(s.startswith(("openai", "tavily", "serper")) for s in specs):
        from pathlib import Path

        from clarify_tui.config import load_config

        config_obj = load_config(Path(args.config) if args.config else None, overrides=parse_overrides(args.overrides))
    if not config.deep_search and config_obj is not None and config_obj.deep_search.spec:
        spec.config = config.model_copy(update={"deep_search": config_obj.deep_search.spec})
    call_limit = apply_call_limit(config_obj, args.concurrency)
    validate_spec(spec, config_obj)  # a bad spec ends here: no database, no runs row
    from clarify_tui.provenance import run_provenance

    spec.provenance = run_provenance(
        benchmark=args.benchmark, dataset=str(args.dataset), agent=args.agent, user=args.user, judge=args.judge,
        search=args.search, deep_search=config.deep_search, config_obj=config_obj, argv=getattr(args, "argv", None),
    )
    if (line := banner(run_deviations(spec))) is not None:
        console.print(f"[yellow]{escape(line)}[/yellow]")
    store = open_store(args)
    with Progress(
        TextColumn(f"[bold]{name}[/bold]"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=console, transient=False,
    ) as progress:
        bar = progress.add_task("run", total=len(tasks))
        summary = asyncio.run(
            run_batch(
                store, spec, tasks, resume=args.resume, retry_errored=args.retry_errored, config_obj=config_obj,
                on_session_done=lambda s: progress.advance(bar),
            )
        )
        progress.update(bar, completed=len(tasks))
    print_summary(args.benchmark, name, summary, store)
    for note in summary.notes:
        console.print(note, markup=False, highlight=False)
    if call_limit and any(x.startswith("openai") for x in (args.agent, args.user, args.judge, args.deep_search or "")):
        console.print(call_limit, markup=False, highlight=False)
    return 0


def print_summary(benchmark: str, name: str, summary, store) -> None:
    sessions = [s for s in store.sessions(runs=[name]) if s.status in ("completed", "errored")]
    done = [s for s in sessions if s.status == "completed"]
    errored = [s for s in sessions if s.status == "errored"]
    line = f"run [bold]{name}[/bold]: {len(done)} completed, {len(errored)} errored"
    if summary.skipped:
        line += f", {summary.skipped} already done (resumed)"
    if summary.superseded:
        line += f", {summary.superseded} errored session(s) superseded by a retry"
    if summary.replayed:
        line += f", {summary.replayed} attempt(s) played again (--task-attempts; kept as superseded)"
    if done:
        if benchmark == "cts":
            scores = [(s.result.restore_score if isinstance(s.result, CTSResult) else None) or 0.0 for s in done]
            line += f"; mean restore score {sum(scores) / len(scores):.1f}"
            line += "; " + deep_search_line(done[0].config.deep_search)
        else:
            correct = sum(1 for s in done if s.result.correct)
            line += f"; accuracy {correct / len(done):.2f} ({correct}/{len(done)})"
            if benchmark == "interactcomp":
                every = len(done) + len(errored)
                skips = sum(1 for s in done if isinstance(s.result, InteractCompResult)
                            and s.result.outcome == "invalid_skip")
                line += f", accuracy_all {correct / every:.2f} ({correct}/{every}, errored as wrong)"
                line += f"; {skips} invalid skip{'s' * (skips != 1)} (scored wrong)"
        if benchmark in ("discobench", "cts") and (skips := sum(1 for s in done if getattr(s.result, "invalid_skip", None))):
            line += f"; {skips} ended by 3 invalid outputs in a row (scored wrong, not errored)"
    console.print(line)
    if benchmark == "interactcomp" and (note := strict_note(s.config.compat for s in sessions)):
        console.print(f"note: {note}", markup=False, highlight=False)
    retries, steps, causes = store.retry_totals(name)
    if retries:
        because = ", ".join(f"{cause} ×{n}" for cause, n in sorted(causes.items(), key=lambda kv: -kv[1]))
        console.print(f"retries: {retries} on {steps} step(s) ({because})", markup=False, highlight=False)
    for s in errored[:5]:
        console.print(f"  [red]errored[/red] {s.id} task {s.task_id}: {(s.error or '').splitlines()[0][:200]}")


def check_interactcomp_flags(benchmark: str, config: EpisodeConfig) -> None:
    """Refuse what the reference harness refuses (run_benchmark.py:167-172), naming our flags."""
    if benchmark != "interactcomp" or config.interactcomp_mode != "forced_ask":
        return
    rounds = config.max_rounds or 10
    if rounds < config.forced_asks + 1:
        raise ValueError(
            f"--mode forced_ask needs --max-rounds >= --forced-asks + 1 ({config.forced_asks} asks + 1 answer "
            f"round); got --max-rounds {rounds}{'' if config.max_rounds else ' (the default)'} "
            f"with --forced-asks {config.forced_asks}"
        )


def compat_changes_nothing(args: argparse.Namespace) -> str | None:
    """Why an explicit --compat has no effect on this run (None: it has one). It chooses
    how a model's replies are read; a rule user or judge has no wording to read."""
    if args.benchmark != "interactcomp":
        return f"changes nothing: it applies to InteractComp only, not {args.benchmark}"
    models = [role for role in ("user", "judge") if getattr(args, role).startswith("openai")]
    searches = args.compat == "reference" and args.search != "local"  # a failed search: "Search failed"
    if not models and not searches:
        return ("changes nothing: the rule user and the rule judge reply with fixed words, "
                "there is no model wording to read (it matters with --user/--judge openai:MODEL)")
    rules = [role for role in ("user", "judge") if role not in models]
    if rules:
        return f"does not change the rule {' or '.join(rules)}'s replies (fixed words, nothing to read)"
    return None


def deep_search_line(spec: str | None) -> str:
    """What ran CTS deep search: the paper keeps it fixed (WebDancer) while clarifiers vary."""
    if spec:
        return f"deep search: {spec} (fixed)"
    return "deep search: the agent under test (no --deep-search given; the paper keeps it fixed)"


def parse_overrides(items: list[str]) -> dict:
    """`agent.temperature=0.2` -> {"agent": {"temperature": 0.2}} (values parsed as TOML)."""
    import tomllib

    out: dict = {}
    for item in items:
        key, sep, raw = item.partition("=")
        if not sep or "." not in key:
            raise ValueError(f"--set expects ROLE.FIELD=VALUE, got '{item}'")
        try:
            value = tomllib.loads(f"v = {raw}")["v"]
        except tomllib.TOMLDecodeError:
            value = raw
        node = out
        *parents, leaf = key.split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = value
    return out
