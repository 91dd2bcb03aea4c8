"""The Python API: run and score from a notebook or a script, without a shell.

`run(...)` and `scores(...)` are what `clarify-tui run` and `clarify-tui score` call (the commands
only add a progress bar and printing), so a number from the API equals the command's (docs/api.md).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarify_tui.argtypes import TaskLimit, take
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig, Session

if TYPE_CHECKING:
    from clarify_tui.metrics.model import Scores
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


def load_run_config(
    config: str | Path | None = None,
    overrides: dict | None = None,
    *,
    specs: tuple[str, ...] = (),
    agent_args: dict | None = None,
):
    """The Config when one is needed (a config file, overrides, a model or a researcher's
    backend among `specs`), else None (offline runs read no file)."""
    overrides = dict(overrides or {})
    if agent_args:
        overrides.setdefault("agent", {}).setdefault("args", {}).update(agent_args)
    needs = any(s.startswith(("openai", "tavily", "serper", "py:", "http://", "https://")) for s in specs if s)
    if config is None and not overrides and not needs:
        return None
    from clarify_tui.config import load_config

    return load_config(Path(config) if config is not None else None, overrides=overrides)


def select_tasks(tasks: list, task_ids: list[str] | None, limit: TaskLimit | None) -> list:
    """`--task-ids a,b,c` (in the order given; an unknown id is an error naming it), then `--limit`."""
    if task_ids:
        by_id = {t.id: t for t in tasks}
        missing = [i for i in task_ids if i not in by_id]
        if missing:
            known = ", ".join(list(by_id)[:10])
            raise UsageError(
                f"--task-ids: no task {', '.join(repr(m) for m in missing)} in the dataset "
                f"(it has {len(by_id)}: {known}{', ...' if len(by_id) > 10 else ''})"
            )
        tasks = [by_id[i] for i in dict.fromkeys(task_ids)]
    return take(tasks, limit)


def check_replayable(path: Path, search: str) -> None:
    """`--search-cache replay` answers searches from the database only: with nothing recorded
    for the backend, every search would miss and every session error (3 attempts each)."""
    from clarify_tui.search.cache import recorded
    from clarify_tui.store import Store

    how = "record them first (--search-cache record) or bring them with `clarify-tui cache import`"
    if not path.exists():
        raise UsageError(f"--search-cache replay: {path} does not exist, so it holds no recorded searches; {how}")
    store = Store(path, readonly=True, existing=True)
    try:
        found = recorded(store.conn, search)
    finally:
        store.close()
    if not found:
        raise UsageError(f"--search-cache replay: {path} holds no recorded {search} searches; {how}")


@dataclass
class PreparedRun:
    """A run checked and ready to play: its spec (backends built once), its tasks, its
    config and database. `run` plays one; `clarify-tui sweep` plays many at once."""

    spec: Any  # run_spec.RunSpec (imported lazily: the runner pulls in every backend)
    tasks: list
    config_obj: Any
    db: Path
    call_limit: str | None


def prepare_run(
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
    task_attempts: int | None = None,
    search_cache: str = "record",
    episode: EpisodeConfig | dict | None = None,
    config: str | Path | None = None,
    overrides: dict | None = None,
    agent_args: dict | None = None,
    argv: list[str] | None = None,
    on_banner: Callable[[str], None] | None = None,
) -> PreparedRun:
    """Everything `run` checks before it touches the database: the tasks, the spec, the
    config and its call limit, every backend built once, the provenance. A bad setting
    raises here."""
    from clarify_tui.deviations import banner
    from clarify_tui.paths import default_db_path
    from clarify_tui.provenance import run_provenance
    from clarify_tui.run_spec import RunSpec
    from clarify_tui.runner import apply_call_limit, run_deviations, validate_spec
    from clarify_tui.tasks import load_tasks

    agent_object = None
    if not isinstance(agent, str):
        agent_object, agent = agent, f"py:{type(agent).__module__}:{type(agent).__qualname__}"
    if epochs < 1:
        raise UsageError(f"--epochs must be at least 1, got {epochs}")
    for role, role_spec in (("agent", agent), ("user", user)):
        if role_spec.split(":")[0] == "human":  # a batch run has nobody at the keyboard: it would wait for ever
            raise UsageError(
                f"run has no person at the keyboard: --{role} human is played in the TUI, "
                f"`clarify-tui play --as {role}` (--queue RUN for a whole dataset)"
            )
    episode_config = episode if isinstance(episode, EpisodeConfig) else EpisodeConfig(**(episode or {}))
    tasks = select_tasks(load_tasks(benchmark, dataset), task_ids, limit)
    name = name or f"{benchmark}-{agent.replace(':', '-').replace('/', '-')}-{datetime.now():%Y%m%d-%H%M%S}"
    spec = RunSpec(
        name=name,
        agent=agent,
        user=user,
        search=search,
        judge=judge,
        benchmark=benchmark,
        dataset=str(dataset),
        config=episode_config,
        concurrency=concurrency,
        search_cache=search_cache,  # type: ignore[arg-type]
        task_attempts=task_attempts,
        epochs=epochs,
        seed=seed,
        agent_object=agent_object,
    )
    if seed is not None:
        overrides = {**(overrides or {}), "seed": seed}
    config_obj = load_run_config(
        config, overrides, specs=(agent, user, judge, search, episode_config.deep_search or ""), agent_args=agent_args
    )
    if not episode_config.deep_search and config_obj is not None and config_obj.deep_search.spec:
        spec.config = episode_config.model_copy(update={"deep_search": config_obj.deep_search.spec})
    call_limit = apply_call_limit(config_obj, concurrency)
    validate_spec(spec, config_obj)  # a bad spec ends here: no database, no runs row
    spec.provenance = run_provenance(
        benchmark=benchmark,
        dataset=str(dataset),
        agent=agent,
        user=user,
        judge=judge,
        search=search,
        deep_search=spec.config.deep_search,
        config_obj=config_obj,
        argv=argv,
        agent_object=agent_object,
    )
    spec.agent_args = spec.provenance["roles"]["agent"].get("args")  # recorded and compared as a setting
    if on_banner is not None and (line := banner(run_deviations(spec))) is not None:
        on_banner(line)
    path = Path(db) if db is not None else default_db_path()
    if search_cache == "replay":
        check_replayable(path, search)
    return PreparedRun(spec=spec, tasks=tasks, config_obj=config_obj, db=path, call_limit=call_limit)


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
    from clarify_tui.run_spec import check_resumable
    from clarify_tui.runner import run_batch
    from clarify_tui.store import Store

    if retry_errored and not resume:
        raise UsageError("--retry-errored continues a run: give --resume (and --run NAME) too")
    prepared = prepare_run(
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
        task_attempts=task_attempts,
        search_cache=search_cache,
        episode=episode,
        config=config,
        overrides=overrides,
        agent_args=agent_args,
        argv=argv,
        on_banner=on_banner,
    )
    spec, tasks, config_obj, path, name = (
        prepared.spec,
        prepared.tasks,
        prepared.config_obj,
        prepared.db,
        prepared.spec.name,
    )
    call_limit = prepared.call_limit
    store = Store(path)
    if resume:
        check_resumable(store, name)  # before any progress: one line saying there is nothing to resume
    if on_start is not None:
        on_start(len(tasks) * epochs)
    summary = _run_sync(
        run_batch(
            store,
            spec,
            tasks,
            resume=resume,
            retry_errored=retry_errored,
            config_obj=config_obj,
            on_session_done=on_session_done,
            take_over=take_over,
            notify=notify,
        )
    )
    return RunResult(
        name=name,
        db=path,
        sessions=summary.sessions,
        skipped=summary.skipped,
        superseded=summary.superseded,
        replayed=summary.replayed,
        tasks=len(tasks),
        epochs=epochs,
        notes=list(summary.notes),
        call_limit=call_limit,
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
    profile_k: float | str | None = None,
    bootstrap: int = 10_000,
    seed: int = 0,
    from_export: str | Path | None = None,
    executor=None,
    on_note: Callable[[str], None] | None = None,
    profile_subset: str = "common",
) -> Scores:
    """The score report, typed (metrics/model.py `Scores`: a protocol's model per group);
    `score` is its JSON. `profile_subset`: DiscoBench profiles on the common subset or all."""
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
    report = score_groups(
        sessions,
        by=by,
        profile_k=profile_k,
        bootstrap=bootstrap,
        seed=seed,
        executor=executor,
        profile_subset=profile_subset,
    )
    if on_note is not None:
        from clarify_tui.protocols import registry

        for name in registry.in_report_order():  # what each protocol's numbers need said
            for line in registry.get(name).score_notes(sessions):
                on_note(line)
    return report
