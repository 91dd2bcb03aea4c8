"""Offline components on their own: answer equivalence, nugget coverage, search in English
and Chinese, the aspect classifier, the rule user's answers."""

from __future__ import annotations

import pytest

from clarify_tui.judges.rule import RuleJudge, answers_match
from clarify_tui.models import Answer, Nugget
from clarify_tui.protocols.cts.aspects import classify_question
from clarify_tui.search.local import LocalSearch
from clarify_tui.users.rule import RuleUser
from tests.conftest import CTS, IC


@pytest.mark.parametrize(
    ("answer", "gold", "aliases", "expected"),
    [
        ("deep impact", "Deep Impact", [], True),  # case
        ("Deep Impact!", "Deep Impact", [], True),  # punctuation
        ("ＤＥＥＰ　ＩＭＰＡＣＴ", "Deep Impact", [], True),  # full width
        ("諸葛亮", "诸葛亮", [], True),  # traditional vs simplified
        ("Kongming", "Zhuge Liang", ["Kongming"], True),  # alias
        ("Zhuge Laing", "Zhuge Liang", [], True),  # close spelling
        ("Pelé", "Pele", [], True),  # accents
        ("The answer is Deep Impact.", "Deep Impact", [], True),  # short sentence holding the name
        ("Armageddon", "Deep Impact", [], False),
        ("Deep", "Deep Impact", [], False),
        ("庞统", "诸葛亮", [], False),
        ("", "Deep Impact", [], False),
    ],
)
def test_answer_equivalence(answer, gold, aliases, expected):
    assert answers_match(answer, [gold, *aliases]) is expected


async def test_nugget_coverage_full_partial_none():
    nuggets = [
        Nugget(id="a", text="Uji matcha prices rose 20 percent in 2023", weight=3),
        Nugget(id="b", text="a poor harvest in Kyoto prefecture", weight=1),
        Nugget(id="c", text="exports to Europe doubled", weight=1),
    ]
    answer = "In 2023 Uji matcha prices rose 20 percent. The harvest was poor."
    judged = await RuleJudge().nuggets(answer, nuggets)
    assert judged.coverage == ["full", "partial", "none"]


def test_local_search_finds_english_and_chinese_documents():
    docs = [
        {
            "id": "1",
            "title": "Harbin",
            "url": "u1",
            "content": "Harbin hosts a famous ice festival and a beer festival.",
        },
        {"id": "2", "title": "哈尔滨", "url": "u2", "content": "哈尔滨啤酒节是中国著名的啤酒节之一，城市被称为冰城。"},
        {"id": "3", "title": "Munich", "url": "u3", "content": "Munich hosts Oktoberfest, the largest beer festival."},
    ] + [{"id": f"f{i}", "title": f"Filler {i}", "url": f"f{i}", "content": f"weather report {i}"} for i in range(20)]
    search = LocalSearch(docs)
    assert search.search_sync("ice festival city")[0].title == "Harbin"
    assert search.search_sync("冰城 啤酒节")[0].title == "哈尔滨"
    assert search.search_sync("哈爾濱")[0].title == "哈尔滨"  # traditional characters in the query
    assert search.search_sync("")[:1] == []


@pytest.mark.parametrize(
    ("question", "aspect"),
    [
        ("Which time period or year do you mean?", "time"),
        ("Which country or region are you asking about?", "region"),
        ("Which city are you in?", "region"),
        ("Which specific one (product, organisation or group) do you mean?", "entity"),
        ("What scope do you have in mind?", "scope"),
        ("What criterion matters most to you?", "criteria"),
        ("你问的是哪个国家或地区？", "region"),
        ("你指的是哪一年？", "time"),
        ("Could you tell me more?", "other"),
    ],
)
def test_clarification_questions_are_classified_by_aspect(question, aspect):
    assert classify_question(question) == aspect


async def test_rule_user_answers_only_stated_aspects_and_never_invents():
    user = RuleUser()
    assert (await user.answer_clarification(CTS, "Which year do you mean?")).text == "2023"
    assert (await user.answer_clarification(CTS, "Which country are you asking about?")).text == "unknown"
    rewrite = await user.rewrite("matcha prices", [("Which year?", "2023"), ("Which country?", "unknown")])
    assert rewrite.text == "matcha prices 2023"
    assert (await user.reply_interactcomp(IC, "Is it the Sapporo TV Tower?")).text == "yes"
    assert (await user.reply_interactcomp(IC, "Was it designed by a woman?")).text == "i don't know"


def test_gold_answers_keep_their_aliases():
    gold = Answer(text="Zhuge Liang", aliases=["Kongming", "诸葛亮"])
    assert gold.forms() == ["Zhuge Liang", "Kongming", "诸葛亮"]
