"""The centre region: the list of steps as cards, newest in view, drawn line by line.

A session can hold thousands of steps, so this is one Line-API widget (a `ScrollView`
with `render_line`, like Textual's own Log and DataTable), not one widget per step: only
the lines on screen are drawn. Each card is rendered once into strips and cached by what
it depends on (the step, width, unfold, spoilers, replay mark); in a long session a card
not drawn yet counts with an estimated height (`estimate_lines`) until it comes near the
view (cards a page or two around it are drawn while idle), so the scrollbar is exact
only near the view. `sync` is
idempotent and cheap: it appends new steps and re-renders only the last step, which the
engine may have re-recorded. Judge steps are left out while spoilers are hidden.
"""

from __future__ import annotations

import gc
import time

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.widget import Widget

from clarify_tui.models import Step
from clarify_tui.tui.widgets.card_index import CardIndex
from clarify_tui.tui.widgets.draws_ahead import DrawsAhead
from clarify_tui.tui.widgets.finished_lines import FinishedLines
from clarify_tui.tui.widgets.quick_scrollbar import QuickVerticalScrollbar
from clarify_tui.tui.widgets.replay_marks import ReplayMarks
from clarify_tui.tui.widgets.step_card import draw_card, estimate_lines

EAGER_CARDS = 40  # a session this short is drawn whole at once: exact scrollbar, no guesses
FREEZE_STEPS = 500  # this many steps arriving at once are kept out of the collector's scans
KEPT_CARDS = 64  # drawn cards kept (~40 pages): each line is a Strip of ~9 objects the collector walks


def visible_steps(steps: list[Step], reveal: bool) -> list[Step]:
    """What the trajectory shows: everything, or everything but judge steps."""
    return steps if reveal else [s for s in steps if s.actor != "judge"]


class Trajectory(FinishedLines, DrawsAhead, QuickVerticalScrollbar, ScrollView, can_focus=True):
    """Step cards, oldest first; follows the newest step while `follow` is on.

    Replay marks its cursor with `mark` (the current step stands out, later ones fade,
    the guessed step is flagged); a click unfolds or folds one card."""

    COMPONENT_CLASSES = {
        "trajectory--hint", "trajectory--judge", "trajectory--error",
        "trajectory--current", "trajectory--guess", "trajectory--guess-current",
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
        self._cards = CardIndex()
        self._strips: LRUCache[int, tuple[tuple, list[Strip]]] = LRUCache(KEPT_CARDS)
        self._toggled: set[int] = set()  # cards unfolded (or folded) by a click
        self._marks = ReplayMarks()
        self._width = 0
        self._pinned = False  # keep the last line in view as cards grow
        self._settling = False
        self._style_cache: dict[str, Style] = {}
        self._line_width: int | None = None  # the view's width while `render_lines` runs

    # ---- the public API --------------------------------------------------------------

    def sync(self, steps: list[Step], reveal: bool) -> None:
        """Show `steps`: append the new ones and redraw the last one shown."""
        if reveal != self.reveal:
            self.reveal = reveal
            self.rebuild(steps)
            return
        wanted = visible_steps(steps, reveal)
        cards = self._cards
        shown = len(cards)
        if shown and len(wanted) >= shown and wanted[shown - 1].index == cards.steps[-1].index:
            self._strips.discard(cards.steps[-1].index)
            cards.replace_last(wanted[shown - 1])  # the engine may have re-recorded it
            new = wanted[shown:]
        else:
            new = [s for s in wanted if s.index not in cards.position]
        width = self._card_width(len(cards) + len(new))
        if width > 0 and width != self._width:  # a long session arrives: the scrollbar will come
            self._width = width
            self._strips.clear()
            cards.guess_all([self._estimate(s) for s in cards.steps])
        for step in new:
            cards.append(step, self._estimate(step))
        if len(new) >= FREEZE_STEPS:
            # A long session's steps (~20 objects each) live as long as the screen. Left to
            # the collector, each of its full collections walks all of them (~40 ms for
            # 5,000 steps), and one lands inside a key every few pages. `gc.freeze` is
            # O(1); what it costs: cyclic garbage alive now is never collected.
            gc.freeze()
        self._relayout()
        if new and self.follow:
            self.scroll_end(animate=False)

    def rebuild(self, steps: list[Step]) -> None:
        """Forget every card and show `steps` afresh."""
        self._cards.clear()
        self._strips.clear()
        self._toggled.clear()
        self._reguess_from = None
        self.sync(steps, self.reveal)
        if not self._cards:
            self._relayout()

    def set_expanded(self, expanded: bool) -> None:
        """Unfold (or fold) every card's long content."""
        self.expanded = expanded
        self._toggled.clear()
        self._reestimate(now=len(self._cards) <= EAGER_CARDS)

    def mark(self, current: int | None, guess: int | None = None, dim_future: bool = False) -> None:
        """Replay's cursor: step `current` stands out (and is scrolled into view), steps
        after it fade when `dim_future`, step `guess` is flagged as the guess."""
        touched, future_changed = self._marks.move(current, guess, dim_future)
        for index in touched:
            if index in self._cards.position:
                self._forget(self._cards.position[index])
        if future_changed:
            self._strips.clear()  # fading is drawn into the strips, not the height
        self._relayout()
        if current in self._cards.position:
            self.scroll_to_step(current)

    def scroll_to_step(self, index: int) -> None:
        """Bring step `index`'s card into view (its top, if it is taller than the view)."""
        pos = self._cards.position.get(index)
        if pos is None or not self._width:  # not laid out yet: a card drawn 2 columns wide was ~500 lines, 45 ms
            return
        self._card_strips(pos)
        self._relayout()
        top, bottom = self._cards.offsets[pos], self._cards.offsets[pos + 1] - self.GAP
        view = self.scrollable_content_region.height
        y = self.scroll_y
        if top < y or bottom - top > view:
            y = top
        elif bottom > y + view:
            y = bottom - view
        self._pinned = False
        self._jump(y)

    @property
    def shown_indexes(self) -> list[int]:
        """The step indexes shown, in order (judge steps are missing while hidden)."""
        return [s.index for s in self._cards.steps]

    def card_text(self, index: int) -> str:
        """Step `index`'s card as plain text, as it is drawn now."""
        pos = self._cards.position[index]
        return "\n".join(strip.text.rstrip() for strip in self._card_strips(pos)).strip("\n")

    def marks(self, index: int) -> set[str]:
        """How step `index` is marked: {"current", "future", "guess"}, or empty."""
        return self._marks.of(index)

    @property
    def lines_from(self) -> list[int]:
        """The first line of each card, in order (the last item is the total height)."""
        return list(self._cards.offsets)

    # ---- layout: heights, offsets, what is in view ------------------------------------

    def _key(self, pos: int) -> tuple:
        step = self._cards.steps[pos]
        marks = self.marks(step.index)
        return (id(step), self._width, self._expanded(step.index), self.reveal,
                "current" in marks, "guess" in marks, "future" in marks)

    def _expanded(self, index: int) -> bool:
        return self.expanded != (index in self._toggled)

    def _estimate(self, step: Step) -> int:
        if not self._width:  # not laid out yet: guessed once the width is known
            return self.GAP + 1
        return self.GAP + estimate_lines(step, reveal=self.reveal, expanded=self._expanded(step.index),
                                         width=self._width)

    def _card_width(self, cards: int) -> int:
        """The width cards are drawn at: the view's, less the scrollbar's when `cards`
        cards are sure to overflow the view (each is two lines or more) before the
        scrollbar is shown, so a long session's heights are not all guessed twice."""
        region, styles = self.scrollable_content_region, self.styles
        width = region.width
        if (not self.show_vertical_scrollbar and styles.overflow_y == "auto" and styles.scrollbar_gutter != "stable"
                and cards * (self.GAP + 1) > region.height):
            width -= styles.scrollbar_size_vertical
        return max(0, width)

    def _forget(self, pos: int) -> None:
        """Step at `pos` changed: its strips and height are stale (its height stays as a
        guess until it is drawn again, so nothing else moves before then)."""
        self._strips.discard(self._cards.steps[pos].index)
        self._cards.keys[pos] = None

    def _reestimate(self, now: bool = True) -> None:
        """Every card's height changed (width, unfold all): guess them all again, keeping
        the card at the top of the view at the top. Not `now`: the cards in view are drawn
        now and the others keep their old heights as guesses until idle time guesses them
        again (`_reguess`), so unfolding a long session is not 5,000 guesses in one key."""
        cards = self._cards
        anchor = cards.card_at(int(self.scroll_y)) if cards else None
        within = int(self.scroll_y) - cards.offsets[anchor] if anchor is not None else 0
        self._strips.clear()
        cards.guess_all([self._estimate(s) for s in cards.steps] if now else list(cards.heights))
        self._reguess_from = None if now else 0
        self._relayout()
        if anchor is not None and not self._pinned:
            self._card_strips(anchor)
            self._relayout()
            within = min(within, cards.heights[anchor] - 1)
            self._jump(cards.offsets[anchor] + within)

    def _relayout(self) -> None:
        self._cards.reoffset()
        self._settle()
        self.refresh()

    def _settle(self) -> None:
        """Draw the cards in view (and, when pinned to the end, the last ones) so their
        real heights replace the guesses, then size the scroll area and keep the end in
        view if pinned. A few rounds at most: each only draws cards not drawn yet."""
        if self._settling:
            return
        self._settling = True
        try:
            width = self._card_width(len(self._cards))
            if width > 0 and width != self._width:
                was, self._width = self._width, width
                self._reestimate(now=not was or len(self._cards) <= EAGER_CARDS)
            view = max(1, self.scrollable_content_region.height)
            for _ in range(6):
                total = self._cards.total
                top = max(0, total - view) if self._pinned else int(self.scroll_y)
                start, stop = (0, total) if len(self._cards) <= EAGER_CARDS else (top, top + view)
                if not (self._cards and width > 0 and self._draw_between(top, start, stop)):
                    break
            self._size_to_content()
            self._schedule_prefetch()
        finally:
            self._settling = False

    def _draw_between(self, top: int, start: int, stop: int, budget: float | None = None) -> bool:
        """Draw the cards not drawn yet between lines `start` and `stop` (within `budget`
        seconds, if given); True if any was. The view's top line is `top`: cards starting
        above it move the view by their change in height, so what is on screen stays put."""
        cards = self._cards
        first, last = cards.card_at(start), cards.card_at(stop)
        deadline = None if budget is None else time.perf_counter() + budget
        shift, drew = 0, False
        for pos in range(first, last + 1):
            before = cards.heights[pos]
            if self._render_height(pos):
                drew = True
                if cards.offsets[pos] < top:
                    shift += cards.heights[pos] - before
                if deadline is not None and time.perf_counter() > deadline:
                    break
        if drew:
            cards.reoffset()
            if shift and not self._pinned:
                self._size_to_content()
                self._jump(max(0, top + shift))
        return drew

    def _size_to_content(self) -> None:
        """The scroll area is as tall as the cards; pinned, the view shows the last line."""
        total = max(self._cards.total, 1 if not self._cards else 0)
        size = Size(self._width, total)
        if self.virtual_size != size:
            if self.show_vertical_scrollbar and total > self.container_size.height:
                # Only the scrollbar's thumb changes: resize in place. Setting `virtual_size`
                # asks the whole screen for a new layout (and a repaint of every widget).
                self.set_reactive(Widget.virtual_size, size)
                self._scroll_update(size)
            else:  # the scrollbar comes or goes: the content's width changes
                self.virtual_size = size
        if self._pinned:
            end = max(0, total - max(1, self.scrollable_content_region.height))
            if int(self.scroll_y) != end:
                self._jump(end)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if not self._settling:
            # only `scroll_end` pins; any other scroll that leaves the end unpins
            self._pinned = self._pinned and new_value >= self.max_scroll_y
            self._settle()
        super().watch_scroll_y(old_value, new_value)

    def on_resize(self, event: events.Resize) -> None:
        """The layout that sent this already repainted the new size (drawn at the new width,
        render_line): repaint again only if settling moved a card or the view."""
        cards = self._cards
        before = (self._width, cards.total, list(cards.heights), self.scroll_y)
        self._settle()
        if before != (self._width, cards.total, list(cards.heights), self.scroll_y):
            self.refresh()

    # ---- drawing -----------------------------------------------------------------------

    def _render_height(self, pos: int) -> bool:
        """Draw the card at `pos` if its height is a guess; True if it was."""
        if self._cards.keys[pos] == self._key(pos):
            return False
        self._card_strips(pos)
        return True

    def _card_strips(self, pos: int) -> list[Strip]:
        """The card at `pos` as strips, from the cache or drawn now (recording its height)."""
        step = self._cards.steps[pos]
        key = self._key(pos)
        cached = self._strips.get(step.index)
        if cached is not None and cached[0] == key:
            return cached[1]
        strips = draw_card(step, self.marks(step.index), self._style, self.app.console, max(self._width, 2),
                           reveal=self.reveal, expanded=self._expanded(step.index), gap=self.GAP)
        self._strips[step.index] = (key, strips)
        self._cards.drawn(pos, len(strips), key)
        return strips

    def _style(self, name: str = "") -> Style:
        """The widget's style, or a component's (cached: `rich_style` is not cheap)."""
        if name not in self._style_cache:
            self._style_cache[name] = self.get_component_rich_style(name) if name else self.rich_style
        return self._style_cache[name]

    def render_lines(self, crop: Region) -> list[Strip]:
        """Lines are drawn at the width worked out once per call, not once per line."""
        self._line_width = self._view_width()
        try:
            return super().render_lines(crop)
        finally:
            self._line_width = None

    def _view_width(self) -> int:
        if self._card_width(len(self._cards)) != self._width:  # a scrollbar came or went: no Resize says so
            self._settle()
        return self.scrollable_content_region.width

    def content_line(self, y: int) -> Strip:
        width = self._line_width if self._line_width is not None else self._view_width()
        line = int(self.scroll_y) + y
        blank = Strip.blank(width, self._style())
        cards = self._cards
        if not cards:
            if y == 0:
                hint = Strip([Segment("No steps yet.", self._style("trajectory--hint"))])
                return hint.adjust_cell_length(width, self._style())
            return blank
        if line >= cards.total:
            return blank
        pos = cards.card_at(line)
        strips = self._card_strips(pos)
        within = line - cards.offsets[pos]
        if within >= len(strips):  # a guessed height was too big: fixed on the next refresh
            self.call_after_refresh(self._relayout)
            return blank
        if cards.offsets[pos + 1] - cards.offsets[pos] != len(strips):
            self.call_after_refresh(self._relayout)
        return strips[within].adjust_cell_length(width, self._style())

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        if offset is None or not self._cards:
            return
        pos = self._cards.card_at(int(self.scroll_y) + offset.y)
        self._toggled ^= {self._cards.steps[pos].index}
        self._forget(pos)
        self._relayout()

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._strips.clear()  # colours changed (theme, focus); heights did not
        self._style_cache.clear()
        self.restyled()
        self.refresh()
