"""A person playing the user: each reply waits until the UI submits it.

`pending` describes what is being asked (protocol, question, allowed replies) so the UI
can show the right reply box. InteractComp replies are checked here: only yes, no and
"i don't know" are accepted, whatever the UI sends; so are another protocol's choices.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from pydantic import BaseModel

from clarify_tui.errors import UsageError
from clarify_tui.models import Checkpoint, Task, Usage
from clarify_tui.protocols.roles import ReplyForm
from clarify_tui.text import mentions
from clarify_tui.users.base import IDK, NO, YES, UserReply

INTERACTCOMP_REPLIES = (YES, NO, IDK)


class ReplyRequest(BaseModel):
    # the reply asked for: "yes_no" (yes, no or I don't know, nothing else: InteractComp),
    # "clue" (a reply that may release the checkpoint's clue: DiscoBench), "clarification"
    # (a short answer from the intent, or unknown: CTS), "rewrite", "form" (any other
    # protocol's: one of `choices`, or free text when there are none; protocols/roles.py)
    kind: str
    question: str
    choices: list[str] = []
    known: str | None = None  # "form": what the user is shown of the hidden task
    clue: str | None = None
    asked_right: bool | None = None


class HumanUser:
    spec = "human"

    def __init__(self, on_request: Callable[[ReplyRequest], None] | None = None) -> None:
        self._replies: asyncio.Queue[str] = asyncio.Queue()
        self.on_request = on_request
        self.pending: ReplyRequest | None = None

    def submit(self, text: str) -> None:
        if self.pending and self.pending.kind == "yes_no" and text not in INTERACTCOMP_REPLIES:
            raise UsageError(f"InteractComp replies must be one of: {', '.join(INTERACTCOMP_REPLIES)}")
        if self.pending and self.pending.kind == "form" and self.pending.choices and text not in self.pending.choices:
            raise UsageError(f"the reply must be one of: {', '.join(self.pending.choices)}")
        self._replies.put_nowait(text)

    async def _wait(self, request: ReplyRequest) -> UserReply:
        self.pending = request
        if self.on_request:
            self.on_request(request)
        t0 = time.perf_counter()
        try:
            text = await self._replies.get()
        finally:
            self.pending = None
        return UserReply(text=text, usage=Usage(latency_ms=(time.perf_counter() - t0) * 1000))

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        return await self._wait(ReplyRequest(kind="yes_no", question=question, choices=list(INTERACTCOMP_REPLIES)))

    async def reply_discobench(self, task: Task, checkpoint: Checkpoint, question: str, asked_right: bool) -> UserReply:
        """The clue counts as released when the reply carries it (the release key sends it
        verbatim), whatever the judge said: the record says what the agent received."""
        reply = await self._wait(
            ReplyRequest(kind="clue", question=question, clue=checkpoint.clue, asked_right=asked_right)
        )
        reply.released_clue = bool(checkpoint.clue) and mentions(reply.text, checkpoint.clue or "")
        return reply

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        return await self._wait(ReplyRequest(kind="clarification", question=question, choices=["unknown"]))

    async def reply(self, task: Task, question: str, form: ReplyForm) -> UserReply:
        """Any other protocol's ask: its roles' form, and what the form shows of the task."""
        return await self._wait(
            ReplyRequest(kind="form", question=question, choices=list(form.choices), known=form.known(task))
        )

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        from clarify_tui.users.rule import RuleUser

        # Rewriting is mechanical under the closed-book rules; the rule rewriter does it.
        return await RuleUser().rewrite(blurred_query, qa_pairs)
