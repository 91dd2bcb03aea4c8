"""Icons that every terminal can draw.

Colour emoji (🔎 ❓ ✅ 💬 🌐 🔒) read well in a desktop terminal but come out blank in a
browser or terminal without an emoji font: the campaign's browser page (xterm.js) on a
lab machine is one. The campaign's visitor app switches to text glyphs, drawn by any
monospace font, with `use_text_icons()`; nothing else changes.
"""

from __future__ import annotations

EMOJI = {
    "search": "🔎",
    "ask": "❓",
    "answer": "📝",
    "clarify": "💬",
    "visit": "🌐",
    "reply": "↩",
    "rewrite": "✎",
    "judge": "⚖",
    "invalid": "⚠",
    "locked": "🔒",
    "answer-right": "✅",
    "answer-wrong": "❌",
}
"""`answer` is an answer not judged (yet, or not shown: a human agent's before the end, a
CTS answer scored by nuggets); `answer-right` / `answer-wrong` follow the judge's verdict."""
TEXT = {
    **EMOJI,
    "search": "»",
    "ask": "?",
    "answer": "◆",
    "clarify": "?",
    "visit": "→",
    "locked": "(locked)",
    "answer-right": "✓",
    "answer-wrong": "✗",
}

_icons = EMOJI


def use_text_icons(on: bool = True) -> None:
    """Text glyphs instead of colour emoji for this process (the campaign's visitors)."""
    global _icons
    _icons = TEXT if on else EMOJI


def icon(name: str) -> str:
    return _icons.get(name, "·")
