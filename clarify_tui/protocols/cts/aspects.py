"""Clarification-question aspect classifier (Clarify-Then-Search §6.2, lines 280-305).

`classify_aspects` returns every aspect a clarification question asks about, in a fixed
order: region, time, criteria, scope, entity (or ["other"] when none is recognised).
A question is *region-only* when region is its only aspect ("Which city?"), not when it
also asks something else ("Which country and which year?"); `cq_region_rate` counts
every question that asks about region (paper Table 4 vs Table 5: the region-only count
is below cq_region_rate x n for every model). `classify_question` is the first aspect,
kept for callers that need one.

Keyword rules in English and Chinese, on whole words for English. Limits: it reads
words, not meaning; a question whose aspect is only implied ("Oxford or Cambridge?")
is "other".
"""

from __future__ import annotations

import re

ASPECTS = ("time", "region", "entity", "scope", "criteria", "other")
ASPECT_ORDER = ("region", "time", "criteria", "scope", "entity")

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "region": (
        "region",
        "regions",
        "country",
        "countries",
        "city",
        "cities",
        "province",
        "provinces",
        "which state",
        "what state",
        "us state",
        "location",
        "located",
        "where",
        "area",
        "place",
        "continent",
        "nationwide",
        "locally",
        "local area",
        "geographic",
        "geographical",
        "town",
        "district",
        "county",
        "abroad",
        "domestic",
        "overseas",
        "market",
        "地区",
        "哪里",
        "哪儿",
        "城市",
        "国家",
        "哪个省",
        "省份",
        "地点",
        "位置",
        "哪个地方",
        "区域",
        "国内",
        "国外",
        "海外",
        "哪国",
        "哪座城",
        "哪个市",
        "地域",
        "在哪",
    ),
    "time": (
        "when",
        "year",
        "years",
        "time period",
        "period",
        "date",
        "dates",
        "era",
        "decade",
        "season",
        "recent",
        "latest",
        "current",
        "currently",
        "month",
        "century",
        "timeframe",
        "time frame",
        "how long ago",
        "which edition",
        "what time",
        "historical",
        "today",
        "时间",
        "哪一年",
        "哪年",
        "年份",
        "时期",
        "日期",
        "什么时候",
        "最新",
        "年代",
        "近期",
        "今年",
        "哪个月",
        "时间段",
        "何时",
        "现在",
        "目前",
    ),
    "criteria": (
        "criterion",
        "criteria",
        "matters most",
        "prefer",
        "preference",
        "ranking",
        "rank",
        "ranked",
        "measure",
        "measured",
        "metric",
        "best by",
        "budget",
        "price",
        "cost",
        "quality",
        "standard",
        "judge",
        "priority",
        "prioritize",
        "most important",
        "标准",
        "偏好",
        "排名",
        "价格",
        "预算",
        "更看重",
        "衡量",
        "最看重",
        "优先",
        "指标",
        "性价比",
    ),
    "scope": (
        "scope",
        "aspect",
        "aspects",
        "kind of",
        "type of",
        "types of",
        "which type",
        "what kind",
        "what sort",
        "level",
        "for whom",
        "audience",
        "purpose",
        "use case",
        "degree",
        "how much detail",
        "范围",
        "方面",
        "类型",
        "哪类",
        "哪种",
        "用途",
        "目的",
        "层次",
        "什么样的",
        "哪方面",
        "学历",
    ),
    "entity": (
        "which one",
        "specific",
        "specifically",
        "which product",
        "which company",
        "which organisation",
        "which organization",
        "which person",
        "which team",
        "which model",
        "brand",
        "name",
        "which brand",
        "who",
        "which version",
        "which game",
        "which film",
        "which book",
        "哪一个",
        "具体",
        "哪家",
        "哪款",
        "哪位",
        "品牌",
        "名称",
        "哪个公司",
        "谁",
        "哪部",
        "哪个版本",
    ),
}


def _has(text: str, keyword: str) -> bool:
    if re.search(r"[\u4e00-\u9fff]", keyword):
        return keyword in text
    return re.search(rf"(?<![\w-]){re.escape(keyword)}(?![\w-])", text) is not None


def classify_aspects(question: str) -> list[str]:
    """Every aspect the clarification question asks about, in ASPECT_ORDER; ["other"] if none."""
    text = question.casefold()
    found = [a for a in ASPECT_ORDER if any(_has(text, kw) for kw in _KEYWORDS[a])]
    return found or ["other"]


def classify_question(question: str) -> str:
    """The first aspect of the question (see classify_aspects)."""
    return classify_aspects(question)[0]


def is_region_only(aspects: list[str]) -> bool:
    """Region is the question's only aspect (paper 001 §6.2, Table 5)."""
    return list(aspects) == ["region"]
