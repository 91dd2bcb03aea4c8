"""InteractComp rules, as the reference harness plays them (paper 003 §3-4, appendix A).

Reference: github:FoundationAgents/InteractComp (run_benchmark.py, core/agent.py,
core/action.py, core/benchmark.py); file:line citations below are to its commit 737d0e7.

Modes (run_benchmark.py:46-56): answer_only (one final-round call: max_rounds is 1,
:162-163), search_only, ask_only, full, full_with_context (the agent is also shown the
hidden context: the paper's upper-bound ablation), forced_ask (an answer before
`forced_asks` asks is refused). Every round but the last allows the mode's actions; the
last is a single call that always ends with an answer (agent.py:112-148).

Invalid outputs (unparseable, unknown name, not in the mode) and refused early answers
use no round and stay out of the agent's memory; the agent is shown the harness's
feedback and tries again in the same round. The 4th in a row skips the task
(agent.py:197, :212): the prediction is empty, it is graded, and counted (outcome
`invalid_skip`): a model failure, never excluded.
"""

from __future__ import annotations

from clarify_tui.engine.episode import Rules, merge_usage
from clarify_tui.errors import BackendError, EndpointDown
from clarify_tui.models import Action, ActionKind, Observation
from clarify_tui.protocols.interactcomp import reference as ref
from clarify_tui.protocols.interactcomp.compat import failures_as_reference, reads_as_reference
from clarify_tui.results import InteractCompResult, InteractCompState
from clarify_tui.users.base import UserReply

_MODE_ACTIONS = {
    "answer_only": [ActionKind.answer],
    "search_only": [ActionKind.search, ActionKind.answer],
    "ask_only": [ActionKind.ask, ActionKind.answer],
    "full": [ActionKind.search, ActionKind.ask, ActionKind.answer],
    "full_with_context": [ActionKind.search, ActionKind.ask, ActionKind.answer],
    "forced_ask": [ActionKind.search, ActionKind.ask, ActionKind.answer],
}
# Outcomes: answered; no_answer (the final round's reply held no answer: "No Answer" is
# graded); invalid_skip (see above); call_error (the harness could not call the action:
# missing or extra params; it crashes, re-runs the task and scores it 0, benchmark.py:106-130).
OUTCOMES = ("answered", "no_answer", "invalid_skip", "call_error")


def check_forced_ask(max_rounds: int, forced_asks: int) -> str | None:
    """run_benchmark.py:167-172: forced_ask needs N asks plus one answer round."""
    if max_rounds < forced_asks + 1:
        return (
            f"forced_ask needs max_rounds >= forced_asks + 1 ({forced_asks} asks + 1 answer); "
            f"got max_rounds={max_rounds}"
        )
    return None


class InteractCompRules(Rules):
    default_max_rounds = 10
    invalid_uses_round = False
    invalid_limit = ref.MAX_INVALID_RETRIES + 1
    state: InteractCompState

    def __init__(self, episode) -> None:
        super().__init__(episode)
        self.state = InteractCompState()

    @property
    def mode(self) -> str:
        return self.ep.config.interactcomp_mode

    @property
    def reference_readings(self) -> bool:
        """Replies read as the harness reads them (`--compat paper`, the default, or reference)."""
        return reads_as_reference(self.ep.config.compat)

    @property
    def reference_failures(self) -> bool:
        """Failed calls become answers as in the harness (only `--compat reference`)."""
        return failures_as_reference(self.ep.config.compat)

    def resolve_max_rounds(self, configured: int | None) -> int:
        rounds = 1 if self.mode == "answer_only" else (configured or self.default_max_rounds)
        if self.mode == "forced_ask" and (problem := check_forced_ask(rounds, self.ep.config.forced_asks)):
            raise ValueError(problem)
        return rounds

    def visible_question(self) -> str:
        context = self.ep.task.interactcomp.context if self.ep.task.interactcomp else None
        return ref.harness_question(self.ep.task.question, self.mode, context, self.ep.config.forced_asks)

    def allowed(self) -> list[ActionKind]:
        if self.ep.final_round:
            return [ActionKind.answer]
        return list(_MODE_ACTIONS[self.mode])

    def asks_still_required(self) -> int:
        if self.mode != "forced_ask":
            return 0
        return max(0, self.ep.config.forced_asks - self.state.asks)

    def notice(self) -> str | None:
        """For people watching (TUI); the harness's prompts carry no notice."""
        if self.ep.final_round:
            return "This is your last round: you must answer now."
        missing = self.asks_still_required()
        return f"You must ask {missing} more question(s) before answering." if missing else None

    def prepare(self, action: Action) -> Action:
        """The final round's single reply always ends the task with an answer."""
        if self.ep.final_round and action.kind != ActionKind.answer:
            return Action(kind=ActionKind.answer, text=ref.NO_ANSWER, raw=action.raw, usage=action.usage)
        return action

    def not_allowed(self, action: Action, allowed: list[ActionKind]) -> str:
        return ref.invalid_feedback(allowed)

    def refusal(self, action: Action) -> str | None:
        if action.kind == ActionKind.answer and self.asks_still_required() and not self.ep.final_round:
            return ref.early_answer_feedback(self.ep.config.forced_asks, self.state.asks)
        if self.ep.config.actions == "reference":
            return None  # the harness executes any call it can make, empty text included
        if action.kind == ActionKind.answer and action.confidence is not None:
            if not 0 <= action.confidence <= 100:
                return "confidence must be between 0 and 100."
        if not (action.text or "").strip():
            return f"{action.kind.value} needs text."
        return None

    async def handle(self, action: Action) -> Observation:
        ep = self.ep
        if action.call_error:
            self.state.outcome, self.state.correct = "call_error", False
            obs = Observation(
                text=f"The harness cannot call this action: {action.call_error}",
                done=True,
                data={"call_error": action.call_error},
            )
            ep.record("agent", action, obs)
            ep.done = True
            return obs
        if action.kind == ActionKind.search:
            return await self._search(action)
        if action.kind == ActionKind.ask:
            self.state.asks += 1
            reply = await self._reply(action.text)
            obs = Observation(text=reply.text)
            ep.record("agent", action, obs)
            said = None
            if reply.fault:  # kept so replay and the export say why (issue 22)
                said = Observation(
                    text=f"the responder call failed; the reference harness reads it as i don't know ({reply.fault})",
                    data={"fault": reply.fault},
                )
            ep.record("user", Action(kind=ActionKind.reply, text=reply.text, raw=reply.raw), said, usage=reply.usage)
            return obs
        self.state.answer = action.text
        self.state.confidence = action.confidence
        self.state.outcome = "no_answer" if action.text == ref.NO_ANSWER else "answered"
        obs = Observation(text="answer recorded", done=True)
        ep.record("agent", action, obs)
        await self._grade(action.text, obs)
        return obs

    async def _search(self, action: Action) -> Observation:
        self.state.searches += 1
        try:
            result = await self.ep.search.search(action.text, self.ep.config.search_results)
        except BackendError as exc:
            if not self.reference_failures or isinstance(exc, EndpointDown):  # not called: the run stops
                raise
            # core/action.py:134-136: a failed search is the observation "Search failed"
            obs = Observation(text="Search failed", data={"search_failed": str(exc)})
            self.ep.record("agent", action, obs)
            return obs
        obs = Observation(text=f"{len(result.hits)} results", hits=result.hits)
        self.ep.record("agent", action, obs, usage=merge_usage(action.usage, result.usage))
        return obs

    async def _reply(self, question: str) -> UserReply:
        try:
            reply = await self.ep.user.reply_interactcomp(self.ep.task, question)
        except BackendError as exc:
            if not self.reference_failures or isinstance(exc, EndpointDown):  # not called: the run stops
                raise
            # core/responder.py:100-102, core/action.py:92-94: a failed responder is "i don't know"
            return UserReply(text="i don't know", fault=str(exc))
        if self.reference_readings and reply.raw is not None:
            reply = reply.model_copy(update={"text": ref.responder_reading(reply.raw)})
        return reply

    async def _grade(self, predicted: str, obs: Observation | None = None) -> None:
        """benchmark.py:122, :132-152: the grader sees the task's own question and answer."""
        task, judge = self.ep.task, self.ep.judge
        if self.reference_readings and hasattr(judge, "grade_reference"):
            verdict = await judge.grade_reference(
                task.question, predicted, task.gold.text, failure_is_wrong=self.reference_failures
            )
        else:
            verdict = await judge.equivalent(task.question, predicted, task.gold)
        self.state.correct = verdict.correct
        if obs is not None:
            obs.data["correct"] = verdict.correct
        self.record_verdict(verdict)

    async def on_invalid_limit(self, action: Action) -> None:
        """run_benchmark.py:91-92 then benchmark.py:122: an empty prediction, graded."""
        self.state.answer, self.state.outcome = "", "invalid_skip"
        await self._grade("")
        self.ep.finish()

    def on_rounds_exhausted(self) -> None:
        self.state.correct = False
        self.ep.done = True

    def result(self) -> InteractCompResult:
        agent_steps = [s for s in self.ep.steps if s.actor == "agent"]
        failed = [s for s in agent_steps if s.error]
        return InteractCompResult(
            **self.state.model_dump(),
            # rounds that used the budget: not invalid outputs, refusals or a failed call
            rounds=sum(1 for s in agent_steps if not s.error and not s.action.call_error),
            answers=sum(1 for s in agent_steps if s.action.kind == ActionKind.answer and not s.error),
            invalid=len(failed),
            refused=sum(1 for s in failed if s.action.kind == ActionKind.answer),
            mode=self.mode,
            max_rounds=self.ep.max_rounds,
            actions=self.ep.config.actions,
            compat=self.ep.config.compat,
            **self.unreadable_fields(),
        )
