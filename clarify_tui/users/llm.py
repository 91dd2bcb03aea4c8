"""User simulators backed by an OpenAI-compatible model (`--user openai:MODEL`).

Each method puts into its prompt only what that simulator may use: the InteractComp
responder sees the context; the DiscoBench responder sees the clue only when the engine's
judge found the ask well targeted; the CTS answerer sees the intent query; the CTS
rewriter sees the blurred query and the Q&A pairs, never the intent; any other protocol's
user sees what its roles' reply form shows (protocols/roles.py `ReplyForm`).

Replies that become data (DiscoBench replies, CTS answers and rewrites) are held to their
contract (llm/contract.py): an empty reply or a refusal ("Sorry, I can't help with that
request.") is retried with feedback up to the role's `parse_retries`, then the session
errors naming the reply; it is never stored as the user's words.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from clarify_tui.llm.client import ChatClient
from clarify_tui.llm.contract import complete_within_contract, refuse_refusals
from clarify_tui.llm.parsing import strip_reasoning
from clarify_tui.llm.prompts import render, render_verbatim
from clarify_tui.llm.yesno import UNKNOWN, read_short_answer, read_yes_no
from clarify_tui.models import Checkpoint, Task
from clarify_tui.protocols.roles import ReplyForm
from clarify_tui.users.base import UserReply


class LLMUser:
    def __init__(self, client: ChatClient) -> None:
        self.client = client
        self.spec = f"openai:{client.model}"
        self.parse_retries = client.settings.parse_retries

    async def _ask(self, text: str, purpose: str):
        return await self.client.complete([{"role": "user", "content": text}], purpose)

    async def _reply(self, text: str, purpose: str, read: Callable[[str], str]) -> UserReply:
        value, usage, raw = await complete_within_contract(self.client, text, purpose, read, self.parse_retries, "user")
        return UserReply(text=value, usage=usage, raw=raw)

    async def aclose(self) -> None:
        await self.client.aclose()

    async def reply_interactcomp(self, task: Task, question: str) -> UserReply:
        """InteractComp A.3 responder; a reply committing to nothing counts as i don't know."""
        assert task.interactcomp is not None
        done = await self._ask(
            render_verbatim("interactcomp_responder", context=task.interactcomp.context, question=question),
            "interactcomp.responder",
        )
        return UserReply(text=read_yes_no(done.text) or UNKNOWN, usage=done.usage, raw=done.text)

    async def reply_discobench(self, task: Task, checkpoint: Checkpoint, question: str, asked_right: bool) -> UserReply:
        release = asked_right and checkpoint.type == "ambi" and bool(checkpoint.clue)
        clue_block = f"\nCLUE\n{checkpoint.clue}\n" if release else ""
        return await self._reply(
            render("discobench_responder", question=task.question, ask=question, clue_block=clue_block),
            "discobench.responder",
            lambda raw: refuse_refusals(strip_reasoning(raw), "the user's reply"),
        )

    async def answer_clarification(self, task: Task, question: str) -> UserReply:
        """CTS Prompt B: a short answer found in the intent query, else exactly 'unknown'."""
        assert task.cts is not None
        return await self._reply(
            render("cts_user_answerer", clear_query=task.cts.fused_query, clarification_question=question),
            "cts.answerer",
            read_answer,
        )

    async def rewrite(self, blurred_query: str, qa_pairs: list[tuple[str, str]]) -> UserReply:
        """CTS Prompt C: one rewritten query from the blurred query and the Q&A pairs only."""
        pairs = [{"clarification_question": q, "user_answer": a} for q, a in qa_pairs]
        return await self._reply(
            render("cts_rewriter", blurred_query=blurred_query, qa_pairs=json.dumps(pairs, ensure_ascii=False)),
            "cts.rewriter",
            read_rewrite,
        )

    async def reply(self, task: Task, question: str, form: ReplyForm) -> UserReply:
        """Any other protocol (an installed one): its roles' reply form's prompt, shown what
        the form shows; a reply held to its choices (else its `otherwise`), or free text
        that is no refusal."""
        text = form.prompt.format(question=task.question, known=form.known(task), ask=question, how=form.how())
        purpose = f"{task.protocol.value}.responder"
        if form.choices:
            done = await self._ask(text, purpose)
            return UserReply(text=form.read_choice(strip_reasoning(done.text)), usage=done.usage, raw=done.text)
        return await self._reply(text, purpose, lambda raw: refuse_refusals(strip_reasoning(raw), "the user's reply"))


def read_answer(raw: str) -> str:
    """CTS Prompt B's output: a short answer or exactly 'unknown', not a refusal."""
    refuse_refusals(strip_reasoning(raw), "a short answer or exactly 'unknown'")
    return read_short_answer(raw)


def read_rewrite(raw: str) -> str:
    """CTS Prompt C's output: the last non-empty line, which must be a query, not a refusal."""
    lines = [line.strip() for line in strip_reasoning(raw).splitlines() if line.strip()]
    return refuse_refusals(lines[-1] if lines else "", "one rewritten search query")
