"""Offline user simulators for the three protocols.

Limits (documented because these are proxies for the papers' LLM simulators):
- InteractComp: "yes" when the ask names the answer or an alias; "no" when it asks
  whether the answer is some other name ("Is it Apollo 11?"); else what the context says,
  read with its negations (users/context_facts.py: "Was he the mission commander?"
  against "He was not the mission commander." is "no"); else "no" when it names a known
  distractor or is an identity question ("Is it X?") about something else; else "i don't
  know". It never answers "no" to an attribute the context does not speak to.
- DiscoBench: releases the current checkpoint's clue only when the engine judged the ask
  right; otherwise says it has nothing to add.
- CTS answerer: classifies every aspect the question asks about; with curated intent
  slots it answers the slots of those aspects, else "unknown". A question of no known
  aspect ("Which competition's final do you mean?") is read against the slots: a slot
  whose value it names as an option ("the main span or the total?") or whose value holds
  its noun ("Which images ...?" -> "first full-color images"), else, for a which/what
  question asking what the user means, the entity ("2014 FIFA World Cup"). Without slots (the
  released data) it answers from what the fused query states that the blurred one lacks
  (users/fused.py, paper 001 line 121), else "unknown".
- CTS rewriter: appends the known answers to the blurred query, dropping "unknown" ones,
  so only elicited information enters the rewrite.
"""

from __future__ import annotations

import re

from clarify_tui.models import Checkpoint, Task
from clarify_tui.protocols.cts.aspects import classify_aspects
from clarify_tui.protocols.roles import ReplyForm
from clarify_tui.text import content_words, mentions
from clarify_tui.users.base import IDK, NO, YES, UserReply
from clarify_tui.users.context_facts import context_reply
from clarify_tui.users.fused import answer_from_fused

NOTHING_TO_ADD = "I can't add anything beyond what the question says."
NOTHING_TO_ADD_ZH = "除了问题里说的，我没有更多信息了。"
_IDENTITY = re.compile(
    r"^\s*(is it|is this|is the answer|are you (thinking of|asking about)|do you mean)\s+(?P<x>.+?)\s*\??\s*$",
    re.IGNORECASE,
)
_IDENTITY_ZH = re.compile(r"^\s*(是不是|是)(?P<x>.+?)(吗|嗎)?[？?]?\s*$")


_WHICH = re.compile(r"^\s*(which|what)\b", re.IGNORECASE)
_MEANT = re.compile(
    r"\b(do you mean|are you (asking|thinking) about|are you referring to|did you mean)\b", re.IGNORECASE
)


def _other_aspects(question: str, slots: dict[str, str]) -> list[str]:
    """The aspects a question of no recognised aspect asks about, read against the slots
    (see the module docstring); ["other"] when nothing fits, which answers "unknown"."""
    named = [a for a, v in slots.items() if v and mentions(question, v)]
    if named:
        return named
    words = set(content_words(question)) - {"mean", "asking", "thinking", "referring"}
    held = [a for a, v in slots.items() if v and words & set(content_words(v))]
    if held:
        return held
    if _WHICH.match(question) or _MEANT.search(question):
        return ["entity"]
    return ["other"]


_ARTICLE = re.compile(r"^(the|a|an)\s+", re.IGNORECASE)


def _names_something_else(question: str) -> bool:
    """An identity question about a name ("Is it Apollo 11?", "是诸葛亮吗？"), not about an
    attribute ("Is it made by PepsiCo?", "Is it a comet?"): asked after the answer's own
    forms, so it names something that is not the answer."""
    if _IDENTITY_ZH.match(question):
        return True
    m = _IDENTITY.match(question)
    if m is None:
        return False
    x = _ARTICLE.sub("", m.group("x").strip())
    return bool(x) and (x[0].isupper() or x[0].isdigit())


class RuleUser:
    spec = "rule"

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        assert task.answer is not None and task.interactcomp is not None
        if any(mentions(question, form) for form in task.answer.forms()):
            return UserReply(text=YES)
        if _names_something_else(question):
            return UserReply(text=NO)  # "Is it Apollo 11?": the context mentions it, yet it is not the answer
        said = context_reply(question, task.interactcomp.context)
        if said is not None:
            return UserReply(text=YES if said else NO)
        if any(mentions(question, d) for d in task.interactcomp.distractors):
            return UserReply(text=NO)
        if _IDENTITY.match(question) or _IDENTITY_ZH.match(question):
            return UserReply(text=NO)
        return UserReply(text=IDK)

    async def reply_discobench(self, task: Task, checkpoint: Checkpoint, question: str, asked_right: bool) -> UserReply:
        if asked_right and checkpoint.type == "ambi" and checkpoint.clue:
            return UserReply(text=checkpoint.clue)
        return UserReply(text=NOTHING_TO_ADD_ZH if task.language == "zh" else NOTHING_TO_ADD)

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        assert task.cts is not None
        part, aspects = task.cts, classify_aspects(question)
        if aspects == ["other"]:
            aspects = _other_aspects(question, part.intent_slots or {})
        if not part.intent_slots:
            return UserReply(text=answer_from_fused(aspects, part.blurred_query, part.fused_query))
        values = [part.intent_slots[a] for a in aspects if part.intent_slots.get(a)]
        return UserReply(text=", ".join(values) if values else "unknown")

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        known = [a for _, a in qa_pairs if a.strip().casefold() != "unknown"]
        return UserReply(text=" ".join([blurred_query, *known]).strip())

    async def reply(self, task: Task, question: str, form: ReplyForm) -> UserReply:
        """A protocol it was not written for: it knows no rule to read its task by, so it
        says so (`form.otherwise`); such a protocol brings its own rule user (riddle does)."""
        return UserReply(text=form.otherwise)
