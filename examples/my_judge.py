# my_judge.py
"""A judge of one's own, for all three protocols (docs/judges.md).

    clarify-tui run --benchmark interactcomp --agent scripted:ask-first --judge py:examples/my_judge.py:MyJudge

A judge reads the gold answer, the checkpoints and the nuggets: that is its job. Each
method may be sync or async and may return a dict of its reply's fields (or the reply
model from clarify_tui.judges.base); `equivalent` may return a bool.
"""

import re


def norm(text):
    return " ".join(re.findall(r"\w+", text.lower()))


def share(needle, hay):
    """How many of `needle`'s longer words are in `hay` (0 to 1)."""
    want = {w for w in norm(needle).split() if len(w) > 3}
    return len(want & set(norm(hay).split())) / len(want) if want else 0.0


class MyJudge:
    def __init__(self, full: float = 0.8, partial: float = 0.4) -> None:
        self.full, self.partial = full, partial  # clarify.toml: [judge.args] full = 0.9

    def equivalent(self, question, answer, gold, benchmark="interactcomp"):
        """Is `answer` the gold answer (`gold.text` or one of `gold.aliases`)?"""
        got = norm(answer)
        hit = next((form for form in gold.forms() if norm(form) and norm(form) in got), None)
        return {"correct": hit is not None, "reason": f"names {hit!r}" if hit else "names no gold form"}

    def checkpoint(self, checkpoint, kind, text):
        """DiscoBench: does this search query (`kind` "search") or answer ("answer") settle
        the checkpoint's target, commit to one of its distractors, or neither?"""
        target = any(norm(f) in norm(text) for f in checkpoint.target_forms())
        wrong = any(norm(d) in norm(text) for d in checkpoint.distractors)
        return {"verdict": "target" if target and not wrong else "distractor" if wrong and not target else "none"}

    def ask_targets(self, checkpoint, question):
        """DiscoBench: does this ask target the checkpoint's ambiguity (so the user releases the clue)?"""
        names = [*checkpoint.target_forms(), *checkpoint.distractors]
        named = any(norm(n) in norm(question) for n in names)
        return {"targets": named or share(checkpoint.ambiguity_logic or "", question) >= 0.5}

    def nuggets(self, answer, nuggets, query=""):
        """CTS: "full", "partial" or "none" for each gold nugget, in order; `query` is the
        intent query (`fused_query`)."""
        covered = [share(n.text, answer) for n in nuggets]
        return {"coverage": ["full" if c >= self.full else "partial" if c >= self.partial else "none" for c in covered]}
