"""The CTS aspect classifier returns every aspect of a clarification question (paper 001
§6.2, lines 280-305): region-only means region is the question's only aspect."""

from __future__ import annotations

import pytest

from clarify_tui.protocols.cts.aspects import classify_aspects, classify_question, is_region_only

CASES = [
    # English, one aspect
    ("Which country or region are you asking about?", ["region"]),
    ("Which city are you in?", ["region"]),
    ("Where are you located?", ["region"]),
    ("Which province do you mean?", ["region"]),
    ("Are you asking about a specific continent?", ["region", "entity"]),
    ("Do you want results for your local area?", ["region"]),
    ("Which time period or year do you mean?", ["time"]),
    ("When did this happen, roughly?", ["time"]),
    ("Do you want the latest figures?", ["time"]),
    ("Which decade are you interested in?", ["time"]),
    ("What criterion matters most to you?", ["criteria"]),
    ("What is your budget?", ["criteria"]),
    ("How do you want the options ranked?", ["criteria"]),
    ("Do you prefer quality over price?", ["criteria"]),
    ("What scope do you have in mind?", ["scope"]),
    ("What kind of university are you looking for?", ["scope"]),
    ("What degree level: bachelor's or master's?", ["scope"]),
    ("Which company do you mean?", ["entity"]),
    ("Who is the person you are asking about?", ["entity"]),
    ("Which version of the software?", ["entity"]),
    ("Could you tell me more?", ["other"]),
    ("Oxford or Cambridge?", ["other"]),
    ("What is the state of the art you expect?", ["other"]),
    # English, several aspects: not region-only
    ("Which country and which year?", ["region", "time"]),
    ("Which city, and what is your budget?", ["region", "criteria"]),
    ("Where and when will you travel?", ["region", "time"]),
    ("What type of housing and in which area?", ["region", "scope"]),
    ("Which brand, and in what price range?", ["criteria", "entity"]),
    ("Which year's ranking do you mean?", ["time", "criteria"]),
    # Chinese, one aspect
    ("你问的是哪个国家或地区？", ["region"]),
    ("你在哪个城市？", ["region"]),
    ("你想了解国内还是国外的情况？", ["region"]),
    ("你指的是哪一年？", ["time"]),
    ("你想看最新的数据吗？", ["time"]),
    ("你关心的是哪个时间段？", ["time"]),
    ("你的预算是多少？", ["criteria"]),
    ("你最看重的标准是什么？", ["criteria"]),
    ("你想了解哪方面的信息？", ["scope"]),
    ("你需要什么样的学校？", ["scope"]),
    ("你说的是哪家公司？", ["entity"]),
    ("你指的是哪个版本？", ["entity"]),
    ("能再多说一点吗？", ["other"]),
    # Chinese, several aspects
    ("你问的是哪个国家、哪一年的数据？", ["region", "time"]),
    ("你在哪个城市，预算是多少？", ["region", "criteria"]),
    ("你想了解哪个省份最新的政策？", ["region", "time"]),
]


def test_the_suite_has_at_least_40_questions_in_both_languages():
    zh = [q for q, _ in CASES if any("\u4e00" <= c <= "\u9fff" for c in q)]
    assert len(CASES) >= 40 and len(zh) >= 15 and len(CASES) - len(zh) >= 25


@pytest.mark.parametrize(("question", "aspects"), CASES)
def test_every_aspect_of_a_question_is_returned(question, aspects):
    assert classify_aspects(question) == aspects
    assert classify_question(question) == aspects[0]


def test_region_only_means_region_is_the_only_aspect():
    assert is_region_only(classify_aspects("Which city do you mean?"))
    assert is_region_only(classify_aspects("你问的是哪个城市？"))
    assert not is_region_only(classify_aspects("Which country and which year?"))
    assert not is_region_only(classify_aspects("你问的是哪个国家、哪一年的数据？"))
