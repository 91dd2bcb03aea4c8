"""Offline judges: answer equivalence, DiscoBench checkpoint/ask judgement, nugget coverage.

Limits (documented because these are proxies for the papers' LLM judges):
- equivalence compares normalised forms (case, punctuation, width, traditional vs
  simplified Chinese, accents) against the gold text and its aliases, accepts a gold form
  contained as whole words in a short answer, and tolerates close spellings (similarity
  >= 90 on rapidfuzz's ratio); it does not understand paraphrases, dates in other formats
  or list reordering.
- the checkpoint judge looks for the target / distractor names in the text; it cannot
  tell a commitment from a mention when both names appear (it then says "none").
- an ask targets the ambiguity when it names the target, an alias or a distractor, or
  shares at least half of the content words of the checkpoint's ambiguity logic.
- nugget coverage is the share of a nugget's content words present in the answer:
  >= 0.75 full, >= 0.4 partial, else none.
"""

from __future__ import annotations

from rapidfuzz import fuzz

from clarify_tui.judges.base import AskJudgement, CheckpointJudgement, NuggetJudgement, Verdict
from clarify_tui.models import Answer, Checkpoint, Nugget
from clarify_tui.text import canonical, content_words, mentions, overlap

FUZZY_THRESHOLD = 90
FULL_COVERAGE = 0.75
PARTIAL_COVERAGE = 0.4
ASK_LOGIC_OVERLAP = 0.5


def answers_match(answer: str, forms: list[str]) -> bool:
    got = canonical(answer)
    if not got:
        return False
    for form in forms:
        want = canonical(form)
        if not want:
            continue
        if got == want or got.replace(" ", "") == want.replace(" ", ""):
            return True
        if len(got.split()) <= len(want.split()) + 6 and mentions(answer, form):
            return True
        if fuzz.ratio(got, want) >= FUZZY_THRESHOLD:
            return True
    return False


class RuleJudge:
    spec = "rule"

    async def equivalent(self, question: str, answer: str, gold: Answer, benchmark: str = "interactcomp") -> Verdict:
        ok = answers_match(answer, gold.forms())
        return Verdict(correct=ok, reason="matches gold or an alias" if ok else "no gold form matched")

    async def checkpoint(self, checkpoint: Checkpoint, kind: str, text: str) -> CheckpointJudgement:
        has_target = any(mentions(text, f) for f in checkpoint.target_forms())
        has_distractor = any(mentions(text, d) for d in checkpoint.distractors)
        if has_target and not has_distractor:
            return CheckpointJudgement(verdict="target")
        if has_distractor and not has_target:
            return CheckpointJudgement(verdict="distractor")
        return CheckpointJudgement(verdict="none")

    async def ask_targets(self, checkpoint: Checkpoint, question: str) -> AskJudgement:
        names = [*checkpoint.target_forms(), *checkpoint.distractors]
        if any(mentions(question, n) for n in names):
            return AskJudgement(targets=True)
        logic = content_words(checkpoint.ambiguity_logic or "")
        return AskJudgement(targets=bool(logic) and overlap(logic, question) >= ASK_LOGIC_OVERLAP)

    async def nuggets(self, answer: str, nuggets: list[Nugget], query: str = "") -> NuggetJudgement:
        coverage = []
        for nugget in nuggets:
            share = overlap(content_words(nugget.text), answer)
            coverage.append("full" if share >= FULL_COVERAGE else "partial" if share >= PARTIAL_COVERAGE else "none")
        return NuggetJudgement(coverage=coverage)
