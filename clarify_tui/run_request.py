"""A run request: what `api.run` and `api.prepare_run` were asked, as one typed value.

Why: `api.run`, `api.prepare_run` and `clarify-tui sweep` took the same twenty keywords and
passed them on one by one, so a new setting meant three signatures and every call between
them. Now the documented keywords (docs/api.md), or `run`'s flags (commands/run.py
`run_request`, a sweep cell's too), build a `RunRequest` once, and `prepare` reads it: the
tasks, the spec, the config and its call limit, every backend built once
(backends.build_backends), the provenance. A bad setting raises here, before the database.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from clarify_tui.argtypes import TaskLimit, take
from clarify_tui.backend_spec import BackendSpec
from clarify_tui.errors import UsageError
from clarify_tui.models import EpisodeConfig

if TYPE_CHECKING:
    from clarify_tui.run_spec import RunSpec


@dataclass(frozen=True)
class RunRequest:
    """The keywords of `api.run` (docs/api.md; the command's flag of each there), less
    its callbacks. `agent` is a spec string or an agent object."""

    benchmark: str
    agent: str | Any
    dataset: str = "demo"
    user: str = "rule"
    search: str = "local"
    judge: str = "rule"
    db: str | Path | None = None
    name: str | None = None
    concurrency: int = 4
    limit: TaskLimit | None = None
    task_ids: list[str] | None = None
    epochs: int = 1
    seed: int | None = None
    resume: bool = False
    retry_errored: bool = False
    task_attempts: int | None = None
    search_cache: str = "record"
    episode: EpisodeConfig | dict | None = None
    config: str | Path | None = None
    overrides: dict | None = None
    agent_args: dict | None = None
    argv: list[str] | None = None
    take_over: bool = False

    def check(self) -> None:
        """What is refused before anything is read: settings that mean nothing together."""
        if self.retry_errored and not self.resume:
            raise UsageError("--retry-errored continues a run: give --resume (and --run NAME) too")
        if self.epochs < 1:
            raise UsageError(f"--epochs must be at least 1, got {self.epochs}")
        for role, role_spec in (("agent", self.agent_spec), ("user", self.user)):
            if BackendSpec.parse(role_spec).is_human:  # a batch run has nobody at the keyboard: it would wait for ever
                raise UsageError(
                    f"run has no person at the keyboard: --{role} human is played in the TUI, "
                    f"`clarify-tui play --as {role}` (--queue RUN for a whole dataset)"
                )

    @property
    def agent_object(self) -> Any:
        """The agent object handed to `api.run` (None: a spec string)."""
        return None if isinstance(self.agent, str) else self.agent

    @property
    def agent_spec(self) -> str:
        """The agent's spec; an object's is `py:module:Class`."""
        if isinstance(self.agent, str):
            return self.agent
        return f"py:{type(self.agent).__module__}:{type(self.agent).__qualname__}"

    def episode_config(self) -> EpisodeConfig:
        return self.episode if isinstance(self.episode, EpisodeConfig) else EpisodeConfig(**(self.episode or {}))

    def run_name(self) -> str:
        """`name`, else the benchmark, the agent and the time."""
        agent = self.agent_spec.replace(":", "-").replace("/", "-")
        return self.name or f"{self.benchmark}-{agent}-{datetime.now():%Y%m%d-%H%M%S}"


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
    needs = any(BackendSpec.parse(s).needs_config for s in specs if s)
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
    config and database. `api.run` plays one; `clarify-tui sweep` plays many at once."""

    spec: RunSpec
    tasks: list
    config_obj: Any
    db: Path
    call_limit: str | None


def prepare(request: RunRequest, on_banner: Callable[[str], None] | None = None) -> PreparedRun:
    """Everything `run` checks before it touches the database: the tasks, the spec, the
    config and its call limit, every backend built once, the provenance. A bad setting
    raises here. `on_banner` hears the run's departures from its paper, if any."""
    from clarify_tui.deviations import banner
    from clarify_tui.paths import default_db_path
    from clarify_tui.provenance import run_provenance
    from clarify_tui.run_spec import RunSpec
    from clarify_tui.runner import apply_call_limit, run_deviations, validate_spec
    from clarify_tui.tasks import load_tasks

    request.check()
    agent, r = request.agent_spec, request
    episode_config = r.episode_config()
    tasks = select_tasks(load_tasks(r.benchmark, r.dataset), r.task_ids, r.limit)
    spec = RunSpec(
        name=r.run_name(),
        agent=agent,
        user=r.user,
        search=r.search,
        judge=r.judge,
        benchmark=r.benchmark,
        dataset=str(r.dataset),
        config=episode_config,
        concurrency=r.concurrency,
        search_cache=r.search_cache,  # type: ignore[arg-type]
        task_attempts=r.task_attempts,
        epochs=r.epochs,
        seed=r.seed,
        agent_object=r.agent_object,
    )
    overrides = {**(r.overrides or {}), "seed": r.seed} if r.seed is not None else r.overrides
    config_obj = load_run_config(
        r.config,
        overrides,
        specs=(agent, r.user, r.judge, r.search, episode_config.deep_search or ""),
        agent_args=r.agent_args,
    )
    if not episode_config.deep_search and config_obj is not None and config_obj.deep_search.spec:
        spec.config = episode_config.model_copy(update={"deep_search": config_obj.deep_search.spec})
    call_limit = apply_call_limit(config_obj, r.concurrency)
    validate_spec(spec, config_obj)  # a bad spec ends here: no database, no runs row
    spec.provenance = run_provenance(
        benchmark=r.benchmark,
        dataset=str(r.dataset),
        agent=agent,
        user=r.user,
        judge=r.judge,
        search=r.search,
        deep_search=spec.config.deep_search,
        config_obj=config_obj,
        argv=r.argv,
        agent_object=r.agent_object,
    )
    spec.agent_args = spec.provenance["roles"]["agent"].get("args")  # recorded and compared as a setting
    if on_banner is not None and (line := banner(run_deviations(spec))) is not None:
        on_banner(line)
    path = Path(r.db) if r.db is not None else default_db_path()
    if r.search_cache == "replay":
        check_replayable(path, r.search)
    return PreparedRun(spec=spec, tasks=tasks, config_obj=config_obj, db=path, call_limit=call_limit)
