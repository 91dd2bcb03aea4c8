"""What a work-queue item shows (store/work.py's payloads), as Rich text.

Only the fields the payload contract names are drawn, each under a plain heading: an audit
item's simulator reply or a labels item's outcome never reaches the screen, even if a
payload carried one. Two parts: the context (scrolls) and the focus (always in view: the
agent's ask to reply to, or the decision point to label).
"""

from __future__ import annotations

from typing import Any

from rich.text import Text

HEADING = "bold cyan"
FOCUS = "bold yellow"


def _heading(text: Text, title: str) -> None:
    if text.plain:
        text.append("\n\n")
    text.append(title, style=HEADING)
    text.append("\n")


def _str(value: Any) -> str:
    return "" if value is None else str(value)


def context_text(payload: dict[str, Any]) -> Text:
    """The task's question and what leads up to the focus."""
    text = Text()
    _heading(text, "The task's question")
    text.append(_str(payload.get("question")) or "(none)")
    if payload.get("kind") == "labels":
        _heading(text, "The session so far (what the agent had seen)")
        steps = payload.get("steps") or []
        if not steps:
            text.append("(nothing yet: this is the agent's first move)", style="dim")
        for n, step in enumerate(steps):
            if n:
                text.append("\n")
            text.append(f"step {_str(step.get('index'))} · {_str(step.get('actor'))} {_str(step.get('kind'))}: ", "dim")
            text.append(_str(step.get("text")))
        return text
    _heading(text, "What the user knows (all the simulator was shown)")
    sees = payload.get("user_sees") or []
    if not sees:
        text.append("(nothing beyond the question)", style="dim")
    for n, part in enumerate(sees):
        if n:
            text.append("\n")
        text.append(f"{_str(part.get('label'))}: ", style="bold")
        text.append(_str(part.get("text")))
    before = payload.get("before") or []
    if before:
        _heading(text, "Earlier in this session")
        for n, exchange in enumerate(before):
            if n:
                text.append("\n")
            text.append("agent asked: ", style="dim")
            text.append(_str(exchange.get("ask")))
            text.append("\nuser replied: ", style="dim")
            text.append(_str(exchange.get("reply")))
    return text


def focus_text(payload: dict[str, Any]) -> Text:
    """The ask to answer (audit) or the decision to label (labels)."""
    text = Text()
    if payload.get("kind") == "labels":
        decision = payload.get("decision") or {}
        text.append(f"Decision point · step {_str(decision.get('index'))}: the agent chose to ", style=FOCUS)
        text.append(_str(decision.get("kind")) or "act", style=FOCUS)
        text.append("\n")
        text.append(_str(decision.get("text")))
        return text
    text.append("The agent asks the user:", style=FOCUS)
    text.append("\n")
    text.append(_str(payload.get("ask")))
    return text


def prompt_text(payload: dict[str, Any]) -> Text:
    """What the person is asked, right above the answer (never scrolled away)."""
    if payload.get("kind") == "labels":
        return Text("Should the agent have asked the user here instead?", style="bold")
    return Text("Reply as the user would, from what the user knows.", style="bold")


def choices(payload: dict[str, Any]) -> list[str]:
    """An audit item's reply choices ([] for a free-text reply or a labels item)."""
    reply = payload.get("reply") or {}
    if payload.get("kind") != "audit" or reply.get("type") != "choice":
        return []
    return [str(c) for c in reply.get("choices") or []][:9]  # keys 1-9
