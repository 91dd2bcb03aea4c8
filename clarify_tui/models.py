"""The data model shared by every layer: actions, observations, steps, sessions.

A task (what the agent sees, what stays hidden) is task_model.py; its names are
re-exported here, where every layer imports them.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_serializer, field_validator, model_validator

from clarify_tui.backend_spec import BackendSpec
from clarify_tui.results import EpisodeState, SessionResult, Stored, parse_result
from clarify_tui.task_model import PROTOCOLS as PROTOCOLS
from clarify_tui.task_model import AmbiguityType as AmbiguityType
from clarify_tui.task_model import Answer as Answer
from clarify_tui.task_model import Checkpoint as Checkpoint
from clarify_tui.task_model import CTSPart as CTSPart
from clarify_tui.task_model import DiscoBenchPart as DiscoBenchPart
from clarify_tui.task_model import InteractCompPart as InteractCompPart
from clarify_tui.task_model import Nugget as Nugget
from clarify_tui.task_model import Protocol as Protocol
from clarify_tui.task_model import Task as Task


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


class ActionKind(StrEnum):
    search = "search"
    ask = "ask"
    answer = "answer"
    clarify = "clarify"
    visit = "visit"
    reply = "reply"
    rewrite = "rewrite"
    judge = "judge"
    invalid = "invalid"


class Usage(BaseModel):
    """What one backend call cost: tokens, money, wall time, which model."""

    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0  # None: the model has no price (llm/pricing.py), never counted as $0
    latency_ms: float = 0.0
    model: str | None = None
    retries: int = 0  # transient faults and off-contract replies retried before success
    retry_cause: str | None = None  # the last of them, in words

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            tokens_in=self.tokens_in + other.tokens_in,
            tokens_out=self.tokens_out + other.tokens_out,
            cost_usd=None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd,
            latency_ms=self.latency_ms + other.latency_ms,
            model=self.model or other.model,
            retries=self.retries + other.retries,
            retry_cause=other.retry_cause or self.retry_cause,
        )


class Action(BaseModel):
    """What an actor does. `text` is the query, question, answer, url, reply or rewrite;
    `items` carries the k questions of a CTS clarify (or the k replies). An agent builds
    its moves with `Action.search/ask/answer/clarify/visit` (docs/agents.md)."""

    model_config = ConfigDict(use_attribute_docstrings=True)
    kind: ActionKind
    """search | ask | answer | clarify | visit (an agent's moves; the rest are the engine's)."""
    text: str = ""
    """The search query, the question asked, the answer, or the url visited."""
    items: list[str] = Field(default_factory=list)
    """cts `clarify`: the k clarifying questions, in one action."""
    confidence: float | None = None
    """interactcomp `answer`: confidence 0-100 (calibration error); optional elsewhere."""
    raw: str | None = None
    """The agent's own output before it was read as this action (shown in replay), optional."""
    # A call the reference harness could not execute (missing or extra params): the
    # InteractComp engine ends the task scored 0, as the harness's crash does.
    call_error: str | None = None
    usage: Usage | None = Field(default=None, exclude=True)
    # A person edited or replaced the agent's proposal (TUI step mode); absent otherwise.
    human: Literal["edited", "replaced"] | None = Field(default=None, exclude_if=lambda v: v is None)

    @classmethod
    def search(cls, query: str) -> Action:
        return cls(kind=ActionKind.search, text=query)

    @classmethod
    def ask(cls, question: str) -> Action:
        return cls(kind=ActionKind.ask, text=question)

    @classmethod
    def answer(cls, text: str, confidence: float | None = None) -> Action:
        return cls(kind=ActionKind.answer, text=text, confidence=confidence)

    @classmethod
    def clarify(cls, questions: list[str]) -> Action:
        return cls(kind=ActionKind.clarify, items=list(questions))

    @classmethod
    def visit(cls, url: str) -> Action:
        return cls(kind=ActionKind.visit, text=url)

    def summary(self) -> str:
        if self.kind == ActionKind.clarify:
            return " | ".join(self.items)
        if self.kind == ActionKind.answer and self.confidence is not None:
            return f"{self.text} (confidence {self.confidence:g})"
        return self.text


class SearchHit(BaseModel):
    """One search result, shaped like Tavily's."""

    title: str
    url: str
    content: str
    score: float = 0.0


class Observation(BaseModel):
    """What came back from an action: search hits, a reply, a verdict, or an error."""

    text: str = ""
    hits: list[SearchHit] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None
    done: bool = False


Actor = Literal["agent", "user", "environment", "judge"]


class Step(BaseModel):
    """One actor's contribution to a session, persisted as it happens."""

    index: int
    actor: Actor
    action: Action
    observation: Observation = Field(default_factory=Observation)
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = 0.0  # None: an unpriced model's call
    latency_ms: float = 0.0
    model: str | None = None
    error: str | None = None
    state: EpisodeState = Field(default_factory=EpisodeState)
    created_at: str = Field(default_factory=now_iso)
    retries: int = 0  # calls retried for this step (transient faults, off-contract replies)
    retry_cause: str | None = None  # the last retry's cause

    @field_serializer("state")
    def _state_as_stored(self, state: EpisodeState) -> dict[str, Any]:
        return state.stored()


SessionStatus = Literal[
    "running", "completed", "errored", "abandoned", "superseded"
]  # superseded: replaced by --retry-errored
SessionMode = Literal["automated", "stepped", "human_agent", "human_user"]
SESSION_STATUSES: tuple[str, ...] = get_args(SessionStatus)
FINISHED_STATUSES: tuple[str, ...] = ("completed", "errored", "abandoned")  # over for good; never resumed


# InteractComp reply readings (protocols/interactcomp/compat.py); "ours" is the old name of "strict".
Compat = Literal["paper", "strict", "reference"]


class EpisodeConfig(BaseModel):
    """Protocol settings of one session (modes and ablations from the papers)."""

    model_config = ConfigDict(extra="forbid")
    max_rounds: int | None = Field(default=None, ge=1)  # None: the protocol's default
    interactcomp_mode: Literal["answer_only", "search_only", "ask_only", "full", "full_with_context", "forced_ask"] = (
        "full"
    )
    forced_asks: int = Field(default=5, ge=0)  # the reference's enforce_ask_min default
    # InteractComp: how model output becomes an action ("reference": the harness's exact
    # names and params; "lenient": aliases, flat params, <answer> tags) and which readings
    # of responder/grader replies are used (protocols/interactcomp/compat.py: "paper", the harness's
    # readings; "strict", ours; "reference", the harness's readings and failure handling).
    actions: Literal["reference", "lenient"] = "reference"
    compat: Compat = "paper"
    prompting: Literal["neutral", "guided"] = "neutral"
    ablation: Literal["none", "no_search", "no_ask", "original_question"] = "none"
    # DiscoBench: "answer" = the agent answers each checkpoint, a wrong one fails it and the
    # next is current unannounced (paper 000 §3, B.2, appendix I case 1; default); "strict" =
    # a wrong intermediate answer ends the task; "trajectory" = outcomes inferred from a
    # single-answer trajectory (imported runs). docs/paper-readings.md D1-D3, D7.
    checkpoints: Literal["answer", "strict", "trajectory"] = "answer"
    k: int = Field(default=1, ge=0, le=3)  # CTS: 0 = orig (deep search on the blurred query)
    deep_search: str | None = None  # CTS: the fixed deep-search agent's spec; None = the agent under test
    search_results: int = Field(default=5, ge=1, le=20)

    @field_validator("compat", mode="before")
    @classmethod
    def _old_compat_name(cls, value: Any) -> Any:
        """Sessions stored before issue 23 call our readings "ours"."""
        return "strict" if value == "ours" else value


class Session(BaseModel):
    id: str = Field(default_factory=new_id)
    run: str = "default"
    task_id: str
    protocol: Protocol
    agent: str
    user: str
    search: str  # the backend spec (local, tavily), never the cache wrapper
    search_cache: str | None = None  # record | replay | off; "on" = cached, mode not recorded (old rows)
    judge: str = "rule"
    mode: SessionMode = "automated"
    annotator: str | None = None
    status: SessionStatus = "running"
    error: str | None = None
    config: EpisodeConfig = Field(default_factory=EpisodeConfig)
    # The protocol's result (results.py); an empty one (`{}` stored) until the session ends.
    result: SessionResult = Field(default_factory=lambda data: parse_result(data["protocol"], None))
    parent_id: str | None = None
    fork_step: int | None = None
    # `whatif` forks: what replaced the agent's action ({"intervention": "ask", "step": 3,
    # "kind": "search"}). Set: a counterfactual, left out of every baseline score.
    counterfactual: dict[str, Any] | None = None
    note: str | None = None
    created_at: str = Field(default_factory=now_iso)
    finished_at: str | None = None
    epoch: int = Field(default=0, ge=0)  # run --epochs N: which play of the task (0-based); part of its identity

    @model_validator(mode="before")
    @classmethod
    def _result_of_the_protocol(cls, data: Any) -> Any:
        """A stored result carries no protocol tag: it is the session's."""
        if isinstance(data, dict) and "protocol" in data:
            result = data.get("result")
            if result is None or (isinstance(result, dict) and "protocol" not in result):
                protocol = data["protocol"]
                tag = protocol.value if isinstance(protocol, Protocol) else protocol
                data = {**data, "result": {**(result or {}), "protocol": tag}}
        return data

    @field_serializer("result")
    def _result_as_stored(self, result: Stored) -> dict[str, Any]:
        return result.stored()

    @model_validator(mode="after")
    def _backend_apart_from_cache(self) -> Session:
        """Rows written before `search_cache` existed read `cache(local)`: split it."""
        backend = BackendSpec.parse(self.search).search_name
        if backend != self.search:
            self.search = backend
            self.search_cache = self.search_cache or "on"
        return self
