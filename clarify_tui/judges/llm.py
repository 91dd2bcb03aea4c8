"""Judges backed by an OpenAI-compatible model (`--judge openai:MODEL`).

Judge output is parsed strictly (CTS 4.4.1: "robust JSON parsing with retries"): when a
reply cannot be read, the model is shown its reply and told what was wrong, up to
`parse_retries` more times; then BackendError, never a guessed verdict. The usage of
every attempt is summed into the judgement.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar

from clarify_tui.errors import BackendError, EndpointDown
from clarify_tui.judges.base import AskJudgement, CheckpointJudgement, NuggetJudgement, Verdict
from clarify_tui.llm.client import ChatClient
from clarify_tui.llm.contract import OffContract, complete_within_contract
from clarify_tui.llm.parsing import find_json
from clarify_tui.llm.prompts import exists, render, render_verbatim
from clarify_tui.llm.yesno import NO, YES, read_yes_no
from clarify_tui.models import Answer, Checkpoint, Nugget, Usage
from clarify_tui.protocols.interactcomp.reference import grader_reading

T = TypeVar("T")
_COVERAGE = {"full", "partial", "none"}


class Unreadable(OffContract):
    """The judge's reply does not have the required form; the message says how."""


def read_grade(text: str) -> bool:
    verdict = read_yes_no(text)
    if verdict not in (YES, NO):
        raise Unreadable("reply with only 'yes' or 'no'")
    return verdict == YES


def read_checkpoint(text: str) -> str:
    data = find_json(text, dict, accept=lambda v: "verdict" in v)
    verdict = str(data.get("verdict", "")).strip().lower() if data else ""
    if verdict not in ("target", "distractor", "none"):
        raise Unreadable('output {"verdict": "target" | "distractor" | "none"}')
    return verdict


def read_targets(text: str) -> bool:
    data = find_json(text, dict, accept=lambda v: "targets" in v)
    if data is None or not isinstance(data["targets"], bool):
        raise Unreadable('output {"targets": true} or {"targets": false}')
    return data["targets"]


def read_coverage(text: str, nuggets: list[Nugget]) -> list[Any]:
    data = find_json(text, dict, accept=lambda v: isinstance(v.get("results"), list))
    if data is None:
        raise Unreadable('output {"results": [{"id": ..., "coverage": ...}, ...]}')
    labels: dict[str, str] = {}
    for item in data["results"]:
        if not isinstance(item, dict) or "id" not in item:
            raise Unreadable('each result needs an "id" and a "coverage"')
        label = str(item.get("coverage", "")).strip().lower()
        if label not in _COVERAGE:
            raise Unreadable(f"coverage of {item['id']} must be full, partial or none, not {label!r}")
        labels[str(item["id"])] = label
    missing = [n.id for n in nuggets if n.id not in labels]
    if missing:
        raise Unreadable(f"no result for nugget ids {', '.join(missing)}")
    return [labels[n.id] for n in nuggets]


def unreadable_grade(reply: str, read_correct: bool) -> bool:
    """A reply the paper's reading scored wrong that does not say "no" (empty, a refusal,
    "I need to think...", "Correct."): a wrong that is the grader's, not the agent's."""
    return not read_correct and read_yes_no(reply) != NO


class LLMJudge:
    def __init__(self, client: ChatClient) -> None:
        self.client = client
        self.spec = f"openai:{client.model}"
        self.parse_retries = client.settings.parse_retries

    async def aclose(self) -> None:
        await self.client.aclose()

    async def _judge(self, text: str, purpose: str, read: Callable[[str], T]) -> tuple[T, Usage]:
        value, usage, _raw = await self._judge_raw(text, purpose, read)
        return value, usage

    async def _judge_raw(self, text: str, purpose: str, read: Callable[[str], T]) -> tuple[T, Usage, str]:
        return await complete_within_contract(
            self.client, text, purpose, read, self.parse_retries, "judge", failure="unreadable output"
        )

    async def equivalent(self, question: str, answer: str, gold: Answer, benchmark: str = "interactcomp") -> Verdict:
        """A protocol's own equivalence prompt (`prompts/<benchmark>_equivalence_judge.txt`:
        DiscoBench's, B.1), else InteractComp's published grader."""
        correct = gold.text + (f" (also accepted: {'; '.join(gold.aliases)})" if gold.aliases else "")
        fields = dict(question=question, predicted_answer=answer, correct_answer=correct)
        own = f"{benchmark}_equivalence_judge"
        if exists(own):
            text, purpose = render(own, **fields), f"{benchmark}.judge"
        else:
            text, purpose = render_verbatim("interactcomp_grader", **fields), "grader"
        ok, usage, reply = await self._judge_raw(text, purpose, read_grade)
        return Verdict(correct=ok, reason=f"{self.spec} graded {'yes' if ok else 'no'}", usage=usage, reply=reply)

    async def grade_reference(
        self, question: str, answer: str, gold_text: str, failure_is_wrong: bool = False
    ) -> Verdict:
        """The reference's grading (InteractComp core/benchmark.py:132-152), the default
        `--compat paper`: the gold text alone, one call, correct when "yes" occurs anywhere
        in the reply. A failed call (after the client's retries) raises, so the session
        errors; with `failure_is_wrong` (`--compat reference`, :150-152) it is wrong."""
        text = render_verbatim(
            "interactcomp_grader", question=question, predicted_answer=answer, correct_answer=gold_text
        )
        try:
            done = await self.client.complete([{"role": "user", "content": text}], "grader")
        except BackendError as exc:
            if not failure_is_wrong or isinstance(exc, EndpointDown):  # not called: the run stops, errored
                raise
            return Verdict(correct=False, reason=f"{self.spec} failed (reference: scored 0): {exc}", fault=str(exc))
        ok = grader_reading(done.text)
        return Verdict(
            correct=ok,
            reason=f"{self.spec} reply {done.text[:80]!r} read as the reference does",
            usage=done.usage,
            reply=done.text,
            unreadable=unreadable_grade(done.text, ok),
        )

    async def checkpoint(self, checkpoint: Checkpoint, kind: str, text: str) -> CheckpointJudgement:
        prompt = render(
            "discobench_checkpoint_judge",
            description=checkpoint.description or "(no description)",
            target="; ".join(checkpoint.target_forms()),
            distractors="; ".join(checkpoint.distractors) or "(none listed)",
            kind=kind.upper(),
            text=text,
        )
        verdict, usage = await self._judge(prompt, "discobench.judge", read_checkpoint)
        return CheckpointJudgement(verdict=verdict, usage=usage)

    async def ask_targets(self, checkpoint: Checkpoint, question: str) -> AskJudgement:
        prompt = render(
            "discobench_ask_judge",
            description=checkpoint.description or "(no description)",
            ambiguity_type=checkpoint.ambiguity_type.value if checkpoint.ambiguity_type else "none",
            ambiguity_logic=checkpoint.ambiguity_logic or "(not given)",
            ask=question,
        )
        targets, usage = await self._judge(prompt, "discobench.judge", read_targets)
        return AskJudgement(targets=targets, usage=usage)

    async def nuggets(self, answer: str, nuggets: list[Nugget], query: str = "") -> NuggetJudgement:
        gold = json.dumps([{"id": n.id, "text": n.text} for n in nuggets], ensure_ascii=False)
        prompt = render("cts_nugget_judge", query=query, gold_nuggets=gold, candidate_answer=answer)
        coverage, usage, reply = await self._judge_raw(prompt, "cts.judge", lambda t: read_coverage(t, nuggets))
        return NuggetJudgement(coverage=coverage, usage=usage, reply=reply)
