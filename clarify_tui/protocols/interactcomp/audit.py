"""InteractComp's side of the simulator audit (protocols/audit_hooks.py, docs/audit.md).

Its responder (paper A.3) sees the hidden context and the question and replies exactly
"yes", "no" or "i don't know": those are the reply classes. Another simulator is asked with
the same task and question; a reply in other words is read as the reference harness reads
it (`reference.responder_reading`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clarify_tui.protocols.audit_hooks import CHOICE, AuditAsk, ask_reply_pairs, earlier, normal
from clarify_tui.protocols.interactcomp.compat import reads_as_reference
from clarify_tui.protocols.interactcomp.reference import responder_reading
from clarify_tui.users.base import IDK, NO, YES, UserReply

CHOICES = [YES, NO, IDK]


def reading(reply: str) -> str:
    said = normal(reply)
    return said if said in CHOICES else responder_reading(reply)


class InteractCompAudit:
    def asks(self, task: Any, steps: Sequence[Any]) -> list[AuditAsk]:
        pairs = ask_reply_pairs(steps)
        context = task.interactcomp.context if task.interactcomp is not None else ""
        return [
            AuditAsk(
                ask_step=a.index,
                reply_step=r.index,
                ask=a.action.text or "",
                before=earlier(pairs, a.index),
                user_sees=[{"label": "context", "text": context}],
                reply={"type": CHOICE, "choices": list(CHOICES)},
                simulator_reply=r.action.text or "",
                simulator_class=reading(r.action.text or ""),
            )
            for a, r in pairs
        ]

    def reply_class(self, reply: str, task: Any, ask: AuditAsk) -> str | None:
        return reading(reply)

    async def ask_user(self, user: Any, task: Any, ask: AuditAsk, config: Any) -> dict[str, Any]:
        """A model's own words are read as the run read its simulator's (rules.py `_reply`)."""
        reply = await user.reply_interactcomp(task, ask.ask)
        text = reply.text
        if reply.raw is not None and reads_as_reference(getattr(config, "compat", None)):
            text = responder_reading(reply.raw)
        return {"reply": text, "class": reading(text)}

    def fork_replies(self, ask: AuditAsk, answer: dict[str, Any]) -> tuple[str, list[Any]]:
        return "reply_interactcomp", [UserReply(text=answer.get("class") or reading(answer.get("reply") or ""))]


AUDIT = InteractCompAudit()
