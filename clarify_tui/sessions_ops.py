"""Operations on stored sessions that the TUI and the CLI share: fork, resume, queue.

Fork copies a session's steps up to a chosen step into a new session (recorded with its
parent and fork step) and continues from the state snapshot stored with that step, so
the protocol rules are never re-run on copied steps. Resume does the same for an
interrupted session, keeping its id. The human-baseline queue serves the tasks of a run
to one annotator in a fixed (optionally shuffled) order.
"""

from __future__ import annotations

import random
from collections import Counter

from clarify_tui import trajectory
from clarify_tui.agents.base import Agent
from clarify_tui.annotation import append_note
from clarify_tui.engine import Episode, build_episode
from clarify_tui.errors import UsageError
from clarify_tui.judges.base import Judge
from clarify_tui.models import FINISHED_STATUSES, Session, SessionMode, Step, Task, now_iso
from clarify_tui.search.base import SearchBackend
from clarify_tui.store import Store
from clarify_tui.users.base import UserSimulator


class ForkError(UsageError):
    """The chosen step cannot be continued from (e.g. the session had already ended)."""


def deep_search_of(session: Session, config=None) -> Agent | None:
    """The fixed deep-search agent a CTS session was played with (`config.deep_search`,
    recorded from `run --deep-search`), built again so that a fork or a resume searches
    as the original did. None: the session's own agent ran the search phase."""
    spec = session.config.deep_search
    if not spec:
        return None
    if spec == "stored":
        raise ForkError(
            f"session {session.id}'s search phase is the CTS release's stored deep-search output "
            "(imported): no agent can run it again"
        )
    from clarify_tui.backend_spec import RoleSpecs
    from clarify_tui.backends import build_backends

    return build_backends(RoleSpecs.of(deep_search=spec), config).deep_search


def action_group_end(steps: list[Step], index: int) -> int:
    """The last step of the action at `index`: an ask's reply and judge steps belong to it."""
    try:
        return trajectory.action_group_end(steps, index)
    except IndexError as exc:
        raise ForkError(str(exc)) from None


def fork_session(
    store: Store,
    session_id: str,
    step_index: int,
    *,
    agent: Agent,
    user: UserSimulator,
    search: SearchBackend,
    judge: Judge,
    mode: SessionMode = "automated",
    annotator: str | None = None,
    run: str | None = None,
    config=None,
) -> Episode:
    """A live Episode continuing `session_id` after `step_index` (and its replies).
    A CTS session's fixed deep-search agent is built again from its spec (`config`:
    clarify.toml, for an openai one), so the fork's search phase is comparable.

    Forks go to their own run (default "<parent run>-forks") so they never count twice
    for a task in the parent run's scores; `family()` still links them to the parent.
    """
    parent = store.session(session_id)
    task = store.task_for(parent.id)
    steps = store.steps(parent.id)
    end = action_group_end(steps, step_index)
    if steps[end].state.done:
        raise ForkError(f"the session had ended at step {end}; fork from an earlier step")
    session = Session(
        run=run or f"{parent.run}-forks",
        task_id=task.id,
        protocol=task.protocol,
        agent=agent.spec,
        user=user.spec,
        search=search.spec,
        judge=judge.spec,
        mode=mode,
        annotator=annotator,
        config=parent.config,
        parent_id=parent.id,
        fork_step=end,
        epoch=parent.epoch,
    )
    episode = build_episode(
        task,
        agent=agent,
        user=user,
        search=search,
        judge=judge,
        config=parent.config,
        session=session,
        sink=store,
        deep_search=deep_search_of(parent, config),
    )
    episode.restore(steps[: end + 1])
    return episode


def resume_session(
    store: Store,
    session_id: str,
    *,
    agent: Agent,
    user: UserSimulator,
    search: SearchBackend,
    judge: Judge,
    config=None,
) -> Episode:
    """Continue an interrupted (still `running`) session in place, from its last step.
    `config` (clarify.toml) is for the fixed deep-search agent, when the session had one."""
    session = store.session(session_id)
    if session.status != "running":
        raise ForkError(f"session {session_id} is {session.status}; only running sessions resume")
    task = store.task_for(session.id)
    steps = store.steps(session.id)
    if steps:
        steps = steps[: action_group_end(steps, max(i for i, s in enumerate(steps) if s.actor == "agent")) + 1]
    episode = build_episode(
        task,
        agent=agent,
        user=user,
        search=search,
        judge=judge,
        config=session.config,
        session=session,
        sink=store,
        deep_search=deep_search_of(session, config),
    )
    episode.restore(steps)
    return episode


def family(store: Store, session_id: str) -> list[Session]:
    """The session's root and every fork under it, parents before children."""
    by_id = {s.id: s for s in store.sessions()}
    root = by_id[store.session(session_id).id]
    while root.parent_id and root.parent_id in by_id:
        root = by_id[root.parent_id]
    out, frontier = [root], [root.id]
    while frontier:
        children = [s for s in by_id.values() if s.parent_id in frontier]
        out += children
        frontier = [c.id for c in children]
    return out


def queue_order(tasks: list[Task], shuffle_seed: int | None) -> list[Task]:
    order = list(tasks)
    if shuffle_seed is not None:
        random.Random(shuffle_seed).shuffle(order)
    return order


def next_in_queue(
    store: Store, run: str, annotator: str, tasks: list[Task], shuffle_seed: int | None = None
) -> tuple[Task, Session | None] | None:
    """The annotator's next task in the queue and, if it was interrupted, its session."""
    mine = [s for s in store.sessions(runs=[run]) if s.annotator == annotator]
    finished = {s.task_id for s in mine if s.status in FINISHED_STATUSES}
    running = {s.task_id: s for s in mine if s.status == "running"}
    for task in queue_order(tasks, shuffle_seed):
        if task.id in finished:
            continue
        return task, running.get(task.id)
    return None


def queue_progress(store: Store, run: str, annotator: str, tasks: list[Task]) -> Counter[str]:
    """How the annotator's sessions of the queue's tasks ended, by status (one per task:
    the latest that finished)."""
    ids = {t.id for t in tasks}
    last: dict[str, str] = {}
    for s in store.sessions(runs=[run]):
        if s.annotator == annotator and s.task_id in ids and s.status in FINISHED_STATUSES:
            last[s.task_id] = s.status
    return Counter(last.values())


def left_running(store: Store, task: Task, mode: SessionMode, annotator: str | None, run: str = "tui") -> list[Session]:
    """This person's sessions of `task` in `mode` left `running` (ctrl+q, a closed
    terminal), oldest first; forks are not among them."""
    return [
        s
        for s in store.sessions(runs=[run], status="running")
        if s.task_id == task.id
        and s.protocol == task.protocol
        and s.mode == mode
        and s.annotator == annotator
        and not s.parent_id
    ]


def seen_hidden(store: Store, task: Task, annotator: str | None) -> str | None:
    """Why this person has already seen `task`'s hidden information (context, clues, the
    gold answer), or None: they played its user (the user's screen shows it from the first
    step), ended a session of it as its agent (the hidden panel opens at the end), or
    were shown an audit item of it (it shows what its user knows) or a labelling item
    holding its user's replies (derived from the hidden information). A session they then
    play as the agent is informed: `score` leaves it out of baselines (docs/scoring.md), as
    replay's forks by a person who saw the end. A labelling item without a user's reply
    (search results only) does not inform (docs/scoring.md)."""
    if not annotator:
        return None
    shown = store.work.hidden_shown(annotator, task.protocol.value, task.id)
    if shown:
        queue, kind = shown
        if kind == "audit":
            return f"you were shown an audit item of this task (queue {queue}), with what its user knows"
        return f"you were shown a labelling item of this task (queue {queue}) holding its user's replies"
    for s in store.sessions(
        protocol=task.protocol.value, task_id=task.id, annotator=annotator
    ):  # not every session: play's start-up
        if s.mode == "human_user":
            return f"you played this task's user (session {s.id}), whose screen shows its hidden information"
        if s.mode in ("human_agent", "stepped") and s.status in FINISHED_STATUSES:
            return f"you ended session {s.id} of this task, and its end shows the hidden information"
    return None


def abandon(store: Store, sessions: list[Session], why: str) -> None:
    """Mark sessions that will never finish `abandoned` (never scored), saying why in their note."""
    for s in sessions:
        s.status, s.finished_at = "abandoned", now_iso()
        s.note = append_note(s.note, why)
        store.update_session(s)
