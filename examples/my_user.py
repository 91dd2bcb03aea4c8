# my_user.py
"""A user simulator of one's own, for all three protocols (docs/users.md).

    clarify-tui run --benchmark interactcomp --agent scripted:ask-first --user py:examples/my_user.py:MyUser

A user may read the hidden task: that is its job. Each method may be sync or async and may
return a plain string (the reply) or a `UserReply`.
"""

import re

from clarify_tui.users.base import UserReply

NOTHING = "I can't add anything beyond what the question says."


def words(text):
    return {w for w in re.findall(r"\w+", text.lower()) if len(w) > 3}


class MyUser:
    def __init__(self, max_words: int = 4) -> None:
        self.max_words = max_words  # clarify.toml: [user.args] max_words = 6

    def reply_interactcomp(self, task, question):
        """InteractComp: exactly "yes", "no" or "i don't know", from the hidden context."""
        asked = question.lower()
        if any(name.lower() in asked for name in task.answer.forms()):
            return "yes"  # it names the answer (or an alias)
        if any(d.lower() in asked for d in task.interactcomp.distractors):
            return "no"  # it names a known wrong candidate
        context = words(task.interactcomp.context)
        about = words(question) - {"does", "it", "that", "this", "have", "with", "from", "were", "what"}
        if about and len(about & context) >= max(1, len(about) // 2):
            return "yes"  # the context says so
        return "i don't know"

    def reply_discobench(self, task, checkpoint, question, asked_right):
        """DiscoBench: the current checkpoint's clue when the ask targets its ambiguity, else nothing new."""
        if asked_right:  # the judge said the ask targets this (ambi) checkpoint
            return UserReply(text=checkpoint.clue, released_clue=True)
        return UserReply(text=NOTHING, released_clue=False)

    def answer_clarification(self, task, question):
        """CTS: a short answer found in the intent query (`task.cts.fused_query`), else "unknown"."""
        slots = task.cts.intent_slots  # curated tasks name the intent's aspects
        if slots:
            return next((value for aspect, value in slots.items() if aspect in question.lower() and value), "unknown")
        new = [
            w
            for w in re.findall(r"\w+", task.cts.fused_query)  # else: what the intent adds to the blurred query
            if w.lower() not in task.cts.blurred_query.lower() and len(w) > 2
        ]
        return " ".join(new[: self.max_words]) if new else "unknown"

    def rewrite(self, blurred_query, qa_pairs):
        """CTS rewriter: sees only the blurred query and the (question, answer) pairs."""
        known = [answer for _question, answer in qa_pairs if answer != "unknown"]
        return " ".join([blurred_query, *known])
