"""What a fused (intent) query states that its blurred query lacks, by aspect.

The closed-book User Answerer may answer only from what the intent query states (paper
001 line 121; Prompt B, line 469). The released data has no intent slots, so the rule
user reads the difference itself: the words of the fused query that the blurred query
does not have (difflib over words; over characters for Chinese), cut into phrases at
prepositions, each phrase labelled time / region / criteria / entity / scope by surface
cues. A clarification question is answered with the phrases of the aspects it asks
about, else `unknown`.

Limits: surface cues, not meaning. A place is recognised by a small gazetteer or by
"in/at/near" + a capitalised name; a phrase with no time, place or criterion cue is an entity when it has
a capitalised name, scope when it opens with for/with/about/..., else unused. The answer
is the short value (a year, a place, a name, the phrase). Questions of aspect "other"
get `unknown`. A time phrase that holds a name ("2014 FIFA World Cup") also answers an
entity question, whole.
"""

from __future__ import annotations

import difflib
import re

UNKNOWN = "unknown"
_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORD = re.compile(r"[\w][\w'’.-]*|[^\w\s]")
_SPLIT_BEFORE = {
    "in",
    "at",
    "on",
    "for",
    "during",
    "since",
    "from",
    "with",
    "by",
    "near",
    "across",
    "throughout",
    "and",
    "after",
    "before",
    "between",
    "within",
    "about",
    "regarding",
    "under",
    "over",
    "among",
}
_PLACE_PREPS = {"in", "at", "near", "across", "throughout", "within", "from"}
_LEADING_DROP = _SPLIT_BEFORE | {"the", "a", "an", "of", "to", "that", "which", "are", "is"}
_SCOPE_PREPS = {"for", "with", "about", "regarding", "on", "of", "among", "under", "within"}
_NOT_NAMES = {
    "why",
    "what",
    "how",
    "when",
    "where",
    "who",
    "which",
    "did",
    "does",
    "do",
    "is",
    "are",
    "was",
    "the",
    "a",
    "an",
    "in",
    "for",
    "i",
    "best",
    "top",
}
_MONTHS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
_TIME_WORDS = {
    "recent",
    "recently",
    "latest",
    "current",
    "currently",
    "today",
    "now",
    "this year",
    "last year",
    "next year",
    "nowadays",
    "upcoming",
    "century",
    "decade",
    "yesterday",
}
_PLACES = {
    "europe",
    "asia",
    "africa",
    "america",
    "north america",
    "south america",
    "latin america",
    "oceania",
    "antarctica",
    "middle east",
    "scandinavia",
    "the us",
    "us",
    "usa",
    "u.s.",
    "united states",
    "uk",
    "united kingdom",
    "britain",
    "england",
    "scotland",
    "wales",
    "ireland",
    "china",
    "japan",
    "korea",
    "south korea",
    "india",
    "germany",
    "france",
    "italy",
    "spain",
    "portugal",
    "netherlands",
    "belgium",
    "switzerland",
    "austria",
    "sweden",
    "norway",
    "denmark",
    "finland",
    "poland",
    "russia",
    "ukraine",
    "turkey",
    "greece",
    "canada",
    "mexico",
    "brazil",
    "argentina",
    "chile",
    "australia",
    "new zealand",
    "singapore",
    "malaysia",
    "indonesia",
    "thailand",
    "vietnam",
    "philippines",
    "taiwan",
    "hong kong",
    "egypt",
    "nigeria",
    "kenya",
    "south africa",
    "israel",
    "iran",
    "saudi arabia",
    "uae",
    "dubai",
    "california",
    "texas",
    "new york",
    "london",
    "paris",
    "berlin",
    "tokyo",
    "beijing",
    "shanghai",
    "hokkaido",
    "kyoto",
}
_CRITERIA_WORDS = {
    "cheapest",
    "cheap",
    "affordable",
    "price",
    "prices",
    "budget",
    "cost",
    "best-rated",
    "highest",
    "lowest",
    "ranking",
    "ranked",
    "rated",
    "quality",
    "fastest",
    "safest",
    "most popular",
    "top",
    "best value",
    "under",
    "below",
}
_ZH_TIME = re.compile(r"\d{2,4}年|\d{1,2}月|\d{1,2}日|今年|去年|明年|最近|近期|最新|目前|现在|当前|年代|世纪")
_ZH_PLACES = (
    "中国",
    "国内",
    "国外",
    "海外",
    "北京",
    "上海",
    "广州",
    "深圳",
    "杭州",
    "成都",
    "武汉",
    "南京",
    "西安",
    "重庆",
    "天津",
    "香港",
    "台湾",
    "澳门",
    "欧洲",
    "美国",
    "日本",
    "韩国",
    "英国",
    "法国",
    "德国",
    "亚洲",
    "非洲",
    "国产",
    "本地",
    "省",
    "市",
    "县",
    "区",
    "州",
)
_ZH_CRITERIA = ("性价比", "便宜", "价格", "预算", "排名", "最好", "最高", "最低", "口碑", "评分")


def _is_zh(text: str) -> bool:
    return bool(_CJK.search(text))


def added_phrases(blurred: str, fused: str) -> list[str]:
    """The phrases of `fused` that `blurred` does not have, in order."""
    if _is_zh(fused):
        a, b = list(blurred), list(fused)
        joiner = ""
    else:
        a, b = _WORD.findall(blurred), _WORD.findall(fused)
        joiner = " "
    matcher = difflib.SequenceMatcher(None, [t.casefold() for t in a], [t.casefold() for t in b], autojunk=False)
    spans = [b[j1:j2] for op, _, _, j1, j2 in matcher.get_opcodes() if op in ("insert", "replace")]
    phrases: list[str] = []
    for span in spans:
        if joiner:
            phrases += _split_english(span)
        else:
            phrases += _split_chinese("".join(span))
    return [p for p in phrases if p]


def _split_chinese(text: str) -> list[str]:
    """Cut at 的 / punctuation and around time expressions: 2023年性价比最高的国产 -> 2023年 | 性价比最高 | 国产."""
    parts = []
    for chunk in re.split(r"[的，。？?、,]+|(?<![现存实正])在", text):
        parts += [p for p in re.split(f"({_ZH_TIME.pattern})", chunk) if p]
    return [p.lstrip("和与及 ").strip() for p in parts if p.lstrip("和与及 ").strip()]


def _split_english(tokens: list[str]) -> list[str]:
    out: list[list[str]] = [[]]
    for tok in tokens:
        if tok.casefold() in _SPLIT_BEFORE and out[-1]:
            out.append([])
        if re.fullmatch(r"[^\w]+", tok) and tok not in ("'", "’"):
            if out[-1]:
                out.append([])
            continue
        out[-1].append(tok)
    return [" ".join(p) for p in out if any(re.search(r"\w", t) for t in p)]


def phrase_aspect(phrase: str) -> str:
    """time | region | criteria | entity | scope, from surface cues."""
    if _is_zh(phrase):
        if _ZH_TIME.search(phrase):
            return "time"
        if any(p in phrase for p in _ZH_PLACES):
            return "region"
        if any(c in phrase for c in _ZH_CRITERIA):
            return "criteria"
        return "entity" if re.search(r"[A-Za-z]", phrase) else "scope"  # a Latin name: iPhone 15 Pro
    words = phrase.split()
    low = phrase.casefold()
    if (
        re.search(r"\b(1[5-9]\d\d|20\d\d)s?\b", low)
        or any(w.casefold() in _MONTHS for w in words)
        or any(re.search(rf"\b{re.escape(t)}\b", low) for t in _TIME_WORDS)
    ):
        return "time"
    bare = _strip(phrase).casefold()
    if bare in _PLACES or any(re.search(rf"\b{re.escape(p)}\b", low) for p in _PLACES if " " in p):
        return "region"
    if words and words[0].casefold() in _PLACE_PREPS and len(words) > 1 and words[1][:1].isupper():
        return "region"
    if any(re.search(rf"\b{re.escape(c)}\b", low) for c in _CRITERIA_WORDS):
        return "criteria"
    if _names(phrase):
        return "entity"
    if words and words[0].casefold() in _SCOPE_PREPS:
        return "scope"
    return "other"


def _names(phrase: str) -> list[str]:
    """Runs of capitalised words (question words and articles left out)."""
    runs, run = [], []
    for word in phrase.split():
        if word[:1].isupper() and word.casefold() not in _NOT_NAMES:
            run.append(word)
        elif run:
            runs.append(" ".join(run))
            run = []
    return runs + ([" ".join(run)] if run else [])


def _value(phrase: str, aspect: str, zh: bool) -> str:
    """The short answer a phrase gives for its aspect (a year, a place, a name)."""
    if zh:
        return phrase
    if aspect == "time":
        m = re.search(rf"((?:{'|'.join(_MONTHS)})\.?\s+)?(\d{{1,2}}\s+)?(1[5-9]\d\d|20\d\d)s?", phrase, re.I)
        return m.group(0) if m else _strip(phrase)
    if aspect == "region":
        low = phrase.casefold()
        for place in sorted(_PLACES, key=len, reverse=True):
            if m := re.search(rf"\b{re.escape(place)}\b", low):
                return phrase[m.start() : m.end()]
        names = _names(phrase)
        return names[0] if names else _strip(phrase)
    if aspect == "entity":
        return ", ".join(_names(phrase))
    return _strip(phrase)


def _strip(phrase: str) -> str:
    words = phrase.split()
    while len(words) > 1 and words[0].casefold() in _LEADING_DROP:
        words.pop(0)
    return " ".join(words)


def answer_from_fused(aspects: list[str], blurred: str, fused: str) -> str:
    """The added phrases of the asked aspects, joined; `unknown` when there are none."""
    found = []
    for phrase in added_phrases(blurred, fused):
        aspect = phrase_aspect(phrase)
        if (
            aspect == "time"
            and "entity" in aspects
            and not _is_zh(fused)
            and any(w.casefold() not in _MONTHS for name in _names(phrase) for w in name.split())
        ):
            aspect = "entity-with-year"  # "2014 FIFA World Cup": a named event, its year part of the name
        if aspect == "entity-with-year":
            value = _strip(phrase)
        elif aspect in aspects:
            value = _value(phrase, aspect, _is_zh(fused))
        else:
            continue
        if value and value not in found:
            found.append(value)
    return ", ".join(found) if found else UNKNOWN
