"""Clarification-question aspect classifier (Clarify-Then-Search §6.2).

Maps a clarification question to the aspect it asks about: time, region, entity, scope,
criteria, or other. It feeds the rule user answerer (which slot to read) and the
`cq_region_rate` diagnostics. Keyword rules in English and Chinese; the first matching
aspect in ASPECT_ORDER wins. Limits: it reads words, not meaning, so a question that
mentions two aspects is filed under the earlier one in ASPECT_ORDER.
"""

from __future__ import annotations

import re

ASPECTS = ("time", "region", "entity", "scope", "criteria", "other")
ASPECT_ORDER = ("region", "time", "criteria", "scope", "entity")

_KEYWORDS: dict[str, tuple[str, ...]] = {
    "region": (
        "region", "country", "countries", "city", "cities", "province", "state", "location",
        "located", "where", "area", "place", "continent", "local", "nationwide",
        "地区", "哪里", "城市", "国家", "省", "地点", "位置", "哪个地方", "区域",
    ),
    "time": (
        "when", "year", "years", "time", "period", "date", "era", "decade", "season",
        "recent", "latest", "current", "month", "century",
        "时间", "哪一年", "年份", "时期", "日期", "什么时候", "最新", "年代",
    ),
    "criteria": (
        "criterion", "criteria", "matters most", "prefer", "preference", "ranking", "rank",
        "measure", "metric", "best by", "budget", "price", "cost", "quality", "standard",
        "标准", "偏好", "排名", "价格", "预算", "更看重", "衡量",
    ),
    "scope": (
        "scope", "aspect", "kind of", "type of", "which type", "what kind", "level", "for whom",
        "audience", "purpose", "范围", "方面", "类型", "哪类", "哪种", "用途", "目的",
    ),
    "entity": (
        "which one", "specific", "which product", "which company", "which organisation",
        "which organization", "which person", "which team", "which model", "brand", "name",
        "哪一个", "具体", "哪家", "哪款", "哪位", "品牌", "名称",
    ),
}


def _has(question: str, keyword: str) -> bool:
    if re.search(r"[\u4e00-\u9fff]", keyword):
        return keyword in question
    return re.search(rf"\b{re.escape(keyword)}\b", question) is not None


def classify_question(question: str) -> str:
    """The aspect a clarification question asks about (one of ASPECTS)."""
    text = question.casefold()
    for aspect in ASPECT_ORDER:
        if any(_has(text, kw) for kw in _KEYWORDS[aspect]):
            return aspect
    return "other"

