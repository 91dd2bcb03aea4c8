"""How the play screen's session is set up: the roles built from their specs (a person's
role wired to the screen through the driver), a `running` session resumed in place or a
new one started, and whether the person playing the agent plays it informed.

Why apart from the driver: this is what a PlaySetup means, read once when play opens;
the driver (tui/driver.py) is what every live episode writes through afterwards.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clarify_tui.backends import make_agent, make_deep_search, make_judge, make_search, make_user
from clarify_tui.engine import build_episode
from clarify_tui.models import EpisodeConfig, Session, SessionMode, Task
from clarify_tui.tui.roles import DEFAULT_AGENT, Role

if TYPE_CHECKING:
    from clarify_tui.config import Config
    from clarify_tui.tui.driver import EpisodeDriver


@dataclass
class PlaySetup:
    """Everything needed to start a session from the TUI."""

    task: Task
    role: Role = "observer"
    agent_spec: str = DEFAULT_AGENT
    user_spec: str = "rule"
    search_spec: str = "local"
    judge_spec: str = "rule"
    config: EpisodeConfig = field(default_factory=EpisodeConfig)
    run: str = "tui"
    annotator: str | None = None
    """Who plays (agent or user role); default: the OS user name."""
    resume_id: str | None = None
    """A `running` session to continue in place from its last step (the queue does this)."""
    queue: tuple[int, int] | None = None
    """In the human-baseline queue: (this task's position, 1-based; tasks in the queue)."""
    services: Config | None = None
    """The model settings the roles are made with (`serve --config/--set`); None: clarify.toml
    when a role needs one."""


def initial_mode(role: Role) -> SessionMode:
    return {"agent": "human_agent", "user": "human_user"}.get(role, "automated")  # type: ignore[return-value]


def default_annotator() -> str | None:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return None


def start(driver: EpisodeDriver, setup: PlaySetup, search=None) -> None:
    """Give the driver its episode: `setup.resume_id` continued in place, else a new session."""
    role, store = setup.role, driver.store
    services = setup.services
    agent = driver.human_agent() if role == "agent" else make_agent(setup.agent_spec, services)
    user = driver.human_user() if role == "user" else make_user(setup.user_spec, services)
    search = search or make_search(setup.search_spec, services)
    judge = make_judge(setup.judge_spec, services)
    if setup.resume_id:
        from clarify_tui.sessions_ops import resume_session

        driver.episode = resume_session(
            store, setup.resume_id, agent=agent, user=user, search=search, judge=judge, config=services
        )
        driver.episode.sink = driver  # from now on every write goes through the driver
        if driver.episode.session.result.informed:  # it stays so to its end
            driver.informed_because = "it was marked informed when it began"
        driver.started = True
        saved = driver.episode.session.result.active_ms  # the clock as it was last saved
        driver.clock.base_ms = (
            saved if saved is not None else sum(s.latency_ms for s in driver.episode.steps if s.actor == "agent")
        )  # sessions saved before it
        return
    session = Session(
        run=setup.run,
        task_id=setup.task.id,
        protocol=setup.task.protocol,
        agent=agent.spec,
        user=user.spec,
        search=search.spec,
        judge=setup.judge_spec,
        mode=initial_mode(role),
        annotator=(setup.annotator or default_annotator()) if role in ("agent", "user") else None,
    )
    if role == "agent":  # a person who has seen this task's hidden information plays it informed
        from clarify_tui.sessions_ops import seen_hidden

        driver.informed_because = seen_hidden(store, setup.task, session.annotator)
    driver.episode = build_episode(
        setup.task,
        agent=agent,
        user=user,
        search=search,
        judge=judge,
        config=setup.config.model_copy(),
        session=session,
        sink=driver,
        deep_search=make_deep_search(setup.config.deep_search, services),
    )
