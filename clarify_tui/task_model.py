"""A benchmark task as data: what the agent is given and what stays behind the barrier.

Its own module because a task is what the loaders, the protocols' rules and the hidden-
string checks read, apart from what happens when one is played (models.py: actions,
steps, sessions). `Task.question` is the only text an agent is given; everything listed
by `Task.hidden_strings()` (the answer, checkpoints and clues, InteractComp's context,
CTS's intent query and nuggets, an installed protocol's whole part) must stay hidden.
Every name here is importable from clarify_tui.models too, where its callers find it.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    PrivateAttr,
    field_validator,
    model_validator,
)

from clarify_tui.protocols import registry


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

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: Any, handler: GetJsonSchemaHandler) -> dict[str, Any]:
        """Published as a name, the built-ins as examples: an installed protocol's sessions,
        views and tasks validate against the schemas too (docs/protocols.md)."""
        schema = handler.resolve_ref_schema(handler(core_schema))
        schema.pop("enum", None)
        schema["pattern"] = "^[a-z][a-z0-9_]*$"  # registry._NAME: a built-in's or an installed one's
        schema["examples"] = list(registry.BUILTIN)
        return schema


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


def _installed_part_allowed(schema: dict[str, Any]) -> None:
    schema["additionalProperties"] = {
        "type": "object",
        "description": "an installed protocol's part, under its name (the task's `protocol`)",
    }


class Task(BaseModel):
    """A benchmark task. `question` is what the agent sees; the protocol part is hidden."""

    # extra="forbid", but for an object: an installed protocol's part under its name
    # (`"riddle": {...}`) is a key the schema cannot list (_own_part_by_name reads it)
    model_config = ConfigDict(extra="forbid", json_schema_extra=_installed_part_allowed)
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
        if self.answer is None and registry.roles(self.protocol.value).answer_required:
            raise ValueError(f"a {self.protocol.value} task needs an answer")
        return self

    # A loaded task always has its protocol's part (and an answer where its roles require one: see the
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
