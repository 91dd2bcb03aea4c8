"""InteractComp rules (paper §3-4, appendix A): ReAct rounds, yes/no asks, one final answer.

Modes: answer_only, search_only, ask_only, full, full_with_context (the agent also sees
the hidden context: the paper's upper-bound ablation), forced_ask (answer refused until
`forced_asks` asks). The last round allows only answer.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from clarify_tui.engine.episode import Rules, merge_usage
from clarify_tui.models import Action, ActionKind, Observation

_MODE_ACTIONS = {
    "answer_only": [ActionKind.answer],
    "search_only": [ActionKind.search, ActionKind.answer],
    "ask_only": [ActionKind.ask, ActionKind.answer],
    "full": [ActionKind.search, ActionKind.ask, ActionKind.answer],
    "full_with_context": [ActionKind.search, ActionKind.ask, ActionKind.answer],
    "forced_ask": [ActionKind.search, ActionKind.ask, ActionKind.answer],
}


class InteractCompState(BaseModel):
    asks: int = 0
    searches: int = 0
    answer: str | None = None
    confidence: float | None = None
    correct: bool | None = None


class InteractCompRules(Rules):
    default_max_rounds = 10

    def __init__(self, episode) -> None:
        super().__init__(episode)
        self.state = InteractCompState()

    @property
    def mode(self) -> str:
        return self.ep.config.interactcomp_mode

    def allowed(self) -> list[ActionKind]:
        if self.ep.final_round:
            return [ActionKind.answer]
        return list(_MODE_ACTIONS[self.mode])

    def asks_still_required(self) -> int:
        if self.mode != "forced_ask":
            return 0
        return max(0, self.ep.config.forced_asks - self.state.asks)

    def notice(self) -> str | None:
        if self.ep.final_round:
            return "This is your last round: you must answer now."
        missing = self.asks_still_required()
        return f"You must ask {missing} more question(s) before answering." if missing else None

    def refusal(self, action: Action) -> str | None:
        missing = self.asks_still_required()
        if action.kind == ActionKind.answer and missing and not self.ep.final_round:
            return f"Answer refused: ask {missing} more question(s) first."
        if action.kind == ActionKind.answer and action.confidence is not None:
            if not 0 <= action.confidence <= 100:
                return "confidence must be between 0 and 100."
        if not (action.text or "").strip():
            return f"{action.kind.value} needs text."
        return None

    async def handle(self, action: Action) -> Observation:
        ep = self.ep
        if action.kind == ActionKind.search:
            self.state.searches += 1
            result = await ep.search.search(action.text, ep.config.search_results)
            obs = Observation(text=f"{len(result.hits)} results", hits=result.hits)
            ep.record("agent", action, obs, usage=merge_usage(action.usage, result.usage))
            return obs
        if action.kind == ActionKind.ask:
            self.state.asks += 1
            reply = await ep.user.reply_interactcomp(ep.task, action.text)
            obs = Observation(text=reply.text)
            ep.record("agent", action, obs)
            ep.record("user", Action(kind=ActionKind.reply, text=reply.text), usage=reply.usage)
            return obs
        self.state.answer = action.text
        self.state.confidence = action.confidence
        obs = Observation(text="answer recorded", done=True)
        ep.record("agent", action, obs)
        verdict = await ep.judge.equivalent(ep.task.question, action.text, ep.task.answer)
        self.state.correct = verdict.correct
        obs.data["correct"] = verdict.correct
        self.record_verdict(verdict)
        return obs

    def on_rounds_exhausted(self) -> None:
        self.state.correct = False
        self.ep.done = True

    def result(self) -> dict[str, Any]:
        agent_steps = [s for s in self.ep.steps if s.actor == "agent"]
        return {
            **self.state.model_dump(),
            "rounds": len(agent_steps),
            "answers": sum(1 for s in agent_steps if s.action.kind == ActionKind.answer),
            "invalid": sum(1 for s in agent_steps if s.error),
            "mode": self.mode,
            "max_rounds": self.ep.max_rounds,
        }

