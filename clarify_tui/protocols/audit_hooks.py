"""What a protocol tells the simulator audit (docs/audit.md): where its asks are, what its
user simulator sees at an ask, its reply classes, how to ask another simulator the same
thing, and what a fork's user says in place of the simulator.

A protocol offers these through `ProtocolSpec.audit` (None: the audit says it cannot audit
that protocol). Its own folder implements them (`protocols/<name>/audit.py`); this module
only names the shapes, so the audit package and the folders agree without reaching each
other. It imports nothing of the program: the folders hand in their own task and steps.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

CHOICE, TEXT = "choice", "text"


@dataclass(frozen=True)
class AuditAsk:
    """One ask of a session and the simulator's side of it.

    `payload_parts()` is what an auditor is shown; `simulator_reply`/`simulator_class` are
    what the run's simulator said (never shown); `call` is what the simulator was called with
    besides the task and the question (DiscoBench: the checkpoint and whether the judge said
    the ask targeted it; CTS: the answers given before it in the same clarify step)."""

    ask_step: int  # the agent step that asked (a fork restores the steps before it)
    reply_step: int  # the user step that replied: the audit item's step
    ask: str  # the question exactly as the simulator got it
    before: list[dict[str, str]]  # [{"ask", "reply"}]: the session's earlier exchanges
    user_sees: list[dict[str, str]]  # [{"label", "text"}]: what the protocol lets the simulator see
    reply: dict[str, Any]  # {"type": "choice", "choices": [...]} or {"type": "text"}
    simulator_reply: str
    simulator_class: str | None
    call: dict[str, Any] = field(default_factory=dict)

    def payload_parts(self) -> dict[str, Any]:
        return {"ask": self.ask, "before": self.before, "user_sees": self.user_sees, "reply": self.reply}


class ProtocolAudit(Protocol):
    """A protocol's audit hooks (the three built-in folders' `audit.py`)."""

    def asks(self, task: Any, steps: Sequence[Any]) -> list[AuditAsk]:
        """Every ask the agent made in a session whose simulator replied, in step order."""
        ...

    def reply_class(self, reply: str, task: Any, ask: AuditAsk) -> str | None:
        """The class of a reply to `ask` (one of its choices), None for free text."""
        ...

    async def ask_user(self, user: Any, task: Any, ask: AuditAsk, config: Any) -> dict[str, Any]:
        """Ask a user simulator blind, with exactly the state the run's simulator had (and its
        reply read as the session's `config` read the simulator's): the answer {"reply",
        "class"} (store/work.py's contract)."""
        ...

    def fork_replies(self, ask: AuditAsk, answer: dict[str, Any]) -> tuple[str, list[Any]]:
        """A fork's user: the user method to script and the replies it gives first, in order
        (the auditor's answer in place of the simulator's; later calls go to the run's user)."""
        ...


def ask_reply_pairs(steps: Sequence[Any]) -> list[tuple[Any, Any]]:
    """(agent ask step, the user step that replied to it) in order, for a protocol whose agent
    asks one question a step (InteractComp, DiscoBench; a judge step may come between)."""
    pairs, open_ask = [], None
    for step in steps:
        if step.actor == "agent":
            open_ask = step if step.action.kind.value == "ask" and not step.error else None
        elif step.actor == "user" and step.action.kind.value == "reply" and open_ask is not None:
            pairs.append((open_ask, step))
            open_ask = None
    return pairs


def earlier(pairs: Sequence[tuple[Any, Any]], upto: int) -> list[dict[str, str]]:
    """The exchanges before the ask at step `upto`, as the session recorded them."""
    return [{"ask": a.action.text or "", "reply": r.action.text or ""} for a, r in pairs if a.index < upto]


def normal(text: str) -> str:
    return " ".join((text or "").strip().strip(".!。").casefold().replace("’", "'").split())
