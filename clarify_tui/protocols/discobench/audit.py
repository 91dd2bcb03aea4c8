"""DiscoBench's side of the simulator audit (protocols/audit_hooks.py, docs/audit.md).

At an ask its user knows the current checkpoint (its target and, on an ambiguous one, the
clue) and one rule: the clue is released only when the ask targets that checkpoint's
ambiguity (the judge says so), else the reply adds nothing. The reply classes are whether
the clue was released: the state records it on the user's step (`released_clue`), the user's
own account first, the judge's otherwise (rules.py `_ask`). Another simulator is called with
the same checkpoint and the same judgement; a person says it by the button they press."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from clarify_tui.protocols.audit_hooks import CHOICE, AuditAsk, ask_reply_pairs, earlier
from clarify_tui.text import mentions
from clarify_tui.users.base import UserReply

RELEASED, NO_CLUE = "clue released", "no clue"
# the rule user's "nothing to add" (users/rule.py; importing it would reach CTS's aspects)
NOTHING_TO_ADD = "I can't add anything beyond what the question says."
NOTHING_TO_ADD_ZH = "除了问题里说的，我没有更多信息了。"
CHOICES = [RELEASED, NO_CLUE]
RULE = (
    "Give the clue only if the question asks about this checkpoint's ambiguity (what the clue "
    "settles); otherwise add nothing beyond what the question says."
)


def _checkpoint(task: Any, steps: Sequence[Any], ask_step: int, reply_step: int) -> tuple[int, bool, bool]:
    """(checkpoint index, asked_right, current): from the ask's judge step; after the last
    checkpoint the user is shown the last one and never releases."""
    checkpoints = task.discobench.checkpoints if task.discobench is not None else []
    for s in steps:
        if ask_step < s.index < reply_step and s.actor == "judge" and "asked_right" in s.observation.data:
            return int(s.observation.data.get("checkpoint", 0)), bool(s.observation.data["asked_right"]), True
    return max(0, len(checkpoints) - 1), False, False


class DiscoBenchAudit:
    def asks(self, task: Any, steps: Sequence[Any]) -> list[AuditAsk]:
        pairs = ask_reply_pairs(steps)
        checkpoints = task.discobench.checkpoints if task.discobench is not None else []
        out = []
        for a, r in pairs:
            index, right, current = _checkpoint(task, steps, a.index, r.index)
            cp = checkpoints[index] if index < len(checkpoints) else None
            sees = [{"label": "checkpoint target", "text": cp.target if cp else ""}]
            if cp is not None and cp.type == "ambi" and cp.clue and current:
                sees += [{"label": "clue", "text": cp.clue}, {"label": "clue rule", "text": RULE}]
            else:
                sees.append({"label": "clue rule", "text": "No clue to give at this point: add nothing."})
            released = bool(r.observation.data.get("released_clue"))
            out.append(
                AuditAsk(
                    ask_step=a.index,
                    reply_step=r.index,
                    ask=a.action.text or "",
                    before=earlier(pairs, a.index),
                    user_sees=sees,
                    reply={"type": CHOICE, "choices": list(CHOICES)},
                    simulator_reply=r.action.text or "",
                    simulator_class=RELEASED if released else NO_CLUE,
                    call={
                        "checkpoint": index,
                        "asked_right": right,
                        "current": current,
                        "clue": cp.clue if cp is not None and cp.type == "ambi" and current else None,
                        "nothing": NOTHING_TO_ADD_ZH if task.language == "zh" else NOTHING_TO_ADD,
                    },
                )
            )
        return out

    def reply_class(self, reply: str, task: Any, ask: AuditAsk) -> str | None:
        """Free text: released when it carries the clue (as a person's reply is read)."""
        clue = ask.call.get("clue")
        return RELEASED if clue and mentions(reply, clue) else NO_CLUE

    async def ask_user(self, user: Any, task: Any, ask: AuditAsk, config: Any) -> dict[str, Any]:
        cp = task.discobench.checkpoints[ask.call["checkpoint"]]
        right = bool(ask.call.get("asked_right"))
        reply = await user.reply_discobench(task, cp, ask.ask, right)
        released = ask.call.get("current") and (right if reply.released_clue is None else reply.released_clue)
        return {"reply": reply.text, "class": RELEASED if released else NO_CLUE}

    def fork_replies(self, ask: AuditAsk, answer: dict[str, Any]) -> tuple[str, list[Any]]:
        """A reply that is only the class (a person's button) becomes what that user would say:
        the clue, or nothing new. Where there was no clue to give, nothing is released."""
        released = answer.get("class") == RELEASED and bool(ask.call.get("clue"))
        text = (answer.get("reply") or "").strip()
        if text.casefold() in ("", RELEASED, NO_CLUE):
            nothing = ask.call.get("nothing") or NOTHING_TO_ADD  # what the rule user says
            text = ask.call["clue"] if released else nothing
        return "reply_discobench", [UserReply(text=text, released_clue=released)]


AUDIT = DiscoBenchAudit()
