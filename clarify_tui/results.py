"""Typed results and state snapshots of the three protocols (what `Session.result` and
`Step.state` hold), one model per protocol, chosen by `protocol` (a discriminated union).

The JSON stored for them is what the engine wrote before they were typed: the
`protocol` tag is not stored (a result takes it from its session; a state snapshot is
told by its shape when untagged), keys a model does not know are kept, and a model
writes back only the keys it was given (`stored()`), so a row written by an older
version reads and writes back unchanged. Readers get the field's default for a key an
older row lacks. The schema is published as docs/result.schema.json (results_schema.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    SerializationInfo,
    SerializerFunctionWrapHandler,
    Tag,
    ValidationInfo,
    ValidatorFunctionWrapHandler,
    WrapSerializer,
    WrapValidator,
)

from clarify_tui.protocols import registry

CheckpointStatus = Literal["pending", "current", "passed", "failed", "unreached"]
CheckpointOutcome = Literal["correct_answer", "missed_ambiguity_correct", "failed", "unreached"]
ADVANCED_OUTCOMES = ("correct_answer", "missed_ambiguity_correct")


def checkpoint_outcome(status: str | None, type_: str | None, asked_right: bool) -> CheckpointOutcome:
    """Paper 000 appendix E: a passed ambiguous checkpoint never asked about is a missed ambiguity."""
    if status == "passed":
        return "missed_ambiguity_correct" if type_ == "ambi" and not asked_right else "correct_answer"
    return "unreached" if status == "unreached" else "failed"


class Stored(BaseModel):
    """A model kept as JSON: unknown keys survive, and only the keys given are written."""

    model_config = ConfigDict(extra="allow")

    def stored(self) -> dict[str, Any]:
        """The JSON object to store: the keys this value was built or read with."""
        return self.model_dump(mode="json", exclude_unset=True)

    def snapshot(self) -> Self:
        """A deep copy with every field marked given (a state snapshot stores all of them)."""
        return type(self).model_validate(self.model_dump())


# ---- state: what the engine tracks while a session runs (Step.state["protocol"]) ----------


class CheckpointState(Stored):
    index: int = 0
    type: str = "unambi"
    ambiguity_type: str | None = None
    status: CheckpointStatus = "pending"
    asked: bool = False
    asked_right: bool = False
    clue_released: bool = False
    searches: int = 0
    asks: int = 0
    first_action: str | None = None
    searches_before_first_ask: int | None = Field(default=None, description="null: never asked (or rows before it)")
    answer: str | None = Field(default=None, description="answer mode: what the agent committed at this checkpoint")


class DiscoBenchState(Stored):
    protocol: Literal["discobench"] = Field(default="discobench", exclude=True)
    checkpoints: list[CheckpointState] = Field(default_factory=list)
    current: int | None = 0
    answer: str | None = None
    correct: bool | None = None
    mode: Literal["answer", "strict", "trajectory"] = "answer"


class InteractCompState(Stored):
    protocol: Literal["interactcomp"] = Field(default="interactcomp", exclude=True)
    asks: int = 0
    searches: int = 0
    answer: str | None = None
    confidence: float | None = Field(default=None, description="0-100, as the agent stated it")
    correct: bool | None = None
    outcome: str | None = Field(
        default=None,
        description="answered | no_answer | invalid_skip | call_error (docs/interactcomp.md); null before an answer",
    )


class NuggetCoverage(Stored):
    """One gold nugget's coverage by the CTS answer (paper 001 §4.4)."""

    id: str = ""
    weight: int = 0
    coverage: Literal["full", "partial", "none"] = "none"


class CTSState(Stored):
    protocol: Literal["cts"] = Field(default="cts", exclude=True)
    phase: str = "clarify"
    orig: bool = False
    questions: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list)
    aspects: list[str] = Field(default_factory=list, description="the first aspect of each question")
    aspect_sets: list[list[str]] = Field(default_factory=list, description="every aspect of each question")
    rewritten: str | None = None
    clarify_step: int | None = Field(default=None, description="the clarify step's index: the search phase follows it")
    answer: str | None = None
    coverage: list[NuggetCoverage] = Field(default_factory=list)
    restore_score: float | None = None


def _state_protocol(value: Any) -> str:
    """The tag of a protocol state: its own, else told by its shape (stored JSON has none)."""
    tag = value.get("protocol") if isinstance(value, dict) else getattr(value, "protocol", None)
    if tag:
        return str(tag)
    if "checkpoints" in value:
        return "discobench"
    return "cts" if "phase" in value else "interactcomp"


class OwnState(Stored):
    """An installed protocol's state (its spec's `state` subclasses it): tagged, since its
    shape tells nothing."""

    protocol: str = ""  # stored: the tag is how a snapshot is read back as its model


def _own_model(kind: str) -> Any:
    """A wrap validator: a value tagged with an installed protocol's name is read as the
    model its spec names (`result` or `state`); the built-ins' go through the union."""

    def validate(value: Any, handler: ValidatorFunctionWrapHandler, info: ValidationInfo) -> Any:
        tag = value.get("protocol") if isinstance(value, dict) else getattr(value, "protocol", None)
        if isinstance(tag, str) and tag and not registry.is_builtin(tag):
            if isinstance(value, OwnState | OwnResult):
                return value
            model: type[Stored] = getattr(registry.get(tag), kind)
            return model.model_validate(value)
        return handler(value)

    return WrapValidator(validate)


def _own_dump(value: Any, handler: SerializerFunctionWrapHandler, info: SerializationInfo) -> Any:
    """An installed protocol's model is written by itself (the built-ins' union knows it not)."""
    if isinstance(value, OwnState | OwnResult):
        return value.model_dump(mode=info.mode, exclude_unset=info.exclude_unset)
    return handler(value)


AnyState = DiscoBenchState | InteractCompState | CTSState | OwnState
ProtocolState = Annotated[
    Annotated[
        Annotated[DiscoBenchState, Tag("discobench")]
        | Annotated[InteractCompState, Tag("interactcomp")]
        | Annotated[CTSState, Tag("cts")],
        Discriminator(_state_protocol),
    ],
    _own_model("state"),
    WrapSerializer(_own_dump),
]


class EpisodeState(Stored):
    """`Step.state`: the episode's counters and the protocol's state after the step."""

    rounds_used: int = 0
    max_rounds: int = 0
    invalid_streak: int = 0
    done: bool = False
    protocol: ProtocolState | None = None


# ---- results: what a finished session holds (Session.result) ------------------------------


class _Kept(Stored):
    """Keys written beside the engine's result, after it (as they always were)."""

    active_ms: float | None = None  # the TUI's task clock for a human agent (tui/driver.py)
    informed: bool | None = None  # replayed by a person who had seen the answer (TUI replay)
    harness: dict[str, Any] | None = None  # imported harness runs: the harness's own score
    stored_restore_score: float | None = None  # imported CTS candidates: the score they came with


class CheckpointResult(CheckpointState):
    """A DiscoBench checkpoint as the result reports it (its state plus its outcome)."""

    outcome: CheckpointOutcome = "failed"
    reached: bool = Field(default=False, description="false: an earlier checkpoint failed")
    advanced: bool = Field(default=False, description="passed: the agent moved past it")


class _DiscoBenchFields(Stored):
    protocol: Literal["discobench"] = Field(default="discobench", exclude=True)
    answer: str | None = None
    correct: bool | None = None
    prompting: str | None = None
    ablation: str | None = None
    checkpoint_mode: Literal["answer", "strict", "trajectory"] | None = Field(
        default=None,
        description="how checkpoints were settled (docs/paper-readings.md D1, D7); null: rows before it, read as"
        " trajectory",
    )
    checkpoints: list[CheckpointResult] = Field(default_factory=list)
    ask_turns: int = 0
    tool_turns: int = 0
    unreadable_verdicts: int = Field(
        default=0, description="grader replies that stated no verdict, read as wrong as the paper does"
    )
    invalid_skip: bool | None = Field(
        default=None,
        description="the agent's own invalid outputs (3 in a row) ended the task: scored as not done, never excluded",
    )


class DiscoBenchResult(_Kept, _DiscoBenchFields):
    """DiscoBench (paper 000): the final answer's verdict and each checkpoint's outcome."""


class _InteractCompFields(InteractCompState):
    """The final state, then what the engine counted over the steps and the settings."""

    rounds: int = Field(
        default=0, description="rounds that used the budget: not invalid outputs, refusals or a failed call"
    )
    answers: int = 0
    invalid: int = Field(default=0, description="invalid and refused outputs, retried inside their round")
    refused: int = Field(default=0, description="forced_ask early answers")
    mode: str | None = None
    max_rounds: int | None = None
    actions: str | None = None
    compat: str | None = None
    unreadable_verdicts: int = Field(
        default=0, description="grader replies that stated no verdict, read as wrong as the paper does"
    )


class InteractCompResult(_Kept, _InteractCompFields):
    """InteractComp (paper 003): the graded answer, its confidence and the rounds used."""


class _CTSFields(Stored):
    protocol: Literal["cts"] = Field(default="cts", exclude=True)
    orig: bool = Field(default=False, description="no clarification: deep search on the blurred query")
    questions: list[str] = Field(default_factory=list)
    answers: list[str] = Field(default_factory=list, description='the user\'s replies; non-answers stored as "unknown"')
    aspects: list[str] = Field(default_factory=list, description="the first aspect of each question")
    aspect_sets: list[list[str]] = Field(default_factory=list, description="every aspect of each question")
    rewritten: str | None = None
    answer: str | None = None
    coverage: list[NuggetCoverage] = Field(default_factory=list)
    restore_score: float | None = Field(default=None, description="restore_score_100: 0-100, full precision")
    k: int | None = Field(default=None, description="clarification questions asked for; 0 = orig")
    deep_search: str | None = Field(
        default=None, description="the deep-search spec; null: rows before it (the session's agent ran deep search)"
    )
    deep_search_fixed: bool | None = None
    invalid_skip: bool | None = Field(
        default=None,
        description="the agent's own invalid outputs (3 in a row) ended the task: scored as not done, never excluded",
    )
    # Not written by the engine: a CTS answer is scored by nugget coverage. Only an `answer`
    # judgment laid over the result sets it (metrics/records.py); no CTS metric reads it.
    correct: bool | None = None


class CTSResult(_Kept, _CTSFields):
    """Clarify-Then-Search (paper 001): the clarification, the rewrite and nugget coverage."""


class OwnResult(_Kept):
    """An installed protocol's result (its spec's `result` subclasses it): an answer and its
    verdict, as the generic metrics and tables read them, and whatever else it adds."""

    protocol: str = Field(default="", exclude=True)
    answer: str | None = None
    correct: bool | None = None
    invalid_skip: bool | None = None


AnyResult = DiscoBenchResult | InteractCompResult | CTSResult | OwnResult
if TYPE_CHECKING:
    SessionResult = AnyResult
else:  # the built-ins by their tag; an installed protocol's by its spec (_own_model)
    SessionResult = Annotated[
        Annotated[DiscoBenchResult | InteractCompResult | CTSResult, Field(discriminator="protocol")],
        _own_model("result"),
        WrapSerializer(_own_dump),
    ]
RESULT_MODELS: dict[str, type[AnyResult]] = {
    "discobench": DiscoBenchResult,
    "interactcomp": InteractCompResult,
    "cts": CTSResult,
}


STATE_MODELS: dict[str, type[AnyState]] = {
    "discobench": DiscoBenchState,
    "interactcomp": InteractCompState,
    "cts": CTSState,
}


def result_model(protocol: str) -> type[AnyResult]:
    """The result model of a protocol, built-in or installed (KeyError: no such protocol)."""
    return RESULT_MODELS.get(str(protocol)) or registry.get(str(protocol)).result


def state_model(protocol: str) -> type[AnyState]:
    """The state model of a protocol, built-in or installed (KeyError: no such protocol)."""
    return STATE_MODELS.get(str(protocol)) or registry.get(str(protocol)).state


def parse_result(protocol: str, data: dict[str, Any] | None) -> AnyResult:
    """A stored result (a JSON object; `{}` or None: not finished) as its protocol's model."""
    return result_model(protocol).model_validate(
        {**(data or {}), **({} if registry.is_builtin(str(protocol)) else {"protocol": str(protocol)})}
    )
