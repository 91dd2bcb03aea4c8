"""Offline user simulators for the three protocols.

Limits (documented because these are proxies for the papers' LLM simulators):
- InteractComp: "yes" when the ask names the answer or an alias; "no" when it names a
  known distractor or is an identity question ("Is it X?") about something else;
  otherwise "yes" when one context sentence holds >= 60% of the ask's content words,
  else "i don't know". It never answers "no" to an attribute it cannot check.
- DiscoBench: releases the current checkpoint's clue only when the engine judged the ask
  right; otherwise says it has nothing to add.
- CTS answerer: classifies every aspect the question asks about; with curated intent
  slots it answers the slots of those aspects, else "unknown". Without slots (the
  released data) it answers from what the fused query states that the blurred one lacks
  (users/fused.py, paper 001 line 121), else "unknown".
- CTS rewriter: appends the known answers to the blurred query, dropping "unknown" ones,
  so only elicited information enters the rewrite.
"""

from __future__ import annotations

import re

from clarify_tui.aspects import classify_aspects
from clarify_tui.models import Checkpoint, Task
from clarify_tui.text import content_words, mentions, overlap
from clarify_tui.users.fused import answer_from_fused
from clarify_tui.users.base import IDK, NO, YES, UserReply

NOTHING_TO_ADD = "I can't add anything beyond what the question says."
NOTHING_TO_ADD_ZH = "除了问题里说的，我没有更多信息了。"
CONTEXT_MATCH = 0.6
_IDENTITY = re.compile(
    r"^\s*(is it|is this|is the answer|are you (thinking of|asking about)|do you mean)\s+(?P<x>.+?)\s*\??\s*$",
    re.IGNORECASE,
)
_IDENTITY_ZH = re.compile(r"^\s*(是不是|是)(?P<x>.+?)(吗|嗎)?[？?]?\s*$")


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?。！？；;])\s*", text) if s.strip()]


class RuleUser:
    spec = "rule"

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        assert task.answer is not None and task.interactcomp is not None
        if any(mentions(question, form) for form in task.answer.forms()):
            return UserReply(text=YES)
        if any(mentions(question, d) for d in task.interactcomp.distractors):
            return UserReply(text=NO)
        if _IDENTITY.match(question) or _IDENTITY_ZH.match(question):
            return UserReply(text=NO)
        words = content_words(question)
        if words and any(overlap(words, s) >= CONTEXT_MATCH for s in _sentences(task.interactcomp.context)):
            return UserReply(text=YES)
        return UserReply(text=IDK)

    async def reply_discobench(
        self, task: Task, checkpoint: Checkpoint, question: str, asked_right: bool
    ) -> UserReply:
        if asked_right and checkpoint.type == "ambi" and checkpoint.clue:
            return UserReply(text=checkpoint.clue)
        return UserReply(text=NOTHING_TO_ADD_ZH if task.language == "zh" else NOTHING_TO_ADD)

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        assert task.cts is not None
        part, aspects = task.cts, classify_aspects(question)
        if not part.intent_slots:
            return UserReply(text=answer_from_fused(aspects, part.blurred_query, part.fused_query))
        values = [part.intent_slots[a] for a in aspects if part.intent_slots.get(a)]
        return UserReply(text=", ".join(values) if values else "unknown")

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        known = [a for _, a in qa_pairs if a.strip().casefold() != "unknown"]
        return UserReply(text=" ".join([blurred_query, *known]).strip())
