"""Reading a simulator's or grader's reply as yes / no / i don't know.

Why not `"no" in reply`: that reads "I don't know." as *no* (STYLE.md) and "There is no
mention of it" as a denial. We match whole words only, test the don't-know family
(English and Chinese) before *no*, and *no* before *yes* (so 不是 is not read as 是).
When the model reasoned first, the verdict is on its last line or after an
"Answer:" / "答案：" marker, so that is where we look; a bare verdict on the first line
("Yes. The context says …") is read too.
"""

from __future__ import annotations

import re
from typing import Literal

from clarify_tui.llm.parsing import strip_reasoning

YesNo = Literal["yes", "no", "i don't know"]
YES: YesNo = "yes"
NO: YesNo = "no"
UNKNOWN: YesNo = "i don't know"

_UNKNOWN = re.compile(
    r"\b(?:i\s+)?(?:do\s*not|don't|dont)\s+know\b|\bunknown\b|\bno\s+idea\b|\bidk\b"
    r"|\bnot\s+sure\b|\bunsure\b|\buncertain\b|\bunclear\b|\bundetermined\b"
    r"|\b(?:cannot|can't|can\s+not)\s+(?:be\s+)?(?:determined?|tell|say|confirm|know)\b"
    r"|\b(?:not|in)\s*(?:enough|sufficient)\s+(?:information|info|context|evidence)\b"
    r"|\binsufficient\b|\bno\s+(?:information|info|mention|evidence|data)\b"
    r"|\bnot\s+(?:mentioned|specified|stated|addressed|provided|given|known)\b"
    r"|\b(?:does\s*not|doesn't|did\s*not|didn't)\s+(?:say|mention|specify|state|indicate)\b"
    r"|\bneither\s+confirms?\s+nor\s+denies?\b"
    r"|不知道|不确定|无法确定|无法判断|不能确定|不清楚|说不准|未知|未提及|没有提到|没提到|无从得知|无法得知",
    re.IGNORECASE,
)
_NO = re.compile(
    r"\b(?:no|nope|nah|false|incorrect|negative)\b|\bnot\s+(?:true|correct|right)\b"
    r"|不是|不对|不正确|错误|否|没有|不",
    re.IGNORECASE,
)
_YES = re.compile(
    r"\b(?:yes|yep|yeah|yup|true|correct|affirmative|right)\b|是|对|正确|没错|有",
    re.IGNORECASE,
)
_MARKER = re.compile(
    r"(?:final\s+answer|answer|output|reply|response|verdict|score)[\"']?\s*(?:is\s*)?[:：]"
    r"|(?:最终)?(?:答案|回答|输出|结论)\s*(?:是|为)?\s*[:：]?",
    re.IGNORECASE,
)
_NOISE = re.compile(r"[*`\"“”‘’「」『』#>]|^\s*[-•]\s*")


def _clean(text: str) -> str:
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = _NOISE.sub(lambda m: "'" if m.group() in "‘’" else " ", text)
    return re.sub(r"\s+", " ", text).strip()


def classify(segment: str) -> YesNo | None:
    """The verdict of one short piece of text, or None when it states none (or both)."""
    text = _clean(segment)
    if not text:
        return None
    if _UNKNOWN.search(text):
        return UNKNOWN
    said_no = bool(_NO.search(text))
    said_yes = bool(_YES.search(_NO.sub(" ", text)))
    if said_no and said_yes:
        return None
    if said_no:
        return NO
    if said_yes:
        return YES
    return None


def _is_short(line: str) -> bool:
    cleaned = _clean(line)
    return len(cleaned.split()) <= 3 and len(cleaned) <= 24


def read_yes_no(reply: str) -> YesNo | None:
    """yes / no / i don't know from a model reply; None when it commits to none of them."""
    text = strip_reasoning(reply).replace("\u2019", "'")
    lines = [line for line in text.splitlines() if _clean(line)]
    if not lines:
        return None
    markers = list(_MARKER.finditer(text))
    if markers:
        after = text[markers[-1].end() :].strip().splitlines()
        if after:
            verdict = classify(after[0])
            if verdict is not None:
                return verdict
    if _is_short(lines[0]) and (verdict := classify(lines[0])) is not None:
        return verdict
    return classify(lines[-1])


_UNKNOWN_ANSWER = re.compile(
    r"^(?:unknown|n/?a|none|not\s+specified|i\s+don't\s+know|未知|不知道|不清楚|未说明|无)\b",
    re.IGNORECASE,
)


def read_short_answer(reply: str) -> str:
    """CTS user answerer (Prompt B): the answer text, or exactly 'unknown'."""
    text = _clean(strip_reasoning(reply)).strip(" .。!！")
    if not text or _UNKNOWN_ANSWER.match(text) or re.fullmatch(r"未知|不知道|不清楚|无", text):
        return "unknown"
    return text
