"""Clarify-Then-Search's side of the simulator audit (protocols/audit_hooks.py, docs/audit.md).

Its user answerer (paper Prompt B) sees the intent query (the fused query) and one
clarifying question and answers in a few words, or "unknown": free text, no reply classes.
An auditor's answer is compared with the simulator's through the run's judge (audit/compare.py).
Each question of the clarify step is one ask; a fork replays the answers given before it in
that step, then the auditor's, then the run's own user answers the rest and rewrites."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clarify_tui.protocols.audit_hooks import TEXT, AuditAsk
from clarify_tui.users.base import UserReply


class CTSAudit:
    def asks(self, task: Any, steps: Sequence[Any]) -> list[AuditAsk]:
        intent = task.cts.fused_query if task.cts is not None else ""
        out: list[AuditAsk] = []
        clarify = None
        answered: list[dict[str, str]] = []
        for step in steps:
            if step.actor == "agent":
                clarify = step if step.action.kind.value == "clarify" and not step.error else None
                answered = []
            elif step.actor == "user" and step.action.kind.value == "reply" and clarify is not None:
                question, reply = step.action.text or "", step.observation.text or ""
                out.append(
                    AuditAsk(
                        ask_step=clarify.index,
                        reply_step=step.index,
                        ask=question,
                        before=list(answered),
                        user_sees=[{"label": "intent query", "text": intent}],
                        reply={"type": TEXT},
                        simulator_reply=reply,
                        simulator_class=None,
                        call={"earlier": [a["reply"] for a in answered]},
                    )
                )
                answered.append({"ask": question, "reply": reply})
        return out

    def reply_class(self, reply: str, task: Any, ask: AuditAsk) -> str | None:
        return None

    async def ask_user(self, user: Any, task: Any, ask: AuditAsk, config: Any) -> dict[str, Any]:
        reply = await user.answer_clarification(task, ask.ask)
        return {"reply": reply.text, "class": None}

    def fork_replies(self, ask: AuditAsk, answer: dict[str, Any]) -> tuple[str, list[Any]]:
        earlier = [UserReply(text=t) for t in ask.call.get("earlier", [])]
        return "answer_clarification", [*earlier, UserReply(text=answer.get("reply") or "unknown")]


AUDIT = CTSAudit()
