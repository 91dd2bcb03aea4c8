"""The only thing an agent (model, script or human-as-agent) is ever shown.

Built by the engine from the task's visible question and the agent's own past actions
with what came back; hidden task fields never enter it.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from clarify_tui.models import Action, ActionKind, Observation, Protocol


class ViewTurn(BaseModel):
    action: Action
    observation: Observation


class AgentView(BaseModel):
    task_id: str
    protocol: Protocol
    question: str
    language: str = "en"
    phase: str = "act"  # cts: "clarify" then "search"; others: "act"
    history: list[ViewTurn] = Field(default_factory=list)
    allowed: list[ActionKind] = Field(default_factory=list)
    rounds_used: int = 0
    max_rounds: int = 10
    k: int = 1
    context: str | None = None  # interactcomp full_with_context ablation only
    prompting: str = "neutral"
    notice: str | None = None  # e.g. "you must ask 2 more questions before answering"
    actions: str = "reference"  # interactcomp: reference | lenient action parsing
    checkpoint: int | None = None  # discobench (answer mode): the current checkpoint, 1-based
    checkpoints: int | None = None  # discobench (answer mode): how many checkpoints (never their content)

    @property
    def rounds_left(self) -> int:
        return max(0, self.max_rounds - self.rounds_used)

    def count(self, kind: ActionKind) -> int:
        return sum(1 for t in self.history if t.action.kind == kind)

    def text(self) -> str:
        """Everything in the view as one string (used by the barrier tests)."""
        parts = [self.question, self.context or "", self.notice or ""]
        for turn in self.history:
            parts.append(turn.action.summary())
            parts.append(turn.observation.text)
            parts += [f"{h.title} {h.url} {h.content}" for h in turn.observation.hits]
            parts += turn.observation.items
        return "\n".join(parts)
