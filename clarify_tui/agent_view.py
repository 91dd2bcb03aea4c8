"""The only thing an agent (model, script or human-as-agent) is ever shown.

Built by the engine from the task's visible question and the agent's own past actions
with what came back; hidden task fields never enter it. Public: a researcher's agent
receives it (`from clarify_tui import AgentView`, docs/agents.md), an HTTP agent as the
JSON of docs/agent_view.schema.json.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, computed_field

from clarify_tui.models import Action, ActionKind, Observation, Protocol


class ViewTurn(BaseModel):
    """One of the agent's own past moves and what came back."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    action: Action
    """What the agent did."""
    observation: Observation
    """What came back: search hits, the user's reply, a refusal (`error`)."""


class AgentView(BaseModel):
    """What the agent may see now: the visible question, its own history, and what the
    protocol permits (`allowed`, `phase`, `k`, `rounds_left`)."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    task_id: str
    """The task's id (not secret)."""
    protocol: Protocol
    """discobench | interactcomp | cts."""
    question: str
    """The question as the agent sees it (DiscoBench: ambiguity-injected; CTS: the blurred query)."""
    language: str = "en"
    """The task's language (en, zh)."""
    phase: str = "act"
    """cts: "clarify" (ask k questions in one `clarify` action) then "search" (answer q̂); others: "act"."""
    history: list[ViewTurn] = Field(default_factory=list)
    """The agent's own past actions and observations, oldest first."""
    allowed: list[ActionKind] = Field(default_factory=list)
    """The action kinds the protocol accepts now (anything else is refused as invalid)."""
    rounds_used: int = 0
    """Rounds already used."""
    max_rounds: int = 10
    """The round budget."""
    k: int = 1
    """cts: how many clarifying questions to ask (0: none, the `orig` baseline)."""
    context: str | None = None
    """interactcomp `full_with_context` ablation only: the task's context; else null."""
    prompting: str = "neutral"
    """discobench: neutral | guided prompting."""
    notice: str | None = None
    """A rule the agent must know now, e.g. "you must ask 2 more questions before answering"."""
    actions: str = "reference"
    """interactcomp: reference | lenient action parsing (for text-prompted agents)."""
    checkpoint: int | None = None
    """discobench: the current checkpoint, 1-based (never its content)."""
    checkpoints: int | None = None
    """discobench: how many checkpoints the question has (never their content)."""
    checkpoint_mode: str | None = None
    """discobench: what a wrong intermediate answer does: "answer" (the paper's: that checkpoint
    fails and the next becomes current, unannounced) or "strict" (the task ends); null when
    the agent does not answer checkpoints."""
    epoch: int = 0
    """Which play of this task in the run (`run --epochs N`: 0 to N-1): a stochastic agent
    seeds on it, with `run --seed`, so that epochs differ and a rerun repeats them."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def rounds_left(self) -> int:
        """Rounds left in the budget (`max_rounds - rounds_used`)."""
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
