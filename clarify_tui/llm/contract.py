"""Replies held to their contract: read strictly, retried with feedback, never guessed.

Why: a simulator or judge model sometimes answers outside what its prompt asks for —
"Sorry, I can't help with that request." was stored as a DiscoBench reply (clue marked
released), as a CTS answer and as a rewritten query that was then searched and scored.
Every model call whose reply becomes data goes through `complete_within_contract`: the
reply is read by a function that raises `OffContract` saying what is wrong; the model is
shown its reply and that message, up to `retries` more times (CTS 4.4.1: "robust JSON
parsing with retries"); then BackendError naming the last reply, so the session is
errored (an infrastructure failure, excluded and counted), never scored on garbage.
Each retry is counted in the call's Usage, so it shows on the step and in the summary.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TypeVar

from clarify_tui.errors import BackendError
from clarify_tui.llm.client import ChatClient
from clarify_tui.models import Usage

T = TypeVar("T")


class OffContract(ValueError):
    """The reply does not have the required form; the message says how."""


# Assistant-style refusals: a simulated user or a judge never says these about its task.
# Kept narrow on purpose: "Sorry, I can't tell you more than my question" is a valid
# DiscoBench reply when no clue is given, so only refusals of the *request* match.
_NOT = r"(?:can(?:no|['’])?t|cannot|won['’]?t|will not|unable to|not able to)"
_REFUSAL = re.compile(
    rf"\b{_NOT}\s+(?:help|assist)(?:\s+you)?\s+with\s+(?:that|this|your)\b"
    rf"|\b{_NOT}\s+comply\b"
    rf"|\b{_NOT}\b[^.!?\n]*\b(?:that|this)\s+request\b"
    r"|\bas an ai\b|\bas a language model\b"
    r"|(?:抱歉|对不起|很抱歉)[，,]?\s*我(?:无法|不能)(?:协助|帮助|帮忙|提供|完成)"
    r"|我(?:无法|不能)(?:协助|帮助|帮忙)(?:你|您)?(?:完成|处理)?(?:这个|该)?(?:请求|要求)",
    re.IGNORECASE,
)


def is_refusal(text: str) -> bool:
    return bool(_REFUSAL.search(text))


def refuse_refusals(text: str, what: str) -> str:
    """`text` unless it is empty or a refusal of the task (then OffContract)."""
    if not text.strip():
        raise OffContract(f"the reply is empty; give {what}")
    if is_refusal(text):
        raise OffContract(f"that is a refusal, not {what}; you are role-playing, so give {what}")
    return text


async def complete_within_contract(
    client: ChatClient,
    prompt: str,
    purpose: str,
    read: Callable[[str], T],
    retries: int,
    who: str,
    failure: str = "reply outside its contract",
) -> tuple[T, Usage, str]:
    """(read value, usage of every attempt, the accepted reply's raw text)."""
    messages = [{"role": "user", "content": prompt}]
    usage = Usage()
    problem, text = "", ""
    for attempt in range(retries + 1):
        done = await client.complete(messages, purpose)
        usage = usage + done.usage
        text = done.text
        try:
            return read(text), usage, text
        except OffContract as exc:
            problem = str(exc)
            if attempt < retries:
                usage = usage + Usage(retries=1, retry_cause=f"{failure}: {text[:80]!r}")
            messages = messages[:1] + [
                {"role": "assistant", "content": text},
                {"role": "user", "content": f"Your reply could not be read: {problem}. Output only that."},
            ]
    raise BackendError(
        f"{who} model {client.model} ({purpose}): {failure} after {retries + 1} attempts "
        f"({problem}); last reply: {text[:300]!r}"
    )
