"""What agents, users and the task model ask of a protocol: a spec's low tier.

`ProtocolSpec` (base.py) sits above the engine and the metrics, so the roles below them
cannot read it. They read this instead: `ProtocolRoles`, the spec's `roles` field, which
a built-in protocol keeps in its low tier (`protocols/<name>/roles.py`, loaded by name:
`registry.roles(name)`) and an installed one passes to its `ProtocolSpec` (the
registry reads it from there). A protocol that brings nothing gets the generic play:
the scripted agents' per-hop play, the LLM agent's ReAct prompts, an answer required,
the user's generic reply (`ReplyForm`) and tasks in our Task format only (no `Release`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, TypeAlias

from clarify_tui.protocols.release import Release

if TYPE_CHECKING:
    from clarify_tui.agent_view import AgentView
    from clarify_tui.models import Action, Task

# The scripted agents' built-in plays (agents/scripted.py): "hops" searches, asks and
# answers hop by hop (DiscoBench's, and any protocol's that names none), "is_it" asks
# "Is it X?" down the candidates (InteractComp), "clarify_first" asks its k questions in
# one clarify step, then searches (CTS). A protocol may bring its own: a function of
# the policy's name ("ask-first", ...) and the view, returning the move.
ScriptedPlay: TypeAlias = Literal["hops", "is_it", "clarify_first"] | Callable[[str, "AgentView"], "Action"]

GENERIC_USER_PROMPT = """You are the person who asked the question below, and you know more than you said.
An assistant searching for the answer asks you something to clear it up. Reply as that person,
briefly, using only what you know below; never name the answer itself unless you are shown it.

QUESTION
{question}

WHAT YOU KNOW
{known}

THE ASSISTANT ASKS
{ask}

{how}"""


@dataclass(frozen=True)
class LLMPlay:
    """A protocol's own prompting for the LLM agent (InteractComp: its reference harness's
    prompts and parsing): the (system, user) messages for a view, and how a reply is read."""

    prompts: Callable[[AgentView], tuple[str, str]]
    read: Callable[[str, AgentView], Action]


@dataclass(frozen=True)
class ReplyForm:
    """How a user answers an agent's ask in a protocol with no user method of its own
    (`UserSimulator.reply`): the model user's prompt and the human user's reply box read it.

    `choices` are the only replies accepted (empty: free text); `shows` the keys of the
    task's own part the user is shown (None: all of it; the built-ins' parts by their
    field names); `shows_answer` whether the user sees the gold answer; `otherwise` the
    reply that means "not in what I know" (and a model's unreadable choice)."""

    choices: tuple[str, ...] = ()
    shows: tuple[str, ...] | None = None
    shows_answer: bool = False
    otherwise: str = "i don't know"
    prompt: str = GENERIC_USER_PROMPT

    def known(self, task: Task) -> str:
        """What the user is shown of the hidden task, one `key: value` line each."""
        part = task.own_part if task.own is not None else _builtin_part(task)
        lines = [f"{key}: {value}" for key, value in part.items() if self.shows is None or key in self.shows]
        if self.shows_answer and task.answer is not None:
            lines.insert(0, f"answer: {task.answer.text}")
        return "\n".join(lines) or "(nothing more)"

    def how(self) -> str:
        """The last line of the model user's prompt: what form the reply takes."""
        if self.choices:
            return "Reply with exactly one of: " + ", ".join(self.choices) + ". Nothing else."
        return f"Reply in one or two sentences. If what you know does not say, reply exactly: {self.otherwise}"

    def read_choice(self, text: str) -> str:
        """A reply held to the choices: the first choice it starts with, else `otherwise`."""
        said = text.strip().strip("\"'`*.!。").casefold()
        for choice in sorted(self.choices, key=len, reverse=True):  # "i don't know" before "i"
            if said.startswith(choice.casefold()):
                return choice
        return self.otherwise


def _builtin_part(task: Task) -> dict[str, object]:
    part = getattr(task, task.protocol.value, None)
    return part.model_dump(mode="json") if part is not None else {}


@dataclass(frozen=True)
class ProtocolRoles:
    """A protocol as agents, users and the task model see it (protocols/README.md)."""

    scripted: ScriptedPlay = "hops"  # the scripted agents' play (above)
    llm: LLMPlay | None = None  # None: the LLM agent's ReAct prompts (llm/prompts, `<name>_neutral.txt` if any)
    answer_required: bool = True  # a task needs one gold answer (CTS: no, it is graded by nuggets)
    reply: ReplyForm = field(default_factory=ReplyForm)  # how a user answers an ask (UserSimulator.reply)
    release: Release | None = None  # its published release's reader (None: only our Task records)


GENERIC = ProtocolRoles()
