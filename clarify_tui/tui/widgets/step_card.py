"""One trajectory step as a compact card: who acted, what they did, what came back.

Rendering is a pure function of the Step (plus the spoiler and unfold flags), so the same
card shows a live step and a stored one (replay reads Step rows from the Store). The
trajectory widget renders these cards line by line (`widgets/trajectory.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import takewhile
from typing import NamedTuple

from rich.console import Console, Group
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.color import Color

from clarify_tui.models import Action, ActionKind, Observation, SearchHit, Step
from clarify_tui.plural import plural
from clarify_tui.protocols.cts.rules import user_reply
from clarify_tui.tui import glyphs
from clarify_tui.tui.widgets.text_lines import render_lines

ACTOR_STYLE = {"agent": "bold cyan", "user": "bold magenta", "environment": "bold yellow", "judge": "bold green"}
HUMAN_MADE = {"edited": "edited by a person", "replaced": "typed by a person"}
FOLD_LINES = 3
FOLD_HITS = 3
SNIPPET = 110
MARKER = "█"  # the current (or guessed) step's left edge in replay (a thick border)


def fold(text: str, expanded: bool, lines: int = FOLD_LINES, width: int = 400) -> str:
    """Long content folds to a few lines unless the card is expanded."""
    if expanded:
        return text
    parts = text.splitlines() or [""]
    out = [p if len(p) <= width else p[: width - 1] + "…" for p in parts[:lines]]
    if len(parts) > lines:
        out.append(f"… ({plural(len(parts) - lines, 'more line')})")
    return "\n".join(out)


def answer_verdict(step: Step, after: Sequence[Step] = ()) -> bool | None:
    """The judge's verdict on an agent's answer, from the judge steps right `after` it (a
    final answer's is recorded after the answer step; a DiscoBench checkpoint answer's
    observation is the same words right or wrong); None: not judged, or not yet."""
    if step.actor != "agent" or step.action.kind != ActionKind.answer:
        return None
    if "correct" in step.observation.data:
        return bool(step.observation.data["correct"])
    judges = list(takewhile(lambda s: s.actor == "judge", after))
    for judge in judges:
        if "correct" in judge.observation.data:
            return bool(judge.observation.data["correct"])
    checkpoint = step.observation.data.get("checkpoint")
    for judge in judges:
        data = judge.observation.data
        if checkpoint is not None and data.get("checkpoint") == checkpoint and "status" in data:
            return data["status"] == "passed"
    return None


def action_icon(action: Action, verdict: bool | None = None) -> str:
    """The action's icon; an answer's says right or wrong only once judged (and shown)."""
    if action.kind == ActionKind.answer and verdict is not None:
        return glyphs.icon("answer-right" if verdict else "answer-wrong")
    return glyphs.icon(action.kind.value)


def action_line(action: Action, verdict: bool | None = None) -> Text:
    """The action's kind and content on one line (also used for the pending action)."""
    line = Text()
    line.append(f"{action_icon(action, verdict)} {action.kind.value} ", style="bold")
    if action.kind == ActionKind.clarify:
        if not action.items:
            line.append("(no questions: orig baseline)", style="dim")
        for i, q in enumerate(action.items, 1):
            line.append(f"\n   {i}. {q}")
    elif action.kind == ActionKind.answer:
        line.append(action.text)
        if action.confidence is not None:
            line.append(f"  (confidence {action.confidence:g})", style="dim")
    elif action.kind == ActionKind.invalid:
        line.append(action.raw or action.text or "", style="red")
    else:
        line.append(action.text)
    return line


def hits_line(obs: Observation) -> str:
    """A search's "N results" as drawn: "1 result" for one (the engine's words to the agent,
    part of its prompt, stay as they are)."""
    return plural(len(obs.hits), "result") if obs.text == f"{len(obs.hits)} results" else obs.text


def usage_text(step: Step) -> Text:
    bits = []
    if step.tokens_in or step.tokens_out:
        bits.append(f"{step.tokens_in}→{step.tokens_out} tok")
    bits.append(f"{step.latency_ms:,.0f} ms")
    return Text(" · ".join(bits), style="dim")


class _Folder:
    """Folds a card's long content unless the card is unfolded, and notes whether folding
    cut anything: only then does unfolding change the card (`folds`)."""

    def __init__(self, expanded: bool) -> None:
        self.expanded = expanded
        self.cut = False

    def text(self, text: str, lines: int = FOLD_LINES) -> str:
        folded = fold(text, False, lines)
        self.cut = self.cut or folded != text
        return text if self.expanded else folded

    def hits(self, hits: list[SearchHit]) -> list[SearchHit]:
        self.cut = self.cut or len(hits) > FOLD_HITS
        return hits if self.expanded else hits[:FOLD_HITS]

    def snippet(self, content: str) -> str:
        clipped = _clip(content, SNIPPET)
        self.cut = self.cut or clipped != content
        return content if self.expanded else clipped


def render_step(step: Step, *, reveal: bool = True, expanded: bool = False, after: Sequence[Step] = ()) -> Group:
    """The card of `step`: a head line (who, what, usage) and what came back. `after`: the
    steps after it (an answer's icon follows the judge steps that follow it)."""
    return _render(step, reveal, _Folder(expanded), after)


def folds(step: Step, *, reveal: bool) -> bool:
    """Whether unfolding changes the card (long text, more hits): only such cards are drawn
    again on unfold all. `draw_card` says it too, at no extra cost."""
    folder = _Folder(False)
    _render(step, reveal, folder)
    return folder.cut


def _render(step: Step, reveal: bool, folder: _Folder, after: Sequence[Step] = ()) -> Group:
    head = Text()
    head.append(f"#{step.index:<3}" + (" " if step.index >= 100 else ""), style="dim")  # "#120 agent"
    head.append(f"{step.actor:<6} ", style=ACTOR_STYLE.get(step.actor, "bold"))
    replying = step.actor == "user" and step.action.kind == ActionKind.reply
    question, reply = user_reply(step) if replying else (None, "")
    verdict = answer_verdict(step, after) if reveal else None
    head.append_text(action_line(Action(kind=ActionKind.reply, text=reply) if replying else step.action, verdict))
    if step.action.human:
        head.append(f"  ✎ {HUMAN_MADE[step.action.human]}", style="bold magenta")
    head.append("  ")
    head.append_text(usage_text(step))
    body: list = [head]
    obs = step.observation
    if step.error:
        body.append(Text("   ⚠ " + folder.text(step.error), style="red"))
    elif step.action.kind == ActionKind.search:
        body.append(Text(f"   {hits_line(obs)}", style="dim"))
        if obs.data.get("search_failed"):  # --compat reference: why the agent saw "Search failed"
            body.append(Text("   ⚠ " + folder.text(str(obs.data["search_failed"]), 1), style="red"))
        hits = folder.hits(obs.hits)
        for number, hit in enumerate(hits, 1):  # numbered: `v 2` visits the second
            card = Text(f"   ▸ {number}. ")
            card.append(hit.title, style="bold")
            card.append(f"  {hit.url}", style="dim underline")
            card.append(f"  {hit.score:.2f}", style="dim")
            snippet = folder.snippet(hit.content)
            card.append(f"\n     {snippet}", style="italic")
            body.append(card)
        if len(obs.hits) > len(hits):
            body.append(Text(f"   … {plural(len(obs.hits) - len(hits), 'more hit')} (click to unfold)", style="dim"))
    elif step.action.kind == ActionKind.clarify and obs.items:
        for i, reply in enumerate(obs.items, 1):
            style = "yellow" if reply.strip().casefold() == "unknown" else ""
            body.append(Text(f"   ↩ {i}. {reply}", style=style))
    elif step.actor == "judge":
        body.append(Text(f"   ⇒ {obs.text}", style="green"))
    elif step.action.kind == ActionKind.answer:
        if reveal and "correct" in obs.data:
            ok = obs.data["correct"]
            body.append(Text("   ⇒ correct" if ok else "   ⇒ wrong", style="green" if ok else "red"))
    elif replying:
        if question:
            body.append(Text(f"   to: {folder.text(question, 1)}", style="dim"))
        if reveal and obs.data.get("released_clue"):
            body.append(Text("   (clue released)", style="magenta"))
        if obs.data.get("fault"):  # --compat reference: a failed call read as "i don't know"
            body.append(Text("   ⚠ " + folder.text(obs.text, 1), style="red"))
    elif obs.text:
        body.append(Text("   ↩ " + folder.text(obs.text), style="italic"))
    return Group(*body)


def _clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


FUTURE_OPACITY = 0.45  # replay: steps after the cursor are faded to this


class Card(NamedTuple):
    """A card drawn: its lines (segments, each line `width` cells), and whether unfolding
    changes it (else these lines are the card either way). The lines become Strips only
    as they are shown (`Trajectory.render_line`): a Strip is built with seven caches of
    its own, and unfold all on 200 steps made ~1,700 of them for ~45 lines in view."""

    lines: list[list[Segment]]
    folds: bool


def draw_card(
    step: Step,
    marks: set[str],
    style: Callable[[str], Style],
    console: Console,
    width: int,
    *,
    reveal: bool,
    expanded: bool,
    gap: int,
    after: Sequence[Step] = (),
) -> Card:
    """`step` as strips in the colours of its actor, error and replay mark (`marks`);
    `style(name)` is the trajectory's component style ("" for its own)."""
    base = style("")
    if step.actor == "judge":
        base += style("trajectory--judge")
    if step.error:
        base += Style(bgcolor=style("trajectory--error").bgcolor)
    marker = None
    if "current" in marks or "guess" in marks:
        marker = style("trajectory--" + "-".join(n for n in ("guess", "current") if n in marks))
        base += Style(bgcolor=marker.bgcolor)
    folder = _Folder(expanded)
    card = _render(step, reveal, folder, after)
    return Card(
        card_lines(
            card, console, width, base, marker=marker, gap=gap, fade=FUTURE_OPACITY if "future" in marks else None
        ),
        folder.cut,
    )


def card_lines(
    card: Group,
    console: Console,
    width: int,
    base: Style,
    *,
    marker: Style | None = None,
    gap: int = 1,
    fade: float | None = None,
) -> list[list[Segment]]:
    """A rendered card as `width`-wide lines of segments on `base`, with `gap` blank lines
    below; a `marker` (replay's current step) draws a coloured left edge, `fade` (replay's
    later steps) moves every colour that far towards the background."""
    edge = Segment(MARKER, base + Style(color=marker.color)) if marker else None
    inner = width - (1 if edge else 0)
    lines = render_lines(card.renderables, console, inner, base)  # as console.render_lines, quicker
    lines += [[Segment(" " * inner, base)]] * gap
    if edge:
        lines = [[edge, *line] for line in lines]
    if fade is not None:
        background = Color.from_rich_color(base.bgcolor)
        lines = [_faded(line, background, fade) for line in lines]
    return lines


def _faded(line: list[Segment], background: Color, opacity: float) -> list[Segment]:
    out = []
    for text, style, control in line:
        if style is not None and style.color is not None:
            back = Color.from_rich_color(style.bgcolor) if style.bgcolor else background
            fore = Color.from_rich_color(style.color, ansi=False)
            style += Style(color=back.blend(fore, opacity).rich_color)
        out.append(Segment(text, style, control))
    return out
