"""Batch runs: many episodes through the same engine, concurrently, resumable.

A run is named; its sessions are written through as they happen. `resume=True` skips
tasks whose session in this run completed, marks sessions left `running` by a crash or
Ctrl-C as abandoned and plays those tasks again. An exception in one episode errors that
session only; the run goes on. With `retry_errored=True` errored tasks are played again:
the old session is kept and, once the new one has ended, marked `superseded` (no metric
counts it); until then it stays counted, so a crash mid-retry loses no task. When a model,
Tavily or Serper endpoint fails `stop_after_failures` calls in a row (breaker.py), the run
stops (RunStopped) instead of paying timeout x retries for every task left; the episodes
it cuts short are errored, as the infrastructure failure they are.

Within a run a task is played up to `task_attempts` times while its session ends errored
or, for InteractComp, with a call the harness could not make (`call_error`): the
reference harness re-runs a task whose agent raised up to 3 times (core/benchmark.py:106,
`stop_after_attempt(3)`), so that is InteractComp's default; the other papers say nothing
and play each task once. Earlier attempts are kept as `superseded` (docs/runs.md).

One process writes a run at a time (a lease in the database, see lease.py); resuming
with a different spec is refused (the spec and those checks: run_spec.py). A database
failure (StoreError) stops the whole run.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field

from clarify_tui import db_errors
from clarify_tui.backend_spec import BackendSpec, RoleSpecs
from clarify_tui.backends import agent_time_limit, build_backends
from clarify_tui.breaker import reset_all, tripped
from clarify_tui.deviations import Setting, calls_of, deviations, is_demo_dataset
from clarify_tui.engine import build_episode
from clarify_tui.errors import UsageError
from clarify_tui.models import Session, Task
from clarify_tui.protocols import registry
from clarify_tui.results import InteractCompResult
from clarify_tui.run_spec import RunSpec, check_provenance, check_resumable, check_same_spec, run_config
from clarify_tui.search.cache import CachedSearch
from clarify_tui.store import Store
from clarify_tui.writer import BackgroundWriter


class RunExistsError(RuntimeError):
    """The run name is taken and --resume was not given."""


class RunStopped(RuntimeError):
    """The run stopped early: an endpoint (model or search) failed `stop_after_failures` calls in a row."""


ATTEMPT_NOTE = "attempt "  # how a superseded attempt's error begins (counted again on --resume)


def plays_again(session: Session) -> bool:
    """Whether an attempt ended as the reference harness would re-run it: the session
    errored (an infrastructure failure; the harness's agent raised) or, InteractComp, the
    action could not be called (the harness raises calling it with `**params`)."""
    if session.status == "errored":
        return True
    return isinstance(session.result, InteractCompResult) and session.result.outcome == "call_error"


@dataclass
class RunSummary:
    sessions: list[Session] = field(default_factory=list)
    skipped: int = 0
    superseded: int = 0
    replayed: int = 0  # attempts superseded by another attempt within this run (task_attempts)
    notes: list[str] = field(default_factory=list)  # for the run summary (e.g. another clarify-tui version)

    @property
    def completed(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "completed"]

    @property
    def errored(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "errored"]


FIXED_DEEP_SEARCH_RULE = (
    'paper 001 §5.1: "To isolate clarification ability, we vary only the Clarifier while keeping UA, '
    'Rewriter, the deep-search backend, nugget construction, and nugget judging fixed."'
)


def require_fixed_deep_search(benchmark: str, agent: str, deep_search: str | None) -> None:
    """CTS with a clarifier that is not one of our scripted ones (openai:, later py:/http://)
    needs a fixed deep-search agent of its own: else the model under test also searches and
    a delta mixes clarification with search skill."""
    plays_deep_search = benchmark in registry.names() and "deep_search" in registry.get(benchmark).run_flags
    if not plays_deep_search or deep_search or BackendSpec.parse(agent).is_scripted:
        return
    raise UsageError(
        f"cts: --agent {agent} is the clarifier under test, so deep search must be fixed and its own: give "
        "--deep-search SPEC (e.g. scripted:direct-guess or openai:MODEL) or `spec` in [deep_search] of "
        f"clarify.toml ({FIXED_DEEP_SEARCH_RULE})"
    )


def run_deviations(spec: RunSpec) -> list[str]:
    """How this run departs from its paper (deviations.py); none on the bundled demo."""
    setting = Setting(
        benchmark=spec.benchmark,
        agent=spec.agent,
        user=spec.user,
        search=spec.search,
        judge=spec.judge,
        config=spec.config,
        calls=calls_of(spec.provenance),
        task_attempts=spec.attempts,
    )
    return deviations(setting, demo=is_demo_dataset(spec.dataset))


def validate_spec(spec: RunSpec, config_obj=None) -> None:
    """Build every backend once so a bad spec fails before the database is touched
    (building connects nothing; clients are made lazily)."""
    require_fixed_deep_search(spec.benchmark, spec.agent, spec.config.deep_search)
    spec.prebuilt = build_agent(spec, config_obj)
    build_backends(spec.roles(), config_obj, agent=spec.prebuilt, cache_mode=spec.search_cache)


def build_agent(spec: RunSpec, config_obj=None):
    """The run's agent: built from its spec, or the object api.run was given (held to the
    same contract as a `py:` agent)."""
    if spec.agent_object is None:
        return build_backends(RoleSpecs.of(agent=spec.agent), config_obj).agent
    from clarify_tui.agents.custom import PyAgent

    if not callable(getattr(spec.agent_object, "act", None)):
        raise UsageError(f"{type(spec.agent_object).__name__} is not an agent (no act method)")
    return PyAgent(spec.agent, obj=spec.agent_object, config=config_obj, timeout=agent_time_limit(config_obj))


def apply_call_limit(config_obj, concurrency: int) -> str | None:
    """Raise the model endpoint's call limit to the run's concurrency unless the config
    pins it; returns the line the summary prints (None: no config, no model calls)."""
    if config_obj is None:
        return None
    endpoint = config_obj.openai
    pins = (
        [f"openai.max_concurrency={endpoint.max_concurrency}"] if "max_concurrency" in endpoint.model_fields_set else []
    )
    pins += [
        f"{role}.max_concurrency={config_obj.role(role).max_concurrency}"
        for role in ("agent", "user", "judge")
        if config_obj.role(role).max_concurrency is not None
    ]
    if pins:
        return f"model calls: limit pinned by the config ({', '.join(pins)}); --concurrency {concurrency}"
    default = endpoint.max_concurrency
    if concurrency > default:
        endpoint.max_concurrency = concurrency
        return (
            f"model calls: at most {concurrency} at once per endpoint (raised from the default {default} "
            "to --concurrency; pin it with openai.max_concurrency)"
        )
    return f"model calls: at most {default} at once per endpoint (the default; --concurrency {concurrency})"


def plan(
    store: Store,
    spec: RunSpec,
    tasks: list[Task],
    resume: bool,
    retry_errored: bool = False,
    keep: Callable[[str, int], bool] | None = None,
) -> tuple[list[tuple[Task, int]], int, dict[tuple[str, int], list[Session]]]:
    """Which (task, epoch) pairs still need playing in this run (`run --epochs N`: a
    session's identity in a run is its task and epoch), how many are done, and (with
    `retry_errored`) the errored sessions each pair to play again replaces. Marks
    interrupted sessions abandoned. An errored session is superseded only once its task's
    new session has ended (see `_run_held`): a crash mid-retry must not make the tasks
    not yet replayed vanish from every count."""
    existing = store.sessions(runs=[spec.name])
    if existing and not resume:
        raise RunExistsError(
            f"run '{spec.name}' already has {len(existing)} session(s) in {store.path}; "
            "use --resume to continue it or --run to name a new one"
        )
    if resume:
        check_same_spec(store, spec)
        check_provenance(store, spec)
    done = {(s.task_id, s.epoch) for s in existing if s.status == "completed"}
    retry: dict[tuple[str, int], list[Session]] = {}
    for s in existing:
        if s.status == "running":
            s.status, s.error = "abandoned", "interrupted; restarted by --resume"
            store.update_session(s)
        elif s.status == "errored" and (s.task_id, s.epoch) in done:
            # a retry completed and the process died before the old session was marked: finish that now
            s.status = "superseded"
            store.update_session(s)
        elif s.status == "errored":
            if retry_errored:
                retry.setdefault((s.task_id, s.epoch), []).append(s)
            else:
                done.add((s.task_id, s.epoch))
    # keep: the (task, epoch) pairs this process plays (a sweep's --shard I/N); the others are another's
    wanted = {(t.id, e) for t in tasks for e in range(spec.epochs) if keep is None or keep(t.id, e)}
    todo = [(t, e) for e in range(spec.epochs) for t in tasks if (t.id, e) in wanted and (t.id, e) not in done]
    return todo, len(wanted) - len(todo), {k: v for k, v in retry.items() if k in wanted}


async def run_batch(
    store: Store,
    spec: RunSpec,
    tasks: list[Task],
    *,
    resume: bool = False,
    retry_errored: bool = False,
    on_session_done: Callable[[Session], None] | None = None,
    config_obj=None,
    take_over: bool = False,
    notify: Callable[[str], None] | None = None,
    gate=None,
    keep: Callable[[str, int], bool] | None = None,
) -> RunSummary:
    """Play `tasks` into run `spec.name`. `take_over` breaks another process's lease on the
    run (`run --take-over`); `notify` hears one line when a lease was taken over. A sweep
    runs many cells at once: `gate` (an async context manager; entering it yields False to
    play nothing more) replaces the run's own `spec.concurrency` limit, and `keep` picks
    the (task id, epoch) pairs this shard plays."""
    if resume:
        check_resumable(store, spec.name)
    held = store.acquire_run(spec.name, take_over=take_over)
    if held.took_over and notify:
        notify(held.took_over)
    try:
        return await _run_held(store, spec, tasks, held, resume, retry_errored, on_session_done, config_obj, gate, keep)
    finally:
        try:
            store.release_run(held)
        except Exception:  # the run's own error matters more; a stale lease is taken over later
            pass


async def _run_held(
    store, spec, tasks, held, resume, retry_errored, on_session_done, config_obj, shared_gate=None, keep=None
) -> RunSummary:
    todo, skipped, replaces = plan(store, spec, tasks, resume, retry_errored, keep)
    attempts_made = _attempts_made(store, spec.name) if resume else {}
    note = check_provenance(store, spec) if resume else None
    store.ensure_run(
        spec.name,
        benchmark=spec.benchmark,
        dataset=spec.dataset,
        agent=spec.agent,
        user=spec.user,
        search=spec.search,
        judge=spec.judge,
        config={**run_config(spec), "epochs": spec.epochs},
        deviations=run_deviations(spec),
        **({"run_id": spec.run_id} if spec.run_id else {}),
    )
    row = store.run_row(spec.name) or {}
    if spec.provenance is not None and not row.get("provenance"):  # a new run (or one from before provenance)
        store.set_run_provenance(spec.name, spec.provenance)
    agent, spec.prebuilt = spec.prebuilt or build_agent(spec, config_obj), None  # one run uses it, then closes it
    on_disk = str(store.path) != ":memory:"
    cached = spec.search_cache != "off"
    cache_writes = _cache_write_db(store) if cached and on_disk else None
    backends = build_backends(
        spec.roles(),
        config_obj,
        agent=agent,
        db=store.conn if cached else None,
        cache_mode=spec.search_cache,
        write_db=cache_writes,
    )
    deep_search, user, judge, search = backends.deep_search, backends.user, backends.judge, backends.search
    summary = RunSummary(skipped=skipped, notes=[note] if note else [])
    down = _breaker()
    gate = shared_gate or asyncio.Semaphore(max(1, spec.concurrency))
    writer = BackgroundWriter(store.path, held).start() if on_disk else None
    sink = writer or store

    async def play(task: Task, epoch: int) -> None:
        async with gate as admitted:
            if admitted is False:  # a sweep's spending limit: this pair stays unplayed, for the next sweep
                return
            stop_if_down()  # a task still waiting when the endpoint went down is not started
            attempt = attempts_made.get((task.id, epoch), 0)
            while True:
                attempt += 1
                episode = build_episode(
                    task,
                    agent=agent,
                    user=user,
                    search=search,
                    judge=judge,
                    config=spec.config.model_copy(),
                    sink=sink,
                    deep_search=deep_search,
                )
                episode.session.run, episode.session.epoch = spec.name, epoch
                try:
                    session = await episode.run()
                except asyncio.CancelledError:
                    cut_short(episode.session)
                    raise
                if attempt >= spec.attempts or not plays_again(session) or down():
                    break  # (the endpoint is down: this attempt stays the task's session, errored)
                why = session.error or "the harness could not call the action (call_error)"
                session.status, session.error = "superseded", f"{ATTEMPT_NOTE}{attempt} of {spec.attempts}: {why}"
                sink.update_session(session)
                summary.replayed += 1
            if session.status in ("completed", "errored"):  # only now does the retry replace the old session
                for old in replaces.get((task.id, epoch), ()):
                    old.status = "superseded"
                    sink.update_session(old)
                    summary.superseded += 1
            summary.sessions.append(session)
            if on_session_done:
                on_session_done(session)
            stop_if_down()

    def cut_short(session: Session) -> None:
        """An episode in flight when an endpoint went down (the run stopping cancels it) is
        errored, as the infrastructure failure it is: counted apart, never scored, played
        again by --resume --retry-errored. Ctrl-C with every endpoint up still abandons it."""
        stop = down()
        if stop and session.status == "abandoned":
            session.status, session.error = "errored", f"not finished: the run stopped, {stop}"
            sink.update_session(session)

    def stop_if_down() -> None:
        stop = down()
        if stop:
            raise RunStopped(
                f"run '{spec.name}' stopped: {stop}. Check the server, then continue with the same command "
                "and --resume --retry-errored"
            )

    try:
        await _all_or_first_failure([play(t, e) for t, e in todo])
        if writer:
            await writer.flush()
    finally:
        if writer:
            writer.close()
        if isinstance(search, CachedSearch):
            search.close_write_db()  # waits for a fill still running in its thread
        await backends.aclose()
    return summary


def _breaker() -> Callable[[], str | None]:
    """Why the run must stop (an endpoint's circuit breaker tripped: a model server, Tavily
    or Serper; breaker.py), asked before and after each session. Every breaker starts afresh."""
    reset_all()
    return tripped


def _attempts_made(store: Store, run: str) -> dict[tuple[str, int], int]:
    """Attempts each task and epoch already used in this run before an interruption (their
    sessions were superseded by the next attempt), so --resume continues the count."""
    made: dict[tuple[str, int], int] = {}
    for s in store.sessions(runs=[run]):
        if s.status == "superseded" and (s.error or "").startswith(ATTEMPT_NOTE):
            made[(s.task_id, s.epoch)] = made.get((s.task_id, s.epoch), 0) + 1
    return made


def _cache_write_db(store: Store) -> sqlite3.Connection:
    """A connection of its own for the search cache's writes from worker threads."""
    return db_errors.connect(store.path, readonly=False)


async def _all_or_first_failure(coros) -> None:
    """Run all; on the first exception escaping an episode (a database failure), cancel
    the rest and raise it."""
    tasks = [asyncio.ensure_future(c) for c in coros]
    if not tasks:
        return
    try:
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except BaseException:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    for t in pending:
        t.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    failures = [t.exception() for t in done if not t.cancelled() and t.exception() is not None]
    if failures:
        raise failures[0]
