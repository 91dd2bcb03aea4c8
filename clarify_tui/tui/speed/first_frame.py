"""A screen's first frame draws everything: what was asked until then is not asked again.

While a screen mounts, each widget that changes (an update, a reactive, a class) asks the
screen, from its own message loop, for a repaint (`messages.Update`) or a layout
(`messages.Layout`); the first layout (ScreenResume) gives every widget its size, which
sets its `virtual_size` reactive, and that asks for one more layout. The first layout then
draws every widget as it is at that moment (a full render). The requests arrive after it,
and Textual lays the screen out and repaints it once more with nothing changed: one more
layout, one more frame, and a wait for the screen's update timer (up to 1/60 s) on each
opening (benchmarks/bench_tui.py: play and replay).

`FirstFrameDrawsAll` forgets those requests once the first frame has drawn the whole
screen: the queued messages sent before it ended, and the widgets' flags for the ones not
sent yet. What changes later (a Resize handler, a worker's message) asks again, as before.
"""

from __future__ import annotations

import sys

from textual import _time
from textual.messages import Layout, Update

AWAIT_MOUNT_FILE = ("textual/widget.py", "textual\\widget.py")  # where AwaitMount's refresh comes from


def _caller() -> str:
    """The function that asked for a refresh, past other mixins' `refresh` overrides."""
    frame = sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_name == "refresh":
        frame = frame.f_back
    return frame.f_code.co_name


class FirstFrameDrawsAll:
    """For a Screen (before Screen in the bases).

    Overrides Screen._refresh_layout (after the first one, which painted the whole screen,
    the widgets' pending `_layout_required` / `_repaint_required` flags are cleared),
    Screen's handlers `_on_update` / `_on_layout` (a request stamped before that frame ended
    is dropped) and Widget.refresh (the repaint Screen._on_screen_resume asks for right
    after that first layout is dropped once). tests/test_first_frame.py fails if Textual changes under this: it counts
    the layouts and frames of an opening and checks what the screen shows."""

    _first_frame_at: float | None = None
    """When the first full frame was drawn."""

    def _refresh_layout(self, size=None, scroll: bool = False) -> None:
        compositor = self._compositor  # type: ignore[attr-defined]
        first = self._first_frame_at is None and not compositor.widgets
        super()._refresh_layout(size, scroll)  # type: ignore[misc]
        if first and compositor.widgets and not compositor._dirty_regions:  # laid out and painted whole
            self._first_frame_at = _time.get_time()
            for widget in compositor.widgets:
                widget._layout_required = widget._repaint_required = False

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        """Screen._on_screen_resume ends by asking for a repaint of the whole screen, just
        after the first layout painted all of it: that one request is dropped."""
        if (
            not regions
            and not layout
            and not recompose
            and self._first_frame_at is not None
            and not self.__dict__.get("_resume_repaint_dropped")
            and _caller() == "_on_screen_resume"
        ):
            self._resume_repaint_dropped = True
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)  # type: ignore[misc]

    def _drawn(self, message: Update | Layout) -> bool:
        if self._first_frame_at is not None and message.time <= self._first_frame_at:
            message.stop()
            message.prevent_default()  # Screen's own handler does not run
            return True
        return False

    async def _on_update(self, message: Update) -> None:
        self._drawn(message)

    async def _on_layout(self, message: Layout) -> None:
        self._drawn(message)


class StyledAtMount:
    """For a Screen (a Dialog too): the first time it is shown, every widget has just been
    styled as it mounted (with the breakpoint classes already set, PresetBreakpoints), or
    while it was built ahead (speed/ahead.py); Screen's ScreenResume handler need not restyle
    them all again (and lay the screen out again for it). Later resumes restyle."""

    def _on_screen_resume(self, event) -> None:
        """Overrides nothing: runs before Screen._on_screen_resume (Textual calls each
        class's handler), whose restyle it turns off once (tests/test_screens_ahead.py)."""
        if not getattr(self, "_styled_once", False):
            self._styled_once = True
            event.refresh_styles = False


class LaidOutOnOpen(StyledAtMount):
    """For a Screen: opened, it is laid out and drawn once. Textual follows a screen's first
    layout with up to three more at the same size (benchmarks/bench_tui.py): the Resize
    event it sends the screen (its size went from nothing to the terminal's), the layout
    its own new size asks for, and push_screen's after the mount. A resize to the size of the current layout is skipped; a real one
    (the terminal changed) lays out as before, and anything else that changed is laid out
    by the widgets' own refreshes."""

    def _screen_resized(self, size) -> None:
        if self._compositor.size == size:  # type: ignore[attr-defined]
            return
        super()._screen_resized(size)  # type: ignore[misc]

    def _size_updated(self, size, virtual_size, container_size, layout: bool = True) -> bool:
        """The screen's own size, set by the compositor while it lays the screen out: that
        layout is the one under way, so it asks for no other (Textual's default sets it as
        a reactive that asks for a layout: one more full layout and frame per opening)."""
        return super()._size_updated(size, virtual_size, container_size, layout=False)  # type: ignore[misc]

    def refresh(self, *regions, repaint: bool = True, layout: bool = False, recompose: bool = False):
        """push_screen also awaits the screen's mounting, then asks it for one more layout
        and full repaint, which often lands after the screen's first frame (laid out with
        every widget mounted: ScreenResume comes after the mount). That one request is
        dropped once the screen is laid out at the terminal's size."""
        caller = sys._getframe(1).f_code
        if (
            layout
            and not regions
            and not recompose
            and caller.co_name == "await_mount"
            and caller.co_filename.endswith(AWAIT_MOUNT_FILE)
            and self._compositor.size == self.app.size  # type: ignore[attr-defined]
        ):
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)  # type: ignore[misc]
