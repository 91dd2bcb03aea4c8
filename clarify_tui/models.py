"""The data model shared by every layer: tasks, actions, observations, steps, sessions.

Tasks keep agent-visible and hidden fields apart: `Task.question` is the only text an
agent is given; everything listed by `Task.hidden_strings()` must stay behind the barrier.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timezone
from enum import StrEnum
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_serializer, field_validator, model_validator

from clarify_tui.protocols import registry
from clarify_tui.results import EpisodeState, SessionResult, Stored, parse_result


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


def new_id() -> str:
    return uuid.uuid4().hex[:12]


# A protocol's name: the three built-ins as members, and an installed package's protocol
# (registry.py's entry points) as a member made on first use, so `Protocol("mine")` and a
# stored `"protocol": "mine"` read as the built-ins' do. (A comment, not a docstring: the
# published agent schemas would carry it.)
class Protocol(StrEnum):
    discobench = "discobench"
    interactcomp = "interactcomp"
    cts = "cts"

    @classmethod
    def _missing_(cls, value: object) -> Protocol | None:
        if not isinstance(value, str) or value not in registry.installed():
            return None
        member = str.__new__(cls, value)
        member._name_, member._value_ = value, value
        found: Protocol = cls._value2member_map_.setdefault(value, member)  # type: ignore[assignment]
        return found


PROTOCOLS: tuple[str, ...] = registry.names()  # the names flags and files use (the registry's list)


class AmbiguityType(StrEnum):
    entity = "entity"
    version = "version"
    criteria = "criteria"
    factual_inaccuracy = "factual_inaccuracy"


class Answer(BaseModel):
    """A gold answer with the other spellings that count as the same answer."""

    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)

    def forms(self) -> list[str]:
        return [self.text, *self.aliases]


class Checkpoint(BaseModel):
    """One retrieval sub-goal of a DiscoBench question (paper §3, appendix I)."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["ambi", "unambi"]
    ambiguity_type: AmbiguityType | None = None
    description: str = ""
    target: str = Field(min_length=1)
    aliases: list[str] = Field(default_factory=list)
    distractors: list[str] = Field(default_factory=list)
    ambiguity_logic: str | None = None
    clue: str | None = None

    @model_validator(mode="after")
    def _ambiguous_has_clue(self) -> Checkpoint:
        if self.type == "ambi":
            if self.ambiguity_type is None:
                raise ValueError("an ambi checkpoint needs ambiguity_type")
            if not self.clue:
                raise ValueError("an ambi checkpoint needs a clue")
        return self

    def target_forms(self) -> list[str]:
        return [self.target, *self.aliases]


class DiscoBenchPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    original_question: str
    checkpoints: list[Checkpoint] = Field(min_length=1)
    difficulty: str | None = None


class InteractCompPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    context: str
    distractors: list[str] = Field(default_factory=list)


class Nugget(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    text: str = Field(min_length=1)
    weight: int = Field(ge=1, le=3)
    source_ids: list[str] = Field(default_factory=list)


class CTSPart(BaseModel):
    model_config = ConfigDict(extra="forbid")
    blurred_query: str
    fused_query: str
    intent_slots: dict[str, str] = Field(default_factory=dict)
    nuggets: list[Nugget] = Field(min_length=1)


class Task(BaseModel):
    """A benchmark task. `question` is what the agent sees; the protocol part is hidden."""

    model_config = ConfigDict(extra="forbid")
    id: str = Field(min_length=1)
    protocol: Protocol
    question: str = Field(min_length=1)
    answer: Answer | None = None
    domain: str = ""
    language: str = "en"
    discobench: DiscoBenchPart | None = None
    interactcomp: InteractCompPart | None = None
    cts: CTSPart | None = None
    # An installed protocol's part (written under its name in a task file, like the
    # built-ins'), kept as data: the protocol's own code reads it (`Task.own_part`).
    own: dict[str, Any] | None = Field(default=None, exclude_if=lambda v: v is None)
    # The canary of the encrypted release it came from: written encrypted (tasks/sealed.py).
    _canary: str | None = PrivateAttr(default=None)

    @field_validator("id", mode="before")
    @classmethod
    def _id_as_str(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value

    @model_validator(mode="before")
    @classmethod
    def _own_part_by_name(cls, data: Any) -> Any:
        """An installed protocol's task file names its part by the protocol, as the built-ins' do."""
        if isinstance(data, dict) and isinstance(data.get("protocol"), str) and "own" not in data:
            name = data["protocol"]
            if not registry.is_builtin(name) and name in data:
                data = {k: v for k, v in data.items() if k != name} | {"own": data[name]}
        return data

    @model_validator(mode="after")
    def _part_matches_protocol(self) -> Task:
        builtin = registry.is_builtin(self.protocol.value)
        if not builtin and self.own is None:
            raise ValueError(f"a {self.protocol.value} task needs its '{self.protocol.value}' part")
        if builtin and self.own is not None:
            raise ValueError(f"a {self.protocol.value} task has no part of an installed protocol")
        part = getattr(self, self.protocol.value) if builtin else self.own
        if part is None:
            raise ValueError(f"a {self.protocol.value} task needs its '{self.protocol.value}' part")
        if self.protocol != Protocol.cts and self.answer is None:
            raise ValueError(f"a {self.protocol.value} task needs an answer")
        return self

    # A loaded task always has its protocol's part (and, but for CTS, an answer: see the
    # validator above); these give them typed, for the code of that protocol.
    @property
    def gold(self) -> Answer:
        if self.answer is None:
            raise ValueError(f"task {self.id} has no answer")
        return self.answer

    @property
    def discobench_part(self) -> DiscoBenchPart:
        if self.discobench is None:
            raise ValueError(f"task {self.id} is not a discobench task")
        return self.discobench

    @property
    def cts_part(self) -> CTSPart:
        if self.cts is None:
            raise ValueError(f"task {self.id} is not a cts task")
        return self.cts

    @property
    def own_part(self) -> dict[str, Any]:
        """An installed protocol's part, as its task file gave it."""
        if self.own is None:
            raise ValueError(f"task {self.id} is not a task of an installed protocol")
        return self.own

    def hidden_strings(self) -> list[str]:
        """Every hidden text an agent must not see before the user reveals it."""
        hidden: list[str] = []
        if self.answer:
            hidden += self.answer.forms()
        if self.discobench:
            for cp in self.discobench.checkpoints:
                hidden += [cp.target, *cp.aliases]
                hidden += [s for s in (cp.clue, cp.ambiguity_logic) if s]
        if self.interactcomp:
            hidden.append(self.interactcomp.context)
        if self.cts:
            hidden.append(self.cts.fused_query)
            hidden += [n.text for n in self.cts.nuggets]
        if self.own:
            hidden += _strings(self.own)  # an installed protocol's part: all of it is hidden
        return [h for h in hidden if h and h.strip()]


def _strings(value: Any) -> list[str]:
    """Every string inside a JSON value."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


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


SessionStatus = Literal["running", "completed", "errored", "abandoned", "superseded"]  # superseded: replaced by --retry-errored
SessionMode = Literal["automated", "stepped", "human_agent", "human_user"]
SESSION_STATUSES: tuple[str, ...] = get_args(SessionStatus)
FINISHED_STATUSES: tuple[str, ...] = ("completed", "errored", "abandoned")  # over for good; never resumed


# InteractComp reply readings (protocols/interactcomp/compat.py); "ours" is the old name of "strict".
Compat = Literal["paper", "strict", "reference"]


class EpisodeConfig(BaseModel):
    """Protocol settings of one session (modes and ablations from the papers)."""

    model_config = ConfigDict(extra="forbid")
    max_rounds: int | None = Field(default=None, ge=1)  # None: the protocol's default
    interactcomp_mode: Literal[
        "answer_only", "search_only", "ask_only", "full", "full_with_context", "forced_ask"
    ] = "full"
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
        if self.search.startswith("cache(") and self.search.endswith(")"):
            self.search = self.search[len("cache("):-1]
            self.search_cache = self.search_cache or "on"
        return self
