"""What the trajectory does between keys, and how its keys scroll.

While idle it draws the cards a page or two around the view (so the next page key finds
them drawn and their heights exact) and, after unfold all or a new width, guesses every
other card's height again; a slice at a time, each at most PREFETCH_BUDGET_S, so a key
pressed meanwhile waits at most that long. Keys scroll in their handler, not on the
animator's next frame (up to 17 ms later, even with animations off); like Textual's
DataTable, a long list pages without animating.

A mixin of `Trajectory` (widgets/trajectory.py), whose card index (`_cards`) and drawing
(`_draw_between`, `_estimate`, `_settle`, `_size_to_content`) it uses; the scrolling it
does (`_jump`, and `scroll_to` / `scroll_end`, which keep the end pinned) is here.
"""

from __future__ import annotations

import time

from textual.actions import SkipAction
from textual.timer import Timer

PREFETCH_PAGES = 2  # while idle, cards this many pages above and below the view are drawn
PREFETCH_DELAY = 0.05  # seconds after the last change before drawing ahead
PREFETCH_BUDGET_S = 0.008  # at most this long at a time, so a key is never kept waiting


class DrawsAhead:
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._prefetch_timer: Timer | None = None
        self._reguess_from: int | None = None  # idle time guesses heights again from here

    def action_scroll_up(self) -> None:
        self._key_scroll(self.scroll_up)

    def action_scroll_down(self) -> None:
        self._key_scroll(self.scroll_down)

    def action_page_up(self) -> None:
        self._key_scroll(self.scroll_page_up)

    def action_page_down(self) -> None:
        self._key_scroll(self.scroll_page_down)

    def action_scroll_home(self) -> None:
        self._key_scroll(self.scroll_home, x_axis=False)

    def action_scroll_end(self) -> None:
        self._key_scroll(self.scroll_end, x_axis=False)

    def _key_scroll(self, scroll, **kwargs) -> None:
        if not self.allow_vertical_scroll:
            raise SkipAction()
        scroll(animate=False, **kwargs)

    def scroll_to(self, x: float | None = None, y: float | None = None, **kwargs) -> None:
        """A scroll away from the end stops keeping the end in view. Forced: a key pressed
        before the first layout (no scrollbar yet) still moves the view."""
        if y is not None and y < self.max_scroll_y:
            self._pinned = False
        super().scroll_to(x, y, **{**kwargs, "force": True})

    def scroll_end(self, *args, **kwargs) -> None:
        """Pin the view to the last line, now (not after the next refresh, which could undo
        a scroll made in between); it stays pinned while cards below grow."""
        self._pinned = True
        self._settle()
        super().scroll_end(*args, **{**kwargs, "immediate": True, "force": True})
        self.call_after_refresh(self._place_scrollbar)

    def _jump(self, y: float) -> None:
        """Scroll to line `y` at once. Set directly, not through `scroll_to`: this may run
        inside a scroll animation's step; the target moves too, so the next key scrolls
        from here."""
        if self.app.animator.is_being_animated(self, "scroll_y"):
            return  # a key's scroll is on its way (even with animations off, it lands on the next tick)
        self.scroll_target_y = y
        self.scroll_y = y
        self.call_after_refresh(self._place_scrollbar)

    def _place_scrollbar(self) -> None:
        """A scrollbar shown after the view moved starts at the top: put it where the view is."""
        if self.show_vertical_scrollbar:
            self.vertical_scrollbar.position = self.scroll_y

    def _schedule_prefetch(self) -> None:
        """Draw ahead once nothing changed for PREFETCH_DELAY: each key or change starts
        the wait again, so keys pressed in a row are not slowed by drawing ahead."""
        if self._prefetch_timer is not None:
            self._prefetch_timer.reset()
        elif self._cards and self.is_mounted:
            self._prefetch_timer = self.set_timer(PREFETCH_DELAY, self._prefetch)

    def _prefetch(self) -> None:
        """While idle, draw the cards a page above and below the view, a few at a time, so
        the next page key finds them drawn (and their heights exact)."""
        self._prefetch_timer = None
        if not self._cards or not self._width or self._settling:
            return
        view = max(1, self.scrollable_content_region.height)
        top = int(self.scroll_y)
        self._settling = True
        try:
            if self._reguess_from is not None:
                drew = self._reguess(top, PREFETCH_BUDGET_S)
            else:
                drew = self._draw_between(top, max(0, top - PREFETCH_PAGES * view),
                                          top + (PREFETCH_PAGES + 1) * view, PREFETCH_BUDGET_S)
            if drew:
                self._size_to_content()
        finally:
            self._settling = False
        if drew:
            self.refresh()
            self._schedule_prefetch()

    def _reguess(self, top: int, budget: float) -> bool:
        """Guess again the heights of the cards not drawn since every height changed, from
        where the last slice stopped, for at most `budget` seconds; True (work done). Cards
        above the view's top line `top` move the view by their change, as in `_draw_between`."""
        cards, pos, shift = self._cards, self._reguess_from or 0, 0
        deadline = time.perf_counter() + budget
        while pos < len(cards) and (pos % 200 or time.perf_counter() < deadline):
            if cards.keys[pos] is None:
                guess = self._estimate(cards.steps[pos])
                if cards.offsets[pos] < top:
                    shift += guess - cards.heights[pos]
                cards.heights[pos] = guess
            pos += 1
        self._reguess_from = pos if pos < len(cards) else None
        cards.reoffset()
        if shift and not self._pinned:
            self._size_to_content()
            self._jump(max(0, top + shift))
        return True
