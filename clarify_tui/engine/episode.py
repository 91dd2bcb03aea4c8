"""Episode: one task played by one agent against one user, search and judge.

The same object drives batch runs and the TUI: `propose()` asks the agent for its next
action without executing it, `apply(action)` executes any action (proposed, edited or
typed by a human), `step()` is both, `run()` loops until done. Protocol rules live in
the per-protocol `Rules` classes (their base is `engine/rules.py`); this module owns
what they share: rounds, the invalid action streak, usage accounting, persistence of
every step as it happens, and ending the session as completed, errored or abandoned.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import time
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING

from clarify_tui.agent_view import AgentView, ViewTurn
from clarify_tui.engine.rules import MAX_INVALID_STREAK, Rules, StepSink, merge_usage
from clarify_tui.errors import AgentFailed, BackendError, StoreError
from clarify_tui.models import (
    Action,
    ActionKind,
    Actor,
    EpisodeConfig,
    Observation,
    Session,
    Step,
    Task,
    Usage,
    now_iso,
)
from clarify_tui.redaction import redact
from clarify_tui.results import EpisodeState
from clarify_tui.search.cache import CachedSearch

if TYPE_CHECKING:
    from clarify_tui.agents.base import Agent
    from clarify_tui.judges.base import Judge
    from clarify_tui.search.base import SearchBackend
    from clarify_tui.users.base import UserSimulator

__all__ = ["MAX_INVALID_STREAK", "Episode", "Rules", "StepSink", "merge_usage"]  # the protocols import Rules from here

log = logging.getLogger(__name__)


class Episode:
    def __init__(
        self,
        task: Task,
        *,
        agent: Agent,
        user: UserSimulator,
        search: SearchBackend,
        judge: Judge,
        config: EpisodeConfig | None = None,
        session: Session | None = None,
        sink: StepSink | None = None,
        rules_class: type[Rules],
        deep_search: Agent | None = None,
    ) -> None:
        self.task = task
        self.agent, self.user, self.search, self.judge = agent, user, search, judge
        self.deep_search = deep_search
        self.config = config or EpisodeConfig()
        self.session = session or Session(
            task_id=task.id,
            protocol=task.protocol,
            agent=agent.spec,
            user=user.spec,
            search=search.spec,
            judge=judge.spec,
            config=self.config,
        )
        self.session.config = self.config
        backend = search.backend if isinstance(search, CachedSearch) else None  # record backend and mode apart
        if isinstance(search, CachedSearch) and self.session.search in (search.spec, search.backend.spec):
            self.session.search, self.session.search_cache = search.backend.spec, search.mode
        elif backend is None and self.session.search_cache is None:
            self.session.search_cache = "off"
        self.sink = sink
        self.steps: list[Step] = []
        self.rounds_used = 0
        self.invalid_streak = 0
        self.done = False
        self.rules = rules_class(self)
        self.max_rounds = self.rules.resolve_max_rounds(self.config.max_rounds)
        self._started = False

    # ---- views -------------------------------------------------------------------

    @property
    def final_round(self) -> bool:
        return self.rounds_used >= self.max_rounds - 1

    def allowed(self) -> list[ActionKind]:
        if self.done:
            return []
        return self.rules.allowed()

    def view(self, *, history: bool = True) -> AgentView:
        """What the agent is shown now. `history=False` leaves its past turns out, for a
        screen that shows the rest (building every turn is O(steps): ~10 ms a refresh in a
        5,000-step session)."""
        turns = (
            [ViewTurn(action=s.action, observation=s.observation) for s in self.rules.view_turns()] if history else []
        )
        context = None
        if self.config.interactcomp_mode == "full_with_context" and self.task.interactcomp:
            context = self.task.interactcomp.context
        return AgentView(
            task_id=self.task.id,
            protocol=self.task.protocol,
            question=self.rules.visible_question(),
            language=self.task.language,
            phase=self.rules.phase(),
            history=turns,
            allowed=self.allowed(),
            rounds_used=self.rounds_used,
            max_rounds=self.max_rounds,
            k=self.config.k,
            context=context,
            prompting=self.config.prompting,
            notice=self.rules.notice(),
            actions=self.config.actions,
            epoch=self.session.epoch or 0,
            **self.rules.view_extra(),
        )

    def state(self) -> EpisodeState:
        return EpisodeState(
            rounds_used=self.rounds_used,
            max_rounds=self.max_rounds,
            invalid_streak=self.invalid_streak,
            done=self.done,
            protocol=self.rules.snapshot(),
        )

    # ---- driving -----------------------------------------------------------------

    def start(self) -> None:
        if not self._started:
            self._started = True
            if self.sink:
                self.sink.start_session(self.session, self.task)

    async def propose(self) -> Action:
        """The agent's next action, not executed. Its call time lands in its usage."""
        self.start()
        t0 = time.perf_counter()
        try:
            action = await self.rules.acting_agent().act(self.view())
        except AgentFailed as exc:
            self.agent_failed(str(exc), (time.perf_counter() - t0) * 1000)
            raise
        elapsed = (time.perf_counter() - t0) * 1000
        if action.usage is None:
            action.usage = Usage(latency_ms=elapsed)
        elif not action.usage.latency_ms:
            action.usage.latency_ms = elapsed
        return action

    async def apply(self, action: Action) -> Observation:
        """Execute an action of the agent's (proposed, edited or typed) and record it."""
        self.start()
        if self.done:
            raise RuntimeError("the episode is over")
        action = self.rules.prepare(action)
        before, count = self.state(), len(self.steps)
        allowed = self.allowed()  # judged for the round being taken, before it is used up
        refusal = self.rules.refusal(action) if action.kind in allowed else None
        if action.kind == ActionKind.invalid:
            refusal = action.text or "That was not a valid action."
        elif action.kind not in allowed:
            refusal = self.rules.not_allowed(action, allowed)
        if refusal:
            if self.rules.invalid_uses_round:
                self.rounds_used += 1
            return await self._invalid(action, refusal)
        self.rounds_used += 1
        self.invalid_streak = 0
        try:
            observation = await self.rules.handle(action)
        except BaseException:  # cancelled by the UI, or a backend failed: undo, then re-raise
            self.rollback(before, count)
            raise
        if not self.done and self.rounds_used >= self.max_rounds:
            self.rules.on_rounds_exhausted()
        if self.done:
            self.finish()
        return observation

    async def step(self) -> Observation:
        return await self.apply(await self.propose())

    async def run(self, *, pace: float = 0.0, on_step: Callable[[], None] | None = None) -> Session:
        """Play to the end, optionally `pace` seconds between steps (live demos) and
        calling `on_step` after each. Any exception ends the session errored, never as a
        wrong answer; cancellation (a UI stopping it) abandons it."""
        try:
            while not self.done:
                await self.step()
                if on_step is not None:
                    on_step()
                if pace and not self.done:
                    await asyncio.sleep(pace)
        except asyncio.CancelledError:
            self.abandon()
            raise
        except AgentFailed:  # the agent's own failure: already recorded and scored wrong
            pass
        except (StoreError, sqlite3.Error):  # the database failed: the whole run stops, not this session
            raise
        except BackendError as exc:
            self.fail(str(exc))
        except Exception as exc:  # an episode's bug must not kill a whole batch run
            log.exception("episode %s crashed", self.session.id)
            self.fail(f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}")
        return self.session

    # ---- recording ---------------------------------------------------------------

    def record(
        self,
        actor: Actor,
        action: Action,
        observation: Observation | None = None,
        usage: Usage | None = None,
        error: str | None = None,
    ) -> Step:
        usage = usage or action.usage or Usage()
        step = Step(
            index=len(self.steps),
            actor=actor,
            action=action,
            observation=observation or Observation(),
            tokens_in=usage.tokens_in,
            tokens_out=usage.tokens_out,
            cost_usd=usage.cost_usd,
            latency_ms=round(usage.latency_ms, 3),
            model=usage.model,
            error=error,
            retries=usage.retries,
            retry_cause=usage.retry_cause,
        )
        self.steps.append(step)
        step.state = self.state()
        if self.sink:
            self.sink.add_step(self.session, step)
        return step

    def refresh_last_state(self) -> None:
        """Re-snapshot the newest step after the rules updated state following it."""
        if self.steps:
            self.steps[-1].state = self.state()
            if self.sink:
                self.sink.add_step(self.session, self.steps[-1])

    async def _invalid(self, action: Action, feedback: str) -> Observation:
        self.invalid_streak += 1
        observation = Observation(text=feedback, error=feedback)
        self.record("agent", action, observation, error=feedback)
        if self.invalid_streak >= self.rules.invalid_limit:
            await self.rules.on_invalid_limit(action)
        elif self.rounds_used >= self.max_rounds:
            self.rules.on_rounds_exhausted()
            if self.done:
                self.finish()
        return observation

    def rollback(self, before: EpisodeState, count: int) -> None:
        """Undo an action that did not complete. If none of its steps was recorded the
        state goes back to `before`; if some were (already on disk), the session is
        abandoned rather than left half-applied."""
        if self.done:
            return
        if len(self.steps) == count:
            self.rounds_used = before.rounds_used
            self.invalid_streak = before.invalid_streak
            self.rules.restore(before.protocol)
        else:
            self.abandon()

    def finish(self) -> None:
        self.done = True
        if self.session.status == "running":
            self.session.status = "completed"
        self.session.result = self.rules.result()
        self.session.finished_at = now_iso()
        if self.sink:
            self.sink.finish_session(self.session)

    def agent_failed(self, message: str, latency_ms: float = 0.0) -> None:
        """A researcher's agent raised or returned no Action: its own failure, recorded as
        its step (with the message) and scored as running out of rounds (wrong), never
        errored (docs/agents.md)."""
        if self.done:
            return
        self.record(
            "agent",
            Action(kind=ActionKind.invalid, text=message, raw=message),
            Observation(text=message, error=message),
            usage=Usage(latency_ms=latency_ms),
            error=message,
        )
        self.rules.on_rounds_exhausted()
        self.session.error = message
        self.finish()

    def fail(self, error: str) -> None:
        self.session.status = "errored"
        self.session.error = redact(error)
        self.finish()

    def abandon(self) -> None:
        if not self.done:
            self.session.status = "abandoned"
            self.finish()

    # ---- forking -------------------------------------------------------------------

    def restore(self, steps: list[Step]) -> None:
        """Continue from copied steps: their state snapshot becomes the live state."""
        self.steps = [s.model_copy(deep=True) for s in steps]
        for i, s in enumerate(self.steps):
            s.index = i
        if self.steps:
            state = self.steps[-1].state
            self.rounds_used = state.rounds_used
            self.invalid_streak = state.invalid_streak
            self.rules.restore(state.protocol)
        self.start()
        if self.sink:
            for s in self.steps:
                self.sink.add_step(self.session, s)
