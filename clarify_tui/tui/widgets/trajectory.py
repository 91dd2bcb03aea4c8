"""The centre region: the list of steps as cards, newest in view, drawn line by line.

A plain line-based scroll view (a `ScrollView` with `render_line`, as Toolong's log view
and Textual's Log): every card is drawn once into strips, cached by what it depends on
(the step, width, spoilers, replay mark) and kept folded and unfolded (a fold toggle is a
swap of lines already drawn), and the widget hands out those lines.
Protocols cap a session at a few dozen steps (10 rounds, 20 for DiscoBench), so every
card is drawn and the scrollbar is always exact; a 200-step session is ~2,000 lines
(benchmarks/bench_tui.py times its keys). `sync` is idempotent and cheap: it appends new
steps and redraws only the last step, which the engine may have re-recorded. Judge steps
are left out while spoilers are hidden.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate, takewhile

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.actions import SkipAction
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from clarify_tui.models import ActionKind, Step
from clarify_tui.tui.speed import set_virtual_size
from clarify_tui.tui.widgets.replay_marks import ReplayMarks
from clarify_tui.tui.widgets.step_card import Card, draw_card


def visible_steps(steps: list[Step], reveal: bool) -> list[Step]:
    """What the trajectory shows: everything, or everything but judge steps."""
    return steps if reveal else [s for s in steps if s.actor != "judge"]


class Trajectory(ScrollView, can_focus=True):
    """Step cards, oldest first; follows the newest step while `follow` is on.

    Replay marks its cursor with `mark` (the current step stands out, later ones fade,
    the guessed step is flagged); a click unfolds or folds one card."""

    COMPONENT_CLASSES = {
        "trajectory--hint",
        "trajectory--judge",
        "trajectory--error",
        "trajectory--current",
        "trajectory--guess",
        "trajectory--guess-current",
    }
    DEFAULT_CSS = """
    Trajectory { overflow-x: hidden; overflow-y: auto; }
    Trajectory > .trajectory--hint { color: $text-muted; }
    Trajectory > .trajectory--judge { color: $text-muted; }
    Trajectory > .trajectory--error { background: $error 10%; }
    Trajectory > .trajectory--current { background: $accent 25%; color: $accent; }
    Trajectory > .trajectory--guess { background: $error 15%; color: $error; }
    Trajectory > .trajectory--guess-current { background: $error 30%; color: $error; }
    """
    GAP = 1  # blank lines below each card

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.reveal = True
        self.expanded = False
        self.follow = True
        self._steps: list[Step] = []  # what is shown, in order
        self._position: dict[int, int] = {}  # step index -> place in `_steps`
        self._drawn: dict[int, tuple[tuple, dict[bool, Card]]] = {}  # step index -> (key, {unfolded: card})
        self._lines: list[list[Segment]] = []  # every card's lines, in order (Strips as they are shown)
        self._offsets: list[int] = [0]  # first line of each card; the last item is the total
        self._toggled: set[int] = set()  # cards unfolded (or folded) by a click
        self._marks = ReplayMarks()
        self._width = 0  # the width the lines were drawn at (0: not laid out yet)
        self._pinned = False  # keep the last line in view as cards grow
        self._wanted: int | None = None  # a step to bring into view once laid out
        self._style_cache: dict[str, Style] = {}

    # ---- the public API --------------------------------------------------------------

    def sync(self, steps: list[Step], reveal: bool) -> None:
        """Show `steps`: append the new ones and redraw the last one shown."""
        if reveal != self.reveal:
            self.reveal = reveal
            self.rebuild(steps)
            return
        wanted = visible_steps(steps, reveal)
        shown = len(self._steps)
        if shown and len(wanted) >= shown and wanted[shown - 1].index == self._steps[-1].index:
            self._steps[-1] = wanted[shown - 1]  # the engine may have re-recorded it (even in place)
            self._drawn.pop(self._steps[-1].index, None)
            new = wanted[shown:]
        else:
            new = [s for s in wanted if s.index not in self._position]
        for step in new:
            self._position[step.index] = len(self._steps)
            self._steps.append(step)
        if new and self.follow:
            self._pinned = True
        self._relayout()

    def rebuild(self, steps: list[Step]) -> None:
        """Forget every card and show `steps` afresh."""
        self._steps, self._position = [], {}
        self._drawn.clear()
        self._toggled.clear()
        self.sync(steps, self.reveal)
        if not self._steps:
            self._relayout()

    def set_expanded(self, expanded: bool) -> None:
        """Unfold (or fold) every card's long content, keeping the card at the top in view."""
        self.expanded = expanded
        self._toggled.clear()
        self._keep_top_card(self._relayout)

    @property
    def folds_anything(self) -> bool:
        """Whether unfolding (or folding) changes any card drawn (`f` says so when not)."""
        return any(card.folds for _key, cards in self._drawn.values() for card in cards.values())

    def mark(self, current: int | None, guess: int | None = None, dim_future: bool = False) -> None:
        """Replay's cursor: step `current` stands out (and is scrolled into view), steps
        after it fade when `dim_future`, step `guess` is flagged as the guess."""
        self._marks.move(current, guess, dim_future)  # each card's key says how it is marked
        self._relayout()
        if current in self._position:
            self.scroll_to_step(current)

    def scroll_to_step(self, index: int) -> None:
        """Bring step `index`'s card into view (its top, if it is taller than the view);
        before the first layout, once laid out."""
        pos = self._position.get(index)
        if pos is None:
            return
        if not self._width:
            self._wanted = index
            return
        top, bottom = self._offsets[pos], self._offsets[pos + 1] - self.GAP
        view = self.scrollable_content_region.height
        y = self.scroll_y
        if top < y or bottom - top > view:
            y = top
        elif bottom > y + view:
            y = bottom - view
        self._pinned = False
        self.scroll_to(y=y, animate=False, immediate=True, force=True)

    @property
    def shown_indexes(self) -> list[int]:
        """The step indexes shown, in order (judge steps are missing while hidden)."""
        return [s.index for s in self._steps]

    def card_text(self, index: int) -> str:
        """Step `index`'s card as plain text, as it is drawn now."""
        lines = self._card(self._steps[self._position[index]], max(self._width, 2))
        return "\n".join("".join(seg.text for seg in line).rstrip() for line in lines).strip("\n")

    def marks(self, index: int) -> set[str]:
        """How step `index` is marked: {"current", "future", "guess"}, or empty."""
        return self._marks.of(index)

    @property
    def lines_from(self) -> list[int]:
        """The first line of each card, in order (the last item is the total height)."""
        return list(self._offsets)

    # ---- keys: scroll at once (a key's repaint is not left to the animator's next frame) ----

    def action_scroll_up(self) -> None:
        self._key_scroll(-1)

    def action_scroll_down(self) -> None:
        self._key_scroll(1)

    def action_page_up(self) -> None:
        self._key_scroll(-self.scrollable_content_region.height)

    def action_page_down(self) -> None:
        self._key_scroll(self.scrollable_content_region.height)

    def action_scroll_home(self) -> None:
        self._key_scroll(-len(self._lines))

    def action_scroll_end(self) -> None:
        self._key_scroll(len(self._lines))
        self._pinned = True

    def _key_scroll(self, lines: int) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        self.scroll_to(
            y=max(0, min(self.max_scroll_y, int(self.scroll_y) + lines)), animate=False, immediate=True, force=True
        )

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        # only following the newest step or `end` pins; any scroll that leaves the end unpins
        self._pinned = self._pinned and new_value >= self.max_scroll_y
        super().watch_scroll_y(old_value, new_value)

    def watch_show_vertical_scrollbar(self, shown: bool) -> None:
        """The scrollbar appears (the cards overflow): its thumb where the view already is.
        Textual moves the thumb only while the bar shows, and following the newest step
        scrolls before the layout that shows it (the thumb stayed at the top)."""
        if shown:
            self.vertical_scrollbar.position = self.scroll_y

    # ---- layout ------------------------------------------------------------------------

    def _key(self, step: Step, width: int, after: list[Step]) -> tuple:
        """What a card's lines depend on, but unfolding (a card keeps both, so a fold
        toggle draws a card once each way); an answer's icon, on the judge steps after it."""
        marks = self.marks(step.index)
        return (
            id(step),
            width,
            self.reveal,
            "current" in marks,
            "guess" in marks,
            "future" in marks,
            tuple(map(id, after)),
        )

    def _judged_by(self, step: Step) -> list[Step]:
        """The judge steps right after an answer (its verdict); nothing for other steps."""
        pos = self._position.get(step.index)
        if step.action.kind != ActionKind.answer or pos is None:
            return []
        return list(takewhile(lambda s: s.actor == "judge", self._steps[pos + 1 :]))

    def _card(self, step: Step, width: int) -> list[list[Segment]]:
        """The card of `step` as lines `width` wide, from the cache or drawn now. A card
        that unfolding does not change is drawn once for both (unfold all draws only the
        cards it changes)."""
        after = self._judged_by(step)
        key = self._key(step, width, after)
        cached = self._drawn.get(step.index)
        if cached is None or cached[0] != key:
            cached = self._drawn[step.index] = (key, {})
        cards = cached[1]
        unfolded = self.expanded != (step.index in self._toggled)
        card = cards.get(unfolded)
        if card is None:
            card = cards[unfolded] = draw_card(
                step,
                self.marks(step.index),
                self._style,
                self.app.console,
                width,
                reveal=self.reveal,
                expanded=unfolded,
                gap=self.GAP,
                after=after,
            )
            if not card.folds:
                cards[not unfolded] = card
        return card.lines

    def _draw_all(self, width: int) -> None:
        cards = [self._card(step, width) for step in self._steps]
        self._offsets = list(accumulate((len(card) for card in cards), initial=0))
        self._lines = [line for card in cards for line in card]
        self._width = width

    def _relayout(self) -> None:
        """Draw every card at the view's width and size the scroll area to them. The width
        leaves room for the scrollbar when the cards overflow the view (the scrollbar
        shows only then), so a card is never drawn under it."""
        region, styles = self.scrollable_content_region, self.styles
        bar = styles.scrollbar_size_vertical if self.show_vertical_scrollbar else 0
        full = region.width + bar  # the width with no scrollbar
        if full <= 0 or region.height <= 0:  # not laid out yet: nothing drawn at no width
            self._width = 0
            return
        if styles.overflow_y != "auto" or styles.scrollbar_gutter == "stable":
            self._draw_all(region.width)  # the scrollbar (or its gutter) is there or not whatever the cards
        else:  # the scrollbar shows when the cards overflow (each is 2 lines or more): guess, then check
            narrow = full - styles.scrollbar_size_vertical
            overflows = bool(bar) or max(len(self._lines), len(self._steps) * (1 + self.GAP)) > region.height
            self._draw_all(narrow if overflows else full)
            if (len(self._lines) > region.height) != overflows:
                self._draw_all(full if overflows else narrow)
        set_virtual_size(self, Size(self._width, len(self._lines)))
        if self._pinned:
            self.scroll_to(y=max(0, len(self._lines) - region.height), animate=False, immediate=True, force=True)
        if self._wanted is not None:
            index, self._wanted = self._wanted, None
            self.scroll_to_step(index)
        self._drawn = {s.index: self._drawn[s.index] for s in self._steps if s.index in self._drawn}
        self.refresh()

    def _keep_top_card(self, change) -> None:
        """Run `change` (which moves every card's height) keeping the card at the top of
        the view at the top (or the end in view, when pinned)."""
        line = int(self.scroll_y)
        pos = self._card_at(line)
        within = line - self._offsets[pos] if self._steps else 0
        change()
        if self._steps and not self._pinned:
            card = self._offsets[pos + 1] - self._offsets[pos]
            self.scroll_to(y=self._offsets[pos] + min(within, card - 1), animate=False, immediate=True, force=True)

    def _card_at(self, line: int) -> int:
        """The place of the card holding `line` (clamped to the first and last card)."""
        return max(0, min(len(self._steps) - 1, bisect_right(self._offsets, line) - 1))

    def on_resize(self, event: events.Resize) -> None:
        self._keep_top_card(self._relayout)

    # ---- drawing -----------------------------------------------------------------------

    def _style(self, name: str = "") -> Style:
        """The widget's style, or a component's (cached: `rich_style` is not cheap)."""
        if name not in self._style_cache:
            self._style_cache[name] = self.get_component_rich_style(name) if name else self.rich_style
        return self._style_cache[name]

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if not self._steps:
            if y == 0:
                hint = Strip([Segment("No steps yet.", self._style("trajectory--hint"))])
                return hint.adjust_cell_length(width, self._style())
            return Strip.blank(width, self._style())
        line = int(self.scroll_y) + y
        if line >= len(self._lines):
            return Strip.blank(width, self._style())
        return Strip(self._lines[line]).adjust_cell_length(width, self._style())

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self._steps:
            return
        line = int(self.scroll_y) + offset.y
        if line >= len(self._lines):
            return
        pos = self._card_at(line)
        self._toggled ^= {self._steps[pos].index}
        self._keep_top_card(self._relayout)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._style_cache.clear()  # colours changed (theme, focus); heights did not
        self._drawn.clear()
        if self._width:
            self._relayout()
