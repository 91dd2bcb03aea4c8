"""What an InteractComp context sentence says about a yes/no ask: yes, no, or nothing.

Why: the offline user must not answer "yes" to a fact its context negates ("Was he the
mission commander?" against "He was not the mission commander."). Word overlap alone
cannot see the "not", so each context sentence is read clause by clause:

- a question word *matches* a sentence word when they are equal, share a stem of 5+
  letters, or score >= 85 on rapidfuzz's ratio ("commander" / "command", "file" / "filed");
  a hyphenated word ("Coca-Cola") is one word; Chinese is compared as character bigrams;
- a sentence *covers* the ask when >= 60 % of the ask's content words match in it;
- a matched word is *negated* when every occurrence of it in the sentence stands after a
  negation cue (not, never, no, n't, without, neither, nor; 不, 没有, 没, 未, 并非, 从未)
  in the same clause (clauses end at , ; : and "but"); Chinese cues are taken out of the
  text before it is cut into bigrams, so "它不在北京" holds the bigrams of "它在北京";
- a sentence *contradicts* the ask when its other words match but a year, number, ordinal
  or month differs ("born in 1847?" against "born in Ohio in 1835").

The best-covering sentence decides: negated or contradicting -> "no" (only when >= 75 %
of the ask's words match, so a negated sentence about something narrower is not taken
for the ask); otherwise "yes". A negated question is read as its affirmative ("Wasn't he
the commander?" is answered as "Was he the commander?"). Limits: surface words, not
meaning; a contradiction stated only by a different name ("directed by Michael Bay?"
against "directed by Mimi Leder") gets no reply here, so the user says "i don't know".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rapidfuzz import fuzz

from clarify_tui.text import STOPWORDS, normalize, strip_accents

COVER = 0.6  # share of the ask's words a sentence must hold to say "yes"
COVER_NO = 0.75  # ... to say "no" (a negation about something narrower is not the ask)
_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+(?:-[^\W_{_CJK}]+)*", re.UNICODE)  # "coca-cola" is one word
_CJK_RUN = re.compile(rf"^[{_CJK}]+$")
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s*")
_CLAUSE = re.compile(r"[,;:，；：、]|\bbut\b")
_NEGATION = re.compile(r"\b(?:not|never|no|neither|nor|without)\b|n't")
_NEGATION_ZH = re.compile(r"并非|从未|从不|没有|[不没未]")
_NOT_IN_ASK = re.compile(r"n't\b|\b(?:not|never)\b")
_QUESTION_TAIL = re.compile(r"(?:了吗|吗|呢|吧|么)?\s*[?？]?\s*$")
_ORDINALS = frozenset("first second third fourth fifth sixth seventh eighth ninth tenth last".split())
_MONTHS = frozenset("january february march april may june july august september october november december".split())
_YEAR = re.compile(r"(?<!\d)(1\d{3}|20\d{2})(?!\d)")
_NUMBER = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class _Token:
    text: str
    start: int  # offset in the normalised sentence


def _tokens(text: str) -> list[_Token]:
    """Words (Latin) and character bigrams (CJK) with their offsets; 1-letter Latin
    words and stopwords dropped (they carry no fact)."""
    out: list[_Token] = []
    for m in _TOKEN.finditer(text):
        word = m.group()
        if _CJK_RUN.match(word):
            if len(word) == 1:
                if word not in STOPWORDS:
                    out.append(_Token(word, m.start()))
                continue
            out.extend(_Token(word[i : i + 2], m.start() + i) for i in range(len(word) - 1))
        elif word not in STOPWORDS and (len(word) > 1 or word.isdigit()):
            out.append(_Token(word, m.start()))
    return out


def _norm(text: str) -> str:
    return strip_accents(normalize(text))


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() or b.isdigit() or _CJK_RUN.match(a) or _CJK_RUN.match(b):
        return False
    if len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5]:
        return True
    return min(len(a), len(b)) >= 4 and fuzz.ratio(a, b) >= 85


def _kind(word: str) -> str | None:
    """The value class of a word that can contradict another of its class."""
    if _YEAR.fullmatch(word.rstrip("年")):
        return "year"
    if _NUMBER.fullmatch(word):
        return "number"
    if word in _ORDINALS:
        return "ordinal"
    if word in _MONTHS:
        return "month"
    return None


def _without_cues(sentence: str) -> tuple[str, list[tuple[int, int]]]:
    """The sentence with its Chinese negation cues taken out, and (start, end) of the
    text after each negation cue up to its clause's end (offsets in the returned text)."""
    cues = [m.end() for m in _NEGATION.finditer(sentence)]  # Latin cues stay (not words of a fact)
    parts, cut, last = [], 0, 0
    for m in _NEGATION_ZH.finditer(sentence):
        parts.append(sentence[last : m.start()])
        cues.append(m.start() - cut)  # where the cue stood, in the text without cues
        cut += m.end() - m.start()
        last = m.end()
    text = "".join(parts) + sentence[last:]
    bounds = [*(m.end() for m in _CLAUSE.finditer(text)), len(text) + 1]
    return text, [(at, next(b for b in bounds if b > at)) for at in cues]


@dataclass(frozen=True, slots=True)
class Reading:
    cover: float  # share of the ask's words the sentence holds
    negated: bool  # a matched word stands only in negated clauses
    contradicts: bool  # a year / number / ordinal / month differs


def read_sentence(ask: list[str], sentence: str) -> Reading:
    """How one context sentence bears on the ask's words (see the module docstring)."""
    text, spans = _without_cues(_norm(sentence))
    words = _tokens(text)
    matched, negated, clash = 0, False, False
    for q in ask:
        hits = [w for w in words if _same(q, w.text)]
        if hits:
            matched += 1
            if spans and all(any(a <= w.start < b for a, b in spans) for w in hits):
                negated = True
        elif (kind := _kind(q)) and any(_kind(w.text) == kind for w in words):
            clash = True
    valued = sum(1 for q in ask if _kind(q))
    others = len(ask) - valued
    contradicts = clash and others > 0 and matched >= COVER * others
    return Reading(matched / len(ask) if ask else 0.0, negated, contradicts)


def ask_words(question: str) -> list[str]:
    """The ask's content words (question particles and the question mark dropped)."""
    seen: dict[str, None] = {}
    asked = _NOT_IN_ASK.sub(" ", _norm(_QUESTION_TAIL.sub("", question.strip())))
    for t in _tokens(asked):
        seen.setdefault(t.text, None)
    return list(seen)


def sentences(context: str) -> list[str]:
    return [s for s in _SENTENCE.split(context) if s.strip()]


def context_reply(question: str, context: str) -> bool | None:
    """True (the context says so), False (it says otherwise) or None (it does not say)."""
    ask = ask_words(question)
    if not ask:
        return None
    readings = [read_sentence(ask, s) for s in sentences(context)]
    if any(r.contradicts for r in readings):
        return False
    best = max(readings, key=lambda r: (r.cover, not r.negated), default=None)
    if best is None or best.cover < COVER:
        return None
    if best.negated:
        return False if best.cover >= COVER_NO else None
    return True
