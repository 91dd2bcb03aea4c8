"""`clarify-tui run`: a batch of episodes into the database, with a progress bar and a summary."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.console import Console

from clarify_tui.agent_faults import ANY, tolerance
from clarify_tui.argtypes import task_limit
from clarify_tui.backend_spec import BackendSpec
from clarify_tui.commands.common import BENCHMARKS, add_db, at_least, config_choices, id_list, run_name, spec
from clarify_tui.commands.progress import run_progress
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig
from clarify_tui.protocols import registry
from clarify_tui.protocols.interactcomp.compat import DEFAULT_COMPAT
from clarify_tui.redaction import redact
from clarify_tui.role_flags import add_config, add_deep_search, add_judge, add_user, parse_overrides
from clarify_tui.run_request import RunRequest

if TYPE_CHECKING:
    from clarify_tui.api import RunResult
    from clarify_tui.commands.common import Subparsers
    from clarify_tui.runner import RunSummary
    from clarify_tui.store import Store

console = Console(stderr=True, soft_wrap=True)


def register(sub: Subparsers) -> None:
    p = sub.add_parser("run", help="run a batch of episodes (offline by default)")
    p.add_argument("--benchmark", required=True, choices=BENCHMARKS)
    p.add_argument("--dataset", default="demo", help="'demo' or a dataset path")
    p.add_argument(
        "--agent",
        required=True,
        type=spec,
        help="scripted:POLICY | openai:MODEL | py:FILE.py:NAME | py:package.module:NAME | "
        "http://HOST:PORT/PATH (docs/agents.md)",
    )
    p.add_argument(
        "--agent-arg",
        dest="agent_args",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a keyword argument for a py: agent's class or factory (repeatable; [agent.args] in clarify.toml)",
    )
    add_user(p)
    p.add_argument(
        "--search", default="local", type=spec, help="local | tavily | serper (Google, as the InteractComp reference)"
    )
    add_judge(p)
    p.add_argument("--task-ids", type=id_list, default=None, metavar="A,B,C", help="only these tasks, in this order")
    p.add_argument(
        "--epochs",
        type=at_least(1),
        default=1,
        metavar="N",
        help="play each task N times (score reports the mean, std over epochs and pass^k)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=None,
        help="sent as `seed` to model APIs that take one (a role's own seed wins) and to py: "
        "backends that take a `seed` argument; recorded on the run",
    )
    add_db(p)
    p.add_argument("--run", dest="run_name", type=run_name, default=None, help="run name (default: agent and time)")
    p.add_argument(
        "--concurrency",
        type=at_least(1),
        default=4,
        help="episodes at once; also raises the model endpoint's call limit unless the config pins it",
    )
    p.add_argument(
        "--limit",
        type=task_limit,
        default=None,
        metavar="N|A-B",
        help="only the first N tasks, or tasks A to B (1-based, inclusive, as Inspect's --limit)",
    )
    p.add_argument("--resume", action="store_true", help="continue a run: skip finished tasks")
    p.add_argument(
        "--take-over",
        action="store_true",
        help="break another process's lease on the run (when its holder is gone but looks alive, "
        "e.g. its pid was reused); says whose lease it breaks",
    )
    p.add_argument(
        "--retry-errored",
        action="store_true",
        help="with --resume: play errored tasks again (the old sessions are kept as superseded)",
    )
    p.add_argument(
        "--task-attempts",
        type=at_least(1),
        default=None,
        metavar="N",
        help="play a task up to N times while it errors or (InteractComp) its action cannot be called; "
        "earlier attempts are kept as superseded (default: 3 for InteractComp, as its reference "
        "harness re-runs such a task; 1 otherwise)",
    )
    p.add_argument(
        "--k",
        type=int,
        default=None,
        choices=(0, 1, 2, 3),
        help="CTS clarification budget (default 1); 0 = orig (deep search on the blurred query, no clarification)",
    )
    add_deep_search(p)
    p.add_argument("--max-rounds", type=at_least(1), default=None)
    p.add_argument(
        "--mode",
        default=None,
        choices=config_choices("interactcomp_mode"),
        help="InteractComp action space (default full)",
    )
    p.add_argument(
        "--forced-asks",
        type=at_least(0),
        default=None,
        metavar="N",
        help="InteractComp forced_ask: asks required before answering (default 5, as the reference); "
        "alone it means --mode forced_ask; with another --mode it is refused",
    )
    p.add_argument(
        "--actions",
        default=None,
        choices=config_choices("actions"),
        help="InteractComp action parsing: the reference harness's exact rules (default), or ours "
        "(aliases, flat params, <answer> tags)",
    )
    p.add_argument(
        "--compat",
        default=None,
        choices=config_choices("compat"),
        help="InteractComp responder/grader readings: paper (default: the reference harness's, "
        "comparable with the paper), strict (ours; not the paper's numbers), reference (the "
        "harness's readings and its turning failed calls into answers)",
    )
    p.add_argument(
        "--prompting", default=None, choices=config_choices("prompting"), help="DiscoBench prompting (default neutral)"
    )
    p.add_argument(
        "--ablation",
        default=None,
        choices=config_choices("ablation"),
        help="DiscoBench ablation (default none)",
    )
    p.add_argument(
        "--checkpoints",
        default=None,
        choices=config_choices("checkpoints"),
        help="DiscoBench: answer = the agent answers each checkpoint; a wrong one fails it and the next "
        "becomes current, unannounced; the last checkpoint's answer decides accuracy (paper §3, B.1, "
        "B.2; default); strict = a wrong intermediate answer ends the task (not the paper's); "
        "trajectory = infer checkpoint outcomes from a single-answer trajectory",
    )
    p.add_argument(
        "--fail-on-error",
        nargs="?",
        const=ANY,
        default=None,
        type=tolerance,
        metavar="N|FRACTION",
        help="exit 1 when more sessions than this errored or were ended by the agent's own invalid "
        "outputs (None, garbage, a forbidden action; scored wrong): bare = any, N = more than N, "
        "a number below 1 = more than that share (docs/runs.md)",
    )
    p.add_argument(
        "--search-cache",
        default="record",
        choices=("record", "replay", "off"),
        help="cache searches in the database (record: use and fill; replay: cache only)",
    )
    add_config(p)  # --config, --set
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    from rich.markup import escape

    from clarify_tui import api

    check_flag_pairs(args)
    config = episode_config(args)
    registry.get(args.benchmark).check_config(config)
    if args.compat is not None and (idle := compat_changes_nothing(args)):
        console.print(f"warning: --compat {args.compat} {idle}", markup=False, highlight=False)
    for flag, owner in other_benchmarks_flags(args):
        console.print(
            f"warning: {flag} changes nothing: it applies to {owner} only, not {args.benchmark}",
            markup=False,
            highlight=False,
        )
    progress = run_progress(args.run_name or args.benchmark)
    with progress:
        result = api.play(
            run_request(args, config),
            on_banner=lambda line: console.print(f"[yellow]{escape(line)}[/yellow]"),
            on_start=progress.start,
            on_session_done=lambda s: progress.advance(s),
            notify=lambda line: console.print(line, markup=False, highlight=False),
        )
        progress.finish()
    from clarify_tui.store import Store

    counts = print_summary(args.benchmark, result.name, result, Store(result.db))
    for note in result.notes:
        console.print(note, markup=False, highlight=False)
    console.print(
        f"saved to {result.db} (run {result.name}); score it with: clarify-tui score --db {result.db} "
        f"--run {result.name}",
        markup=False,
        highlight=False,
    )
    call_limit = result.call_limit
    if call_limit and any(BackendSpec.parse(x).is_model for x in (args.agent, args.user, args.judge, args.deep_search)):
        console.print(call_limit, markup=False, highlight=False)
    return exit_code(counts, args.fail_on_error)


def run_request(args: argparse.Namespace, config: EpisodeConfig) -> RunRequest:
    """`run`'s flags as the typed request `api.play` takes (a sweep cell's too: the sweep
    then replaces what it sets for every cell). `config` is `episode_config(args)`."""
    from clarify_tui.plugins import parse_args

    return RunRequest(
        args.benchmark,
        args.agent,
        dataset=str(args.dataset),
        user=args.user,
        search=args.search,
        judge=args.judge,
        db=args.db,
        name=args.run_name,
        concurrency=args.concurrency,
        limit=args.limit,
        task_ids=args.task_ids,
        epochs=args.epochs,
        seed=args.seed,
        resume=args.resume,
        retry_errored=args.retry_errored,
        task_attempts=args.task_attempts,
        search_cache=args.search_cache,
        episode=config,
        config=args.config,
        overrides=parse_overrides(args.overrides),
        agent_args=parse_args(args.agent_args),
        argv=getattr(args, "argv", None),
        take_over=args.take_over,
    )


def episode_config(args: argparse.Namespace) -> EpisodeConfig:
    """The episode settings of `run`'s flags, each unset one at its paper default (`sweep` reads a cell the same way)."""
    mode = "forced_ask" if args.forced_asks is not None and args.mode is None else args.mode or "full"
    return EpisodeConfig(
        max_rounds=args.max_rounds,
        interactcomp_mode=mode,
        forced_asks=5 if args.forced_asks is None else args.forced_asks,
        prompting=args.prompting or "neutral",
        ablation=args.ablation or "none",
        k=1 if args.k is None else args.k,
        checkpoints=args.checkpoints or "answer",
        deep_search=args.deep_search,
        actions=args.actions or "reference",
        compat=args.compat or DEFAULT_COMPAT,
    )


EXIT_ERRORED = 1  # docs/runs.md "Exit codes": some session of the run errored (scripts and CI must see it)


@dataclass
class RunCounts:
    """What decides `run`'s exit code: sessions errored, ended by the agent's own invalid
    outputs (scored wrong), and in all (completed and errored)."""

    errored: int
    agent_ended: int
    total: int


def exit_code(counts: RunCounts, fail_on_error: float | None) -> int:
    """1 when a session errored; with `--fail-on-error`, when more sessions than it
    tolerates errored or were ended by the agent's invalid outputs."""
    from clarify_tui.agent_faults import over_tolerance

    if fail_on_error is None:
        return EXIT_ERRORED if counts.errored else 0
    failed = counts.errored + counts.agent_ended
    return EXIT_ERRORED if over_tolerance(failed, counts.total, fail_on_error) else 0


def print_summary(benchmark: str, name: str, summary: RunSummary | RunResult, store: Store) -> RunCounts:
    """Print the run's summary: the one line, then what it needs said (the agent's invalid
    outputs, retries, errored sessions); returns the counts the exit code is made of."""
    from clarify_tui.agent_faults import agent_faults

    protocol = registry.get(benchmark)
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
        line += protocol.run_line(done, errored)
        if unreadable := sum(getattr(s.result, "unreadable_verdicts", 0) for s in done):
            line += (
                f"; {unreadable} unreadable grader repl{'ies' if unreadable != 1 else 'y'} scored wrong "
                f"(the paper's reading; the replies are on the judge steps)"
            )
    console.print(line)
    for note in protocol.run_notes(sessions, done):
        console.print(note, markup=False, highlight=False)
    retries, steps, causes = store.retry_totals(name)
    if retries:
        because = ", ".join(f"{cause} ×{n}" for cause, n in sorted(causes.items(), key=lambda kv: -kv[1]))
        console.print(f"retries: {retries} on {steps} step(s) ({because})", markup=False, highlight=False)
    faults = agent_faults(sessions, store.agent_step_errors(name))
    if said := faults.line():
        console.print(redact(said), markup=False, highlight=False)
    for s in errored[:5]:
        console.print(f"  [red]errored[/red] {s.id} task {s.task_id}: {(redact(s.error) or '').splitlines()[0][:200]}")
    return RunCounts(errored=len(errored), agent_ended=faults.ended, total=len(sessions))


def other_benchmarks_flags(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(flag, benchmark name) for each flag given that another benchmark than --benchmark reads.
    A warning, not a refusal, as for --compat: one command line looped over benchmarks stays valid."""
    others = [registry.get(name) for name in registry.in_report_order() if name != args.benchmark]
    return [
        (f"--{dest.replace('_', '-')}", spec.title)
        for spec in others
        for dest in spec.run_flags
        if getattr(args, dest) is not None
    ]


def check_flag_pairs(args: argparse.Namespace) -> None:
    """Flags that mean nothing without another, or nothing in a batch run (refused, as they
    would be ignored unsaid or wait for ever)."""
    if args.retry_errored and not args.resume:
        raise UsageError("--retry-errored continues a run: give --resume (and --run NAME) too")
    if args.resume and not args.run_name:  # the default name holds the time: it never names a run to continue
        raise UsageError("--resume continues a run: give its --run NAME (`clarify-tui sessions` lists the runs)")
    if args.agent_args and not BackendSpec.parse(args.agent).is_py:
        raise UsageError(f"--agent-arg goes to a py: agent's class or factory; --agent {args.agent} takes none")
    if args.forced_asks is not None and args.mode not in (None, "forced_ask"):
        # it used to turn --mode full into forced_ask unsaid (another experiment than the one asked for)
        raise UsageError(
            f"--forced-asks applies to --mode forced_ask; --mode {args.mode} requires no asks "
            "(drop --forced-asks, or give --mode forced_ask)"
        )
    for role in ("agent", "user"):  # api.run refuses it too (a ValueError there, for Python callers)
        if BackendSpec.parse(getattr(args, role)).is_human:  # a batch run has nobody at the keyboard
            raise UsageError(
                f"run has no person at the keyboard: --{role} human is played in the TUI, "
                f"`clarify-tui play --as {role}` (--queue RUN for a whole dataset)"
            )


def compat_changes_nothing(args: argparse.Namespace) -> str | None:
    """Why an explicit --compat has no effect on this run (None: it has one). It chooses
    how a model's replies are read; a rule user or judge has no wording to read."""
    if not registry.get(args.benchmark).reads_compat:
        readers = " or ".join(registry.get(n).title for n in registry.names() if registry.get(n).reads_compat)
        return f"changes nothing: it applies to {readers} only, not {args.benchmark}"
    models = [role for role in ("user", "judge") if BackendSpec.parse(getattr(args, role)).is_model]
    searches = args.compat == "reference" and args.search != "local"  # a failed search: "Search failed"
    if not models and not searches:
        return (
            "changes nothing: the rule user and the rule judge reply with fixed words, "
            "there is no model wording to read (it matters with --user/--judge openai:MODEL)"
        )
    rules = [role for role in ("user", "judge") if role not in models]
    if rules:
        return f"does not change the rule {' or '.join(rules)}'s replies (fixed words, nothing to read)"
    return None
