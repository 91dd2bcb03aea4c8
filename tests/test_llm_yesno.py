"""The yes / no / i don't know normaliser on reply shapes seen from real models."""

from __future__ import annotations

import pytest

from clarify_tui.llm.yesno import NO, UNKNOWN, YES, classify, read_short_answer, read_yes_no

CASES = [
    # bare verdicts, any case and punctuation
    ("yes", YES),
    ("Yes.", YES),
    ("YES", YES),
    ("**Yes**", YES),
    ("`no`", NO),
    ("No.", NO),
    ("no\n", NO),
    ('"yes"', YES),
    ("- no", NO),
    # the don't-know family must never read as "no"
    ("I don't know.", UNKNOWN),
    ("I don\u2019t know", UNKNOWN),
    ("i don't know", UNKNOWN),
    ("I do not know.", UNKNOWN),
    ("No, I don't know.", UNKNOWN),
    ("Unknown", UNKNOWN),
    ("There is no mention of wood in the context.", UNKNOWN),
    ("The context neither confirms nor denies this.", UNKNOWN),
    ("Not enough information.", UNKNOWN),
    ("Cannot be determined from the context.", UNKNOWN),
    ("No idea.", UNKNOWN),
    # a verdict with an explanation after it
    ("Yes, the context clearly states it is a puck.", YES),
    ("No, the context says the field is fan-shaped.", NO),
    ("Yes.\n\nThe context says the defenders use wooden boards.", YES),
    # reasoning first, verdict last or after a marker
    ("Let me think step by step.\nThe context says the projectile is a plastic puck.\nyes", YES),
    ("Step 1: the context does not say it is wood.\nStep 2: there is no mention of nails.\nno", NO),
    ("The question asks about the ball; there is no ball.\nAnswer: no", NO),
    ("Reasoning: nothing about teams.\nFinal answer: i don't know", UNKNOWN),
    ("<think>no, wait, the context says yes</think>\nyes", YES),
    ('{"answer": "no"}', NO),
    ("Output: yes", YES),
    # Chinese
    ("是", YES),
    ("是的。", YES),
    ("对", YES),
    ("不是", NO),
    ("否", NO),
    ("不对。", NO),
    ("不知道", UNKNOWN),
    ("我不知道。", UNKNOWN),
    ("不确定", UNKNOWN),
    ("上下文没有提到这一点。", UNKNOWN),
    ("上下文提到击球使用长木杆。\n答案：是", YES),
    ("根据上下文，场地呈扇形。\n回答：否", NO),
    # commits to nothing
    ("Hmm.", None),
    ("", None),
    ("yes and no", None),
]


@pytest.mark.parametrize("reply, expected", CASES, ids=[repr(c[0])[:40] for c in CASES])
def test_read_yes_no(reply: str, expected: str | None) -> None:
    assert read_yes_no(reply) == expected


def test_table_is_large_and_mixed() -> None:
    assert len(CASES) >= 30
    assert sum(1 for reply, _ in CASES if any("\u4e00" <= ch <= "\u9fff" for ch in reply)) >= 10


def test_whole_words_only() -> None:
    assert classify("Nobody knows the notation") is None  # "no" inside words is not a no
    assert classify("yesterday") is None


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Europe", "Europe"),
        ("unknown", "unknown"),
        ("Unknown.", "unknown"),
        ("未知", "unknown"),
        ("不知道。", "unknown"),
        ("**2023年**", "2023年"),
        ("<think>the intent says Europe</think>Europe.", "Europe"),
        ("Master's study in Europe", "Master's study in Europe"),
    ],
)
def test_read_short_answer(reply: str, expected: str) -> None:
    assert read_short_answer(reply) == expected
