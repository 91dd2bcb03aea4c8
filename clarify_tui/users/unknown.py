"""The CTS User Answerer's `unknown`, and replies that mean it.

Prompt B (paper 001 line 469; contract in line 223) asks for exactly `unknown` when the
intent does not specify the asked attribute. Models often say so in words instead ("The
query does not specify a country."). Such a reply carries no answer, so it is read as
`unknown`: the rewriter must not see it as an elicited constraint, and the UA
diagnostics must count it as unknown.
"""

from __future__ import annotations

import re

UNKNOWN = "unknown"
_UNKNOWN_FORMS = {"unknown", "未知", "不知道", "n/a", "na", "none"}
_PUNCT = re.compile(r"[\s.,!?;:。，！？；：\"'`“”‘’()（）]+")
_NON_ANSWER = re.compile(
    r"\b(does|do|did)\s*(not|n't)\s+(specify|mention|say|state|indicate|include|provide|contain|give)\b"
    r"|\b(is|are|was|were)\s*(not|n't)\s+(specified|mentioned|stated|given|provided|indicated|known|clear)\b"
    r"|\bnot\s+(specified|mentioned|stated|given|provided|indicated)\b"
    r"|\bno\s+(information|mention|details?|indication|specific\s+\w+\s+(is|was)\s+(given|mentioned))\b"
    r"|\b(i\s+)?(don't|do not|cannot|can't)\s+(know|tell|say|determine)\b"
    r"|\bunclear\b|\bunspecified\b|\bcannot be determined\b"
    r"|未(指定|说明|提及|提到|明确|给出|注明)|没有(提到|说明|指定|明确|提及|具体|给出)|不清楚|无法(确定|判断)",
    re.IGNORECASE,
)


def is_unknown(answer: str | None) -> bool:
    """`unknown` (case, punctuation, quotes ignored), an empty reply, or a reply that only
    says the intent does not specify it."""
    text = (answer or "").strip()
    if not text or _PUNCT.sub("", text.casefold()) in _UNKNOWN_FORMS:
        return True
    return bool(_NON_ANSWER.search(text))


def as_ua_answer(answer: str | None) -> str:
    """The reply as the UA's answer: `unknown` for any non-answer, else the reply stripped."""
    return UNKNOWN if is_unknown(answer) else (answer or "").strip()
