"""What a judge is: answer equivalence, DiscoBench checkpoint/ask judgement, CTS nuggets."""

from __future__ import annotations

from typing import Literal
from typing import Protocol as TypingProtocol

from pydantic import BaseModel

from clarify_tui.models import Answer, Checkpoint, Nugget, Usage

Coverage = Literal["full", "partial", "none"]
CheckpointVerdict = Literal["target", "distractor", "none"]


class Verdict(BaseModel):
    correct: bool
    reason: str = ""
    usage: Usage | None = None
    fault: str | None = None  # `--compat reference`: the failed grader call scored wrong
    reply: str | None = None  # a model grader's own words, kept on the judge step (every compat mode)
    # The paper's reading took a reply that states no verdict (empty, a refusal, "I need to
    # think...") as "no": scored wrong, as the paper does, and counted (`unreadable_verdicts`)
    unreadable: bool = False


class CheckpointJudgement(BaseModel):
    verdict: CheckpointVerdict
    usage: Usage | None = None


class AskJudgement(BaseModel):
    targets: bool
    usage: Usage | None = None


class NuggetJudgement(BaseModel):
    coverage: list[Coverage]
    usage: Usage | None = None
    reply: str | None = None  # a model judge's own words, kept on the judge step


class Judge(TypingProtocol):
    spec: str

    async def equivalent(self, question: str, answer: str, gold: Answer, benchmark: str = "interactcomp") -> Verdict:
        """Is `answer` the gold answer? `benchmark` picks the LLM judge's prompt."""
        ...

    async def checkpoint(self, checkpoint: Checkpoint, kind: str, text: str) -> CheckpointJudgement:
        """Does this search query / answer establish the target, commit to a distractor, or neither?"""
        ...

    async def ask_targets(self, checkpoint: Checkpoint, question: str) -> AskJudgement:
        """Does this ask target the checkpoint's ambiguity?"""
        ...

    async def nuggets(self, answer: str, nuggets: list[Nugget], query: str = "") -> NuggetJudgement:
        """Coverage of each gold nugget by `answer`; `query` is the intent query (Prompt E's QUERY)."""
        ...
