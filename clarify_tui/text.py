"""Text normalisation shared by the rule components and the local search.

Why one module: the search index, the rule judges and the rule simulators must agree on
what a "word" is, or a target found by search would not be recognised by the judge.
Chinese has no spaces, so CJK runs become overlapping character bigrams.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_]+", re.UNICODE)
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")

STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being
    it its this that these those which who whom whose what when where why how do does did
    has have had as about into than then there their they them he she his her i you your
    me my we our us can could would should will shall may might must not no yes if so
    one ones any some all more most other such only also very just do you mean
    的 了 是 在 和 与 或 吗 呢 哪 个 一 这 那 有 也 都 就 被 把""".split()
)


@lru_cache(maxsize=1)
def _t2s():
    from opencc_purepy import OpenCC

    return OpenCC("t2s")


def normalize(text: str) -> str:
    """Fold case, full/half width (NFKC) and traditional to simplified Chinese."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    if re.search(f"[{_CJK}]", folded):
        folded = _t2s().convert(folded)
    return folded


def strip_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def tokens(text: str) -> list[str]:
    """Words for Latin script, overlapping bigrams (or the single char) for CJK runs."""
    out: list[str] = []
    for match in _TOKEN.findall(strip_accents(normalize(text))):
        if _CJK_RUN.match(match):
            if len(match) == 1:
                out.append(match)
            else:
                out.extend(match[i : i + 2] for i in range(len(match) - 1))
        else:
            out.append(match)
    return out


def content_words(text: str) -> list[str]:
    """Tokens minus stopwords, order kept, duplicates dropped."""
    seen: dict[str, None] = {}
    for tok in tokens(text):
        if tok not in STOPWORDS and tok not in seen:
            seen[tok] = None
    return list(seen)


def canonical(text: str) -> str:
    """A comparison key: normalised tokens joined by single spaces (no punctuation)."""
    return " ".join(_TOKEN.findall(strip_accents(normalize(text))))


def mentions(haystack: str, needle: str) -> bool:
    """Whether `needle` appears in `haystack` as whole words (CJK: as a substring)."""
    hay, need = canonical(haystack), canonical(needle)
    if not need:
        return False
    if re.search(f"[{_CJK}]", need):
        return need.replace(" ", "") in hay.replace(" ", "")
    return f" {need} " in f" {hay} "


def overlap(words: list[str], text: str) -> float:
    """Share of `words` found among the tokens of `text` (0 when `words` is empty)."""
    if not words:
        return 0.0
    present = set(tokens(text))
    return sum(1 for w in words if w in present) / len(words)
