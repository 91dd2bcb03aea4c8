"""Batch runs: many episodes through the same engine, concurrently, resumable.

A run is named; its sessions are written through as they happen. `resume=True` skips
tasks whose session in this run completed, marks sessions left `running` by a crash or
Ctrl-C as abandoned and plays those tasks again. An exception in one episode errors that
session only; the run goes on.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable

from clarify_tui.backends import close_backends, make_agent, make_judge, make_search, make_user
from clarify_tui.engine import build_episode
from clarify_tui.models import EpisodeConfig, Session, Task
from clarify_tui.store import Store


class RunExistsError(RuntimeError):
    """The run name is taken and --resume was not given."""


@dataclass
class RunSpec:
    name: str
    agent: str
    user: str = "rule"
    search: str = "local"
    judge: str = "rule"
    benchmark: str = ""
    dataset: str = ""
    config: EpisodeConfig = field(default_factory=EpisodeConfig)
    concurrency: int = 4
    search_cache: str = "off"


@dataclass
class RunSummary:
    sessions: list[Session] = field(default_factory=list)
    skipped: int = 0

    @property
    def completed(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "completed"]

    @property
    def errored(self) -> list[Session]:
        return [s for s in self.sessions if s.status == "errored"]


def plan(store: Store, spec: RunSpec, tasks: list[Task], resume: bool) -> tuple[list[Task], int]:
    """Which tasks still need playing in this run; marks interrupted sessions abandoned."""
    existing = store.sessions(runs=[spec.name])
    if existing and not resume:
        raise RunExistsError(
            f"run '{spec.name}' already has {len(existing)} session(s) in {store.path}; "
            "use --resume to continue it or --run to name a new one"
        )
    done = set()
    for s in existing:
        if s.status == "running":
            s.status, s.error = "abandoned", "interrupted; restarted by --resume"
            store.update_session(s)
        elif s.status in ("completed", "errored"):
            done.add(s.task_id)
    todo = [t for t in tasks if t.id not in done]
    return todo, len(tasks) - len(todo)


async def run_batch(
    store: Store,
    spec: RunSpec,
    tasks: list[Task],
    *,
    resume: bool = False,
    on_session_done: Callable[[Session], None] | None = None,
    config_obj=None,
) -> RunSummary:
    todo, skipped = plan(store, spec, tasks, resume)
    store.ensure_run(
        spec.name, benchmark=spec.benchmark, dataset=spec.dataset, agent=spec.agent, user=spec.user,
        search=spec.search, judge=spec.judge, config=spec.config.model_dump(mode="json"),
    )
    agent = make_agent(spec.agent, config_obj)
    user = make_user(spec.user, config_obj)
    judge = make_judge(spec.judge, config_obj)
    search = make_search(spec.search, config_obj, db=store.db, cache_mode=spec.search_cache)
    summary = RunSummary(skipped=skipped)
    gate = asyncio.Semaphore(max(1, spec.concurrency))

    async def play(task: Task) -> None:
        async with gate:
            episode = build_episode(
                task, agent=agent, user=user, search=search, judge=judge, config=spec.config.model_copy(), sink=store
            )
            episode.session.run = spec.name
            session = await episode.run()
            summary.sessions.append(session)
            if on_session_done:
                on_session_done(session)

    try:
        await asyncio.gather(*(play(t) for t in todo))
    finally:
        await close_backends(agent, user, judge, search)
    return summary
