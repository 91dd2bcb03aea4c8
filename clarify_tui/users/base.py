"""What a user simulator is. Users may read the hidden task: that is their job."""

from __future__ import annotations

from typing import Protocol as TypingProtocol

from pydantic import BaseModel

from clarify_tui.models import Checkpoint, Task, Usage
from clarify_tui.protocols.roles import ReplyForm

YES, NO, IDK = "yes", "no", "i don't know"  # the only replies InteractComp's user gives


class UserReply(BaseModel):
    text: str
    usage: Usage | None = None
    raw: str | None = None  # a model simulator's own words, before they were read
    fault: str | None = None  # `--compat reference`: the failed call this reply stands in for
    # DiscoBench: whether this reply gave the agent the checkpoint's clue. None: the engine
    # takes it from the judge (the ask targeted the ambiguity, so the simulator released
    # it); a person says it by what they send (users/human.py).
    released_clue: bool | None = None


class UserSimulator(TypingProtocol):
    spec: str

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        """Exactly 'yes', 'no' or "i don't know"."""
        ...

    async def reply_discobench(self, task: Task, checkpoint: Checkpoint, question: str, asked_right: bool) -> UserReply:
        """The checkpoint's clue when `asked_right` on an ambi checkpoint, else no new information."""
        ...

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        """CTS user answerer: a short answer found in the intent query, else 'unknown'."""
        ...

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        """CTS rewriter: sees only the blurred query and the Q&A pairs."""
        ...

    async def reply(self, task: Task, question: str, form: ReplyForm) -> UserReply:
        """A protocol with no method above (an installed one): a reply in `form`, its
        roles' (one of `form.choices` when it has any), from what `form.known(task)` shows."""
        ...
