"""What starts a session in the TUI (`PlaySetup`) and who plays it: the play screen, the
queue and the campaign fill one in, and `EpisodeDriver.for_play` builds its backends
(backends.build_backends) from it. Apart from driver.py so that reading the setup imports
no engine."""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from clarify_tui.models import EpisodeConfig, SessionMode, Task
from clarify_tui.tui.roles import DEFAULT_AGENT, Role

if TYPE_CHECKING:
    from clarify_tui.config import Config


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
