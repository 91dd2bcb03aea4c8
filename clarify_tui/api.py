"""The Python API: run and score from a notebook or a script, without a shell.

`run(...)` and `scores(...)` are what `clarify-tui run` and `clarify-tui score` call (the commands
only add a progress bar and printing), so a number from the API equals the command's (docs/api.md).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack

from clarify_tui.argtypes import TaskLimit
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig, Session
from clarify_tui.run_request import (  # noqa: F401  (importable from here as before)
    PreparedRun,
    RunRequest,
    check_replayable,
    load_run_config,
    prepare,
    select_tasks,
)

if TYPE_CHECKING:
    from clarify_tui.metrics.model import Scores
    from clarify_tui.metrics.options import ScoreKeywords
    from clarify_tui.metrics.report import ScoreReport

ROLE_FLAGS = ("agent", "user", "judge", "deep_search")


@dataclass
class RunResult:
    """What a run did: its name, where it saved, and its sessions."""

    name: str
    db: Path
    sessions: list[Session]
    skipped: int = 0
    superseded: int = 0
    replayed: int = 0
    tasks: int = 0
    epochs: int = 1
    notes: list[str] = field(default_factory=list)  # for the summary (e.g. another clarify-tui version resumed)
    call_limit: str | None = None  # the model-call limit line (runner.apply_call_limit)

    @property
    def completed(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "completed"]

    @property
    def errored(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "errored"]


def prepare_run(
    benchmark: str, agent: str | Any, *, on_banner: Callable[[str], None] | None = None, **options: Any
) -> PreparedRun:
    """Everything `run` does before it touches the database (`run_request.prepare`): the
    documented keywords of `run` (docs/api.md) but its progress callbacks, read into a
    `RunRequest`. A bad setting raises here."""
    return prepare(RunRequest(benchmark, agent, **options), on_banner=on_banner)


def run(
    benchmark: str,
    agent: str | Any,
    *,
    dataset: str = "demo",
    user: str = "rule",
    search: str = "local",
    judge: str = "rule",
    db: str | Path | None = None,
    name: str | None = None,
    concurrency: int = 4,
    limit: TaskLimit | None = None,
    task_ids: list[str] | None = None,
    epochs: int = 1,
    seed: int | None = None,
    resume: bool = False,
    retry_errored: bool = False,
    task_attempts: int | None = None,
    search_cache: str = "record",
    episode: EpisodeConfig | dict | None = None,
    config: str | Path | None = None,
    overrides: dict | None = None,
    agent_args: dict | None = None,
    argv: list[str] | None = None,
    on_banner: Callable[[str], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    on_session_done: Callable[[Session], None] | None = None,
    take_over: bool = False,
    notify: Callable[[str], None] | None = None,
) -> RunResult:
    """Play `benchmark` tasks with `agent` (any agent spec: scripted:, openai:, py:,
    http://, or an agent object itself, recorded as `py:module:Class`) and save them to `db` (default: $CLARIFY_DB or sessions/clarify.db). Every
    task is played `epochs` times. Returns the run's sessions; score them with `score()`.
    `take_over` breaks another process's lease on the run (`run --take-over`); `notify`
    hears one line when it did."""
    request = RunRequest(
        benchmark,
        agent,
        dataset=dataset,
        user=user,
        search=search,
        judge=judge,
        db=db,
        name=name,
        concurrency=concurrency,
        limit=limit,
        task_ids=task_ids,
        epochs=epochs,
        seed=seed,
        resume=resume,
        retry_errored=retry_errored,
        task_attempts=task_attempts,
        search_cache=search_cache,
        episode=episode,
        config=config,
        overrides=overrides,
        agent_args=agent_args,
        argv=argv,
        take_over=take_over,
    )
    return play(request, on_banner=on_banner, on_start=on_start, on_session_done=on_session_done, notify=notify)


def play(
    request: RunRequest,
    *,
    on_banner: Callable[[str], None] | None = None,
    on_start: Callable[[int], None] | None = None,
    on_session_done: Callable[[Session], None] | None = None,
    notify: Callable[[str], None] | None = None,
) -> RunResult:
    """`run` of a request: prepared (a bad setting raises before the database), then played."""
    from clarify_tui.run_spec import check_resumable
    from clarify_tui.runner import run_batch
    from clarify_tui.store import Store

    prepared = prepare(request, on_banner=on_banner)
    spec, tasks, path = prepared.spec, prepared.tasks, prepared.db
    store = Store(path)
    if request.resume:
        check_resumable(store, spec.name)  # before any progress: one line saying there is nothing to resume
    if on_start is not None:
        on_start(len(tasks) * request.epochs)
    summary = _run_sync(
        run_batch(
            store,
            spec,
            tasks,
            resume=request.resume,
            retry_errored=request.retry_errored,
            config_obj=prepared.config_obj,
            on_session_done=on_session_done,
            take_over=request.take_over,
            notify=notify,
        )
    )
    return RunResult(
        name=spec.name,
        db=path,
        sessions=summary.sessions,
        skipped=summary.skipped,
        superseded=summary.superseded,
        replayed=summary.replayed,
        tasks=len(tasks),
        epochs=request.epochs,
        notes=list(summary.notes),
        call_limit=prepared.call_limit,
    )


def _run_sync(coro) -> Any:
    """asyncio.run, also from a notebook whose loop is already running (then in a thread)."""
    try:
        asyncio.get_running_loop()
        running = True
    except RuntimeError:
        running = False
    if not running:  # outside the except: the episodes' tracebacks must not chain to it
        return asyncio.run(coro)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def score(db: str | Path | None = None, **options: Any) -> ScoreReport:
    """What `score --format json` prints (metrics/report.py ScoreReport): `scores(...)` as JSON."""
    return scores(db, **options).to_json()


def scores(
    db: str | Path | None = None,
    *,
    runs: list[str] | None = None,
    benchmark: str | None = None,
    by: str = "run",
    judge: str | None = None,
    include_informed: bool = False,
    from_export: str | Path | None = None,
    on_note: Callable[[str], None] | None = None,
    **options: Unpack[ScoreKeywords],
) -> Scores:
    """The score report, typed (metrics/model.py `Scores`: a protocol's model per group);
    `score` is its JSON. `options` (metrics/options.py, the paper's defaults): profile_k,
    profile_subset (DiscoBench profiles on the common subset or all), bootstrap, seed, executor."""
    from clarify_tui.metrics import load_sessions
    from clarify_tui.metrics.once import count_once
    from clarify_tui.metrics.records import without_informed
    from clarify_tui.metrics.report import score_groups

    if from_export is not None:
        if db is not None:
            raise UsageError("give --db or --from-export, not both")
        from clarify_tui.metrics.from_export import load_export

        sessions = load_export(Path(from_export), runs=runs, benchmark=benchmark, judge=judge)
    else:
        from clarify_tui.db_errors import writable
        from clarify_tui.paths import default_db_path
        from clarify_tui.store import Store

        path = Path(db) if db is not None else default_db_path()
        if not path.exists():
            raise FileNotFoundError(f"no database at {path} (run something first, or pass --db)")
        # existing: read-only use; a file that is not ours (another application's, 0 bytes) is refused
        store = Store(path, readonly=path.is_file() and not writable(path), existing=True)
        known = store.run_names()
        missing = [r for r in runs or [] if r not in known]
        if missing:  # a typo must not look like a run with no sessions (exit 0, "no sessions match")
            raise UsageError(
                f"no run {', '.join(repr(r) for r in missing)} in {path}; runs there: {', '.join(known) or 'none'}"
            )
        sessions = load_sessions(store, runs=runs, benchmark=benchmark, judge=judge)
    if not include_informed:
        sessions = without_informed(sessions, on_note)
    sessions, duplicates = count_once(sessions)  # one session per task (and epoch) per run and player
    if on_note is not None:
        for d in duplicates:
            on_note(f"warning: {d.describe()}")
    report = score_groups(sessions, by, **options)
    if on_note is not None:
        from clarify_tui.protocols import registry

        for name in registry.in_report_order():  # what each protocol's numbers need said
            for line in registry.get(name).score_notes(sessions):
                on_note(line)
    return report
