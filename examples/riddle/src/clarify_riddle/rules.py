"""Riddle's rules: search, ask (the user gives the hint) or answer; the answer ends the task."""

from __future__ import annotations

from clarify_riddle import user
from clarify_tui.engine.episode import Rules
from clarify_tui.errors import UsageError
from clarify_tui.models import Action, ActionKind, Observation
from clarify_tui.results import OwnResult, OwnState


class RiddleState(OwnState):
    asks: int = 0
    searches: int = 0
    answer: str | None = None
    correct: bool | None = None


class RiddleResult(OwnResult):
    asks: int = 0
    searches: int = 0


class RiddleRules(Rules):
    default_max_rounds = 5

    def __init__(self, episode) -> None:  # type: ignore[no-untyped-def]
        super().__init__(episode)
        if episode.user.spec != "rule":
            raise UsageError("riddle plays with its own rule user only (--user rule)")
        self.state = RiddleState(protocol="riddle")

    def allowed(self) -> list[ActionKind]:
        if self.ep.final_round:
            return [ActionKind.answer]
        return [ActionKind.search, ActionKind.ask, ActionKind.answer]

    async def handle(self, action: Action) -> Observation:
        state = self.state
        assert isinstance(state, RiddleState)
        if action.kind == ActionKind.search:
            state.searches += 1
            result = await self.ep.search.search(action.text, self.ep.config.search_results)
            obs = Observation(text=f"{len(result.hits)} results", hits=result.hits)
            self.ep.record("agent", action, obs)
            return obs
        if action.kind == ActionKind.ask:
            state.asks += 1
            text = user.reply(self.ep.task, action.text)
            obs = Observation(text=text)
            self.ep.record("agent", action, obs)
            self.ep.record("user", Action(kind=ActionKind.reply, text=text))
            return obs
        state.answer = action.text
        obs = Observation(text="answer recorded", done=True)
        self.ep.record("agent", action, obs)
        verdict = await self.ep.judge.equivalent(self.ep.task.question, action.text, self.ep.task.gold)
        state.correct = verdict.correct
        self.record_verdict(verdict)
        return obs

    def on_rounds_exhausted(self) -> None:
        state = self.state
        assert isinstance(state, RiddleState)
        state.correct = False
        self.ep.done = True

    def result(self) -> RiddleResult:
        state = self.state
        assert isinstance(state, RiddleState)
        return RiddleResult(
            protocol="riddle",
            answer=state.answer,
            correct=state.correct,
            asks=state.asks,
            searches=state.searches,
            **self.skip_fields(),
        )
