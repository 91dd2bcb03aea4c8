"""Riddle's rules: search, ask (the user gives the hint) or answer; the answer ends the task.

Its own rule user (`--user rule`) gives the hint; any other user (a model, a person)
answers through clarify-tui's generic reply (`Rules.ask_user`), shown the task's riddle part."""

from __future__ import annotations

from clarify_riddle import user
from clarify_tui.engine.episode import Rules
from clarify_tui.models import Action, ActionKind, Observation
from clarify_tui.results import OwnResult, OwnState
from clarify_tui.users.base import UserReply


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
            if self.ep.user.spec == "rule":  # its own rule user: the hint, whatever was asked
                said = UserReply(text=user.reply(self.ep.task, action.text))
            else:  # a model or a person: clarify-tui's generic reply, shown the task's riddle part
                said = await self.ask_user(action.text)
            obs = Observation(text=said.text)
            self.ep.record("agent", action, obs)
            self.ep.record("user", Action(kind=ActionKind.reply, text=said.text, raw=said.raw), usage=said.usage)
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
