"""Guess a task's language from its text, so judges and prompts pick the right rules.

Only the distinction that matters downstream is made: Chinese (Han characters; answer
matching then folds traditional/simplified and ignores spacing), Japanese (kana),
Korean (Hangul), otherwise English.
"""

from __future__ import annotations


def _is_han(code: int) -> bool:
    return (
        0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0xF900 <= code <= 0xFAFF or 0x20000 <= code <= 0x2FA1F
    )


def detect_language(*texts: str) -> str:
    """'zh', 'ja', 'ko' or 'en'.

    The text counts as CJK when its CJK characters are at least a quarter of its Latin
    letters (one Han character carries about as much as a short English word), so an
    English question quoting one Chinese title stays English.
    """
    han = kana = hangul = latin = 0
    for ch in "".join(texts):
        code = ord(ch)
        if 0x3040 <= code <= 0x30FF:
            kana += 1
        elif 0xAC00 <= code <= 0xD7AF or 0x1100 <= code <= 0x11FF:
            hangul += 1
        elif _is_han(code):
            han += 1
        elif ch.isalpha():
            latin += 1
    cjk = han + kana + hangul
    if cjk == 0 or cjk * 4 < latin:
        return "en"
    if kana:
        return "ja"
    if hangul > han:
        return "ko"
    return "zh"
