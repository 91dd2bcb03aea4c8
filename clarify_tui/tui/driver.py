"""EpisodeDriver: the TUI's one handle on a live engine Episode (play, replay's forks,
ask versus guess).

It builds the backends from specs (human ones wired to the UI through callbacks), sits
between the engine and the Store as the episode's StepSink (forwarding every write and
telling the screen with the messages of tui/messages.py), and makes an interrupted call leave
the session consistent.
It holds no protocol rules: allowed actions, replies and scores come from the engine.

For a human agent it keeps the task clock (`clock`): time paused during a turn is taken
off that action's latency before it is applied, and the clock's total at the end is
saved as `result.active_ms` (also after every action and when the screen closes, so a
resumed task's clock goes on from there). `PlaySetup.resume_id` continues a `running`
session in place (sessions_ops.resume_session) instead of starting a new one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from textual.message import Message

from clarify_tui.annotation import ActiveClock, append_note
from clarify_tui.backend_spec import BackendSpec, RoleSpecs
from clarify_tui.backends import build_backends
from clarify_tui.engine import Episode, build_episode
from clarify_tui.models import Action, EpisodeConfig, Session, Step, Task
from clarify_tui.tui.messages import (
    ActionProposed,
    AgentTurnStarted,
    BusyChanged,
    ReplyRequested,
    SessionEnded,
    StepsChanged,
)
from clarify_tui.tui.play_setup import PlaySetup, default_annotator, initial_mode
from clarify_tui.tui.roles import DEFAULT_AGENT, ROLES, Role  # noqa: F401  (importable from here as before)


class EpisodeDriver:
    """One live session. `post` delivers messages to the screen (its post_message).

    Built by `for_play` (the play screen), `for_fork` (replay's fork) or `for_task` (a new
    session run to the end, as ask versus guess does): every live episode in the TUI
    writes through a driver and reaches its screen as the messages of tui/messages.py.
    `timed`: keep the task clock and save it with the session (a person playing the agent
    on the play screen)."""

    def __init__(
        self, store, post: Callable[[Message], object], *, role: Role = "observer", timed: bool = False
    ) -> None:
        self.store = store
        self.post = post
        self.role: Role = role
        self.timed = timed
        self.pending: Action | None = None
        self.pending_edited = False
        """Whether a person edited or typed the pending action (it is marked when applied)."""
        self.edited: list[int] = []
        self.started = False
        self.clock = ActiveClock()
        self.episode: Episode

    # ---- building ----------------------------------------------------------------------

    def human_agent(self):
        from clarify_tui.agents.human import HumanAgent

        return HumanAgent(on_turn=lambda view: self.post(AgentTurnStarted(self, view)))

    def human_user(self):
        from clarify_tui.users.human import HumanUser

        return HumanUser(on_request=lambda request: self.post(ReplyRequested(self, request)))

    @classmethod
    def for_play(cls, setup: PlaySetup, store, post: Callable[[Message], object], search=None) -> EpisodeDriver:
        """The play screen's session: new, or `setup.resume_id` continued in place."""
        role = setup.role
        self = cls(store, post, role=role, timed=role == "agent")
        services = setup.services
        specs = RoleSpecs.of(
            agent=setup.agent_spec,
            user=setup.user_spec,
            judge=setup.judge_spec,
            search=None if search is not None else setup.search_spec,
            deep_search=None if setup.resume_id else setup.config.deep_search,
        )
        human = (
            {"agent": self.human_agent()} if role == "agent" else {"user": self.human_user()} if role == "user" else {}
        )
        made = build_backends(specs, services, **human)
        agent, user, judge, search = made.agent, made.user, made.judge, search or made.search
        if setup.resume_id:
            from clarify_tui.sessions_ops import resume_session, seen_hidden

            self.episode = resume_session(
                store, setup.resume_id, agent=agent, user=user, search=search, judge=judge, config=services
            )
            self.episode.sink = self  # from now on every write goes through the driver
            if self.episode.session.result.informed:  # it stays so to its end
                self.informed_because = "it was marked informed when it began"
            elif role == "agent":  # seen since it was left (its user played, an audit item shown): informed now
                self.informed_because = seen_hidden(store, setup.task, self.episode.session.annotator)
            self.started = True
            saved = self.episode.session.result.active_ms  # the clock as it was last saved
            self.clock.base_ms = (
                saved if saved is not None else sum(s.latency_ms for s in self.episode.steps if s.actor == "agent")
            )  # sessions saved before it
            return self
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

            self.informed_because = seen_hidden(store, setup.task, session.annotator)
        self.episode = build_episode(
            setup.task,
            agent=agent,
            user=user,
            search=search,
            judge=judge,
            config=setup.config.model_copy(),
            session=session,
            sink=self,
            deep_search=made.deep_search,
        )
        return self

    @classmethod
    def for_fork(
        cls,
        store,
        parent_id: str,
        step: int,
        post: Callable[[Message], object],
        *,
        agent_spec: str,
        user_spec: str,
        config=None,
    ) -> EpisodeDriver:
        """A fork of stored session `parent_id` after `step` (sessions_ops.fork_session),
        continued by `agent_spec` ("human": a person through AgentTurnStarted)."""
        from clarify_tui.sessions_ops import fork_session
        from clarify_tui.whatif import with_run_seed

        human = BackendSpec.parse(agent_spec).is_human
        self = cls(store, post, role="agent" if human else "observer")
        parent = store.session(parent_id)
        config = with_run_seed(store, parent.run, config)  # a seeded agent continues under its run's seed
        made = build_backends(
            RoleSpecs.of(agent=agent_spec, user=user_spec, judge=parent.judge, search=parent.search),
            config,
            agent=self.human_agent() if human else None,
        )
        self.episode = fork_session(
            store,
            parent_id,
            step,
            agent=made.agent,
            user=made.user,
            search=made.search,
            judge=made.judge,
            mode="human_agent" if human else "automated",
            annotator=default_annotator() if human else None,
            config=config,
        )
        self.episode.sink = self  # the copied steps are written; what follows goes through the driver
        self.started = True
        return self

    @classmethod
    def for_resume(cls, store, session_id: str, post: Callable[[Message], object], *, config=None) -> EpisodeDriver:
        """A person's session left `running` (a fork kept for later), continued in place
        by that person from its last step (sessions_ops.resume_session)."""
        from clarify_tui.sessions_ops import resume_session
        from clarify_tui.whatif import with_run_seed

        session = store.session(session_id)
        self = cls(store, post, role="agent")
        config = with_run_seed(store, session.run, config)
        user_spec = "rule" if BackendSpec.parse(session.user).is_human else session.user
        made = build_backends(
            RoleSpecs.of(user=user_spec, judge=session.judge, search=session.search), config, agent=self.human_agent()
        )
        self.episode = resume_session(
            store,
            session_id,
            agent=made.agent,
            user=made.user,
            search=made.search,
            judge=made.judge,
            config=config,
        )
        self.episode.sink = self
        self.started = True
        return self

    @classmethod
    def for_task(
        cls,
        task: Task,
        agent_spec: str,
        store,
        post: Callable[[Message], object],
        *,
        run: str,
        episode_config: EpisodeConfig,
        config=None,
    ) -> EpisodeDriver:
        """A new automated session of `task` (rule user, local search and judge)."""
        self = cls(store, post)
        made = build_backends(RoleSpecs.of(agent=agent_spec, user="rule", judge="rule", search="local"), config)
        self.episode = build_episode(
            task,
            agent=made.agent,
            user=made.user,
            search=made.search,
            judge=made.judge,
            config=episode_config,
            sink=self,
        )
        self.session.run = run
        return self

    # ---- convenience -------------------------------------------------------------------

    @property
    def session(self) -> Session:
        return self.episode.session

    @property
    def steps(self) -> list[Step]:
        return self.episode.steps

    @property
    def done(self) -> bool:
        return self.episode.done

    def mark_stepped(self) -> None:
        """A person stepped the agent: the session is `stepped` from now on."""
        if self.session.mode == "automated":
            self.session.mode = "stepped"
            self._update_session()

    def _update_session(self) -> None:
        if self.started:
            self.store.update_session(self.session)

    # ---- the StepSink the engine writes to ---------------------------------------------

    informed_because: str | None = None
    """Why the person playing this session's agent had seen the task's hidden information
    (sessions_ops.seen_hidden); its result is then marked informed, at every write."""

    def _flag(self, session: Session) -> None:
        if self.informed_because:  # the engine's final result replaces the result object: flag it again
            session.result.informed = True

    def start_session(self, session: Session, task: Task) -> None:
        self._flag(session)
        self.store.start_session(session, task)
        self.started = True

    def add_step(self, session: Session, step: Step) -> None:
        self.store.add_step(session, step)
        if self.timed and step.actor == "agent":
            self.save_clock()
        self.post(StepsChanged(self))

    def save_clock(self) -> None:
        """Keep the task clock's time with the session, so an interrupted task resumes
        from it (not from the summed action latencies) and `sessions` shows it."""
        if self.timed and self.started and not self.episode.done:
            self.session.result.active_ms = round(self.clock.active_ms(), 1)
            self.store.update_session(self.session)

    def finish_session(self, session: Session) -> None:
        self.clock.stop()
        if self.timed:
            session.result.active_ms = round(self.clock.active_ms(), 1)
        self._flag(session)
        self.store.finish_session(session)
        self.post(StepsChanged(self))
        self.post(SessionEnded(self))

    # ---- driving -----------------------------------------------------------------------

    async def propose(self) -> Action:
        """Ask the agent for its next action; it becomes `pending` (not executed)."""
        human = self.role == "agent"  # a person's turn is not a backend call (and is timed)
        if not human:
            self.post(BusyChanged(self, "agent is thinking"))
        else:
            self.clock.start()
        paused_before = self.clock.paused_ms()
        try:
            action = await self.episode.propose()
        finally:
            if not human:
                self.post(BusyChanged(self, None))
        if human and action.usage is not None:  # time on pause is not time spent on the action
            paused = self.clock.paused_ms() - paused_before
            action.usage.latency_ms = max(0.0, action.usage.latency_ms - paused)
        self.pending, self.pending_edited = action, False
        self.post(ActionProposed(self, action))
        return action

    async def apply(self, action: Action | None = None, *, edited: bool | None = None):
        """Execute `action` (default: the pending one, `edited` as a person left it). A
        cancelled call leaves the episode as it was before it (or, if it had already
        recorded steps, abandoned)."""
        if action is None:
            action, edited = self.pending, self.pending_edited if edited is None else edited
        if action is None:
            raise RuntimeError("nothing to apply")
        ep = self.episode
        count = len(ep.steps)
        if edited:
            self.edited.append(count)
            self.session.note = "edited or replaced steps: " + ", ".join(map(str, self.edited))
            self._update_session()
        self.post(BusyChanged(self, f"{action.kind.value} running"))
        try:
            observation = await ep.apply(action)  # undoes itself if cancelled or failed
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            if not ep.done:
                ep.fail(f"{type(exc).__name__}: {exc}")
            raise
        finally:
            self.post(BusyChanged(self, None))
        self.pending, self.pending_edited = None, False
        self.post(StepsChanged(self))
        return observation

    async def play_to_the_end(self) -> None:
        """A person plays the agent until the session ends. Unlike `run`, being cancelled
        (the person leaves, keeping it for later) leaves the session `running`: a step
        in flight is undone (`apply`); giving up is `give_up`."""
        while not self.done:
            await self.apply(await self.propose())

    async def run(self, pace: float = 0.0) -> None:
        """Play to the end with nobody stepping (a fork, ask versus guess): the engine's
        run, so a failure ends the session errored and cancelling abandons it."""
        await self.episode.run(pace=pace)

    def submit_action(self, action: Action) -> None:
        """The human agent's action (play-the-agent mode)."""
        from clarify_tui.agents.human import HumanAgent

        agent = self.episode.agent
        if not isinstance(agent, HumanAgent):
            raise RuntimeError("no person plays the agent in this session")
        agent.submit(action)

    def submit_reply(self, text: str) -> None:
        """The human user's reply; the HumanUser rejects what the protocol forbids."""
        from clarify_tui.users.human import HumanUser

        user = self.episode.user
        if not isinstance(user, HumanUser):
            raise RuntimeError("no person plays the user in this session")
        user.submit(text)

    def add_note(self, text: str) -> None:
        """Append the annotator's note to Session.note and save it."""
        self.session.note = append_note(self.session.note, text)
        self._update_session()

    def abandon(self) -> None:
        if self.started and not self.episode.done:
            self.episode.abandon()

    def skip(self) -> None:
        """The annotator gives up on this task in the queue."""
        self.give_up("skipped by the annotator")

    def give_up(self, why: str) -> None:
        """A person gives up on this session: saved as abandoned (never scored), `why` in its note."""
        if self.episode.done:
            return
        self.episode.start()
        self.session.note = append_note(self.session.note, why)
        self.abandon()
