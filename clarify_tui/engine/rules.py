"""Rules: what every protocol's rules answer, and where an episode's steps go.

`protocols/<name>/rules.py` subclasses `Rules` (which actions are allowed, what one does, the
result); `engine/episode.py` drives any of them through the shared loop. Kept apart so a
protocol's author reads the contract without the loop, and the loop without the rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from typing import Protocol as TypingProtocol

from clarify_tui.models import Action, ActionKind, Observation, Session, Step, Task, Usage
from clarify_tui.protocols import registry
from clarify_tui.results import AnyResult, AnyState

if TYPE_CHECKING:
    from clarify_tui.agents.base import Agent
    from clarify_tui.engine.episode import Episode
    from clarify_tui.users.base import UserReply

MAX_INVALID_STREAK = 3


def merge_usage(a: Usage | None, b: Usage | None) -> Usage | None:
    """Sum two optional usages (an agent's call plus the search it triggered)."""
    if a is None or b is None:
        return a or b
    return a + b


class StepSink(TypingProtocol):
    """Where steps go as they happen (the Store implements it)."""

    def start_session(self, session: Session, task: Task) -> None: ...

    def add_step(self, session: Session, step: Step) -> None: ...

    def finish_session(self, session: Session) -> None: ...


class Rules:
    """Protocol rules. Subclasses keep their state in `self.state` (a pydantic model)."""

    default_max_rounds = 10
    state: AnyState  # the protocol's state model (results.py), set by each subclass

    def __init__(self, episode: Episode) -> None:
        self.ep = episode
        self.invalid_skip = False  # ended by the agent's own invalid outputs (on_invalid_limit)

    def skip_fields(self) -> dict[str, Any]:
        """`invalid_skip` for the result, only when it happened (older rows stay as they were)."""
        return {"invalid_skip": True} if self.invalid_skip else {}

    def unreadable_fields(self) -> dict[str, Any]:
        """`unreadable_verdicts` for the result, only when there were some (older rows stay as
        they were): counted over the steps, so a fork keeps those before its fork point."""
        n = sum(1 for s in self.ep.steps if s.actor == "judge" and s.observation.data.get("unreadable"))
        return {"unreadable_verdicts": n} if n else {}

    def allowed(self) -> list[ActionKind]:
        raise NotImplementedError

    def visible_question(self) -> str:
        return self.ep.task.question

    def phase(self) -> str:
        return "act"

    def notice(self) -> str | None:
        return None

    def view_extra(self) -> dict[str, Any]:
        """Protocol-specific AgentView fields (e.g. DiscoBench's checkpoint count)."""
        return {}

    def acting_agent(self) -> Agent:
        """Who acts now (CTS hands the search phase to a fixed deep-search agent)."""
        return self.ep.agent

    def refusal(self, action: Action) -> str | None:
        """A reason to refuse an otherwise allowed action (e.g. forced asks), or None."""
        return None

    # Invalid outputs: by default each one uses a round and MAX_INVALID_STREAK in a row
    # end the task as a wrong answer (the model's own failure, never an excluded errored
    # session); a protocol may retry them inside the round instead.
    invalid_uses_round = True
    invalid_limit = MAX_INVALID_STREAK

    def resolve_max_rounds(self, configured: int | None) -> int:
        return configured or self.default_max_rounds

    def prepare(self, action: Action) -> Action:
        """The action the protocol actually takes from the one proposed (default: as is)."""
        return action

    def not_allowed(self, action: Action, allowed: list[ActionKind]) -> str:
        names = ", ".join(k.value for k in allowed)
        return f"'{action.kind.value}' is not allowed now. Allowed: {names}."

    async def on_invalid_limit(self, action: Action) -> None:
        """`invalid_limit` invalid outputs in a row: the agent's own failure, so the task ends
        scored as not done (as running out of rounds) and the session is completed, not
        errored: only infrastructure failures are excluded (docs/scoring.md). The result's
        `invalid_skip` says why."""
        self.invalid_skip = True
        self.on_rounds_exhausted()
        self.ep.finish()

    async def ask_user(self, question: str) -> UserReply:
        """The user's reply to an ask, for a protocol whose users have no method of its own
        (an installed one): `UserSimulator.reply` in its roles' reply form, so a model user
        (`--user openai:M`) and a person (`play --as user`) answer it (protocols/roles.py)."""
        form = registry.roles(self.ep.task.protocol.value).reply
        return await self.ep.user.reply(self.ep.task, question, form)

    def view_turns(self) -> list[Step]:
        """The agent steps this agent may see now (CTS search phase hides the clarify phase)."""
        return [s for s in self.ep.steps if s.actor == "agent"]

    async def handle(self, action: Action) -> Observation:
        raise NotImplementedError

    def on_rounds_exhausted(self) -> None:
        """Called when the agent used its last round without finishing."""

    def record_verdict(self, verdict) -> None:
        """The answer-equivalence judge step that ends an episode."""
        self.ep.done = True
        text, data = ("correct" if verdict.correct else "wrong"), {"correct": verdict.correct}
        if verdict.fault:  # kept so replay and the export say why (issue 22)
            text = f"wrong: the grader call failed, scored wrong as the reference harness does ({verdict.fault})"
            data["fault"] = verdict.fault
        self.ep.record(
            "judge",
            Action(kind=ActionKind.judge, text="answer equivalence"),
            self.judged(verdict, text, data),
            usage=verdict.usage,
        )

    def judged(self, verdict, text: str, data: dict[str, Any]) -> Observation:
        """A verdict's judge-step observation: a model grader's reply kept, and a reply that
        stated no verdict (read as wrong, the paper's reading) said so and counted in the
        result's `unreadable_verdicts` (docs/scoring.md)."""
        if verdict.reply is not None:
            data["reply"] = verdict.reply
        if verdict.unreadable:
            data["unreadable"] = True
            text = (
                f"{text}: the grader's reply states no verdict ({verdict.reply!r:.80}), "
                f"read as no, as the paper reads it"
            )
        return Observation(text=text, data=data)

    def snapshot(self) -> AnyState:
        return self.state.snapshot()

    def restore(self, state: AnyState | None) -> None:
        if state is None:
            raise ValueError("the step holds no protocol state to continue from")
        self.state = type(self.state).model_validate(state.model_dump())

    def result(self) -> AnyResult:
        raise NotImplementedError
