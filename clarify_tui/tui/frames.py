"""A screen's next frame starts as soon as the frame-rate cap allows, not a frame later.

Textual paints a screen from a timer ticking at MAX_FPS (60/s), paused while nothing
changed. That timer keeps its phase: a change made just after a frame waits for the
next 1/60 s boundary, and after a frame longer than 1/60 s it skips to the boundary after
next (`Timer._run`: `count = int(elapsed / interval + 1)`, then `count + 1`). So a key
pressed right after a long frame (the trajectory drawing cards it had not drawn) sat
17-33 ms with nothing to do: in a 5,000-step session `down` after `home` took 33 ms of
wall time on 9 ms of CPU, and every other page key about twice its CPU
(benchmarks/bench_tui.py). `FrameTimer` keeps the cap (frames start at least 1/MAX_FPS
apart) but counts it from the last frame's start, so a frame that is due starts at once.
"""

from __future__ import annotations

from textual import _time
from textual.screen import UPDATE_PERIOD
from textual.timer import EventTargetGone, Timer


class FrameTimer(Timer):
    """A screen's update timer: ticks when resumed, at most once per `interval`."""

    clock = staticmethod(_time.get_time)  # seconds; swapped in tests/test_frames.py
    sleep = staticmethod(_time.sleep)

    async def _run(self) -> None:
        """Overrides `textual.timer.Timer._run` (the loop that waits and ticks), for this
        timer only; tests/test_frames.py checks the override is what the screen uses."""
        interval, last, count = self._interval, float("-inf"), 0
        while self._repeat is None or count < self._repeat:
            await self._active.wait()  # paused until the screen has something to paint
            wait = last + interval - self.clock()
            if wait > 0:  # the cap: the last frame started less than `interval` ago
                await self.sleep(wait)
                await self._active.wait()
            self._reset = False  # nothing to start over: no phase is kept
            last = self.clock()
            count += 1
            try:
                await self._tick(next_timer=last, count=count)
            except EventTargetGone:
                break


class PromptFrames:
    """For a Screen: paint with a `FrameTimer` instead of Textual's phase-locked timer."""

    @property
    def _update_timer(self) -> Timer:
        """Overrides `Screen._update_timer` (the property that makes the screen's paused
        update timer on first use: `_on_idle` resumes it, `_on_timer_update` pauses it)."""
        timer = self.__dict__.get("_frame_timer")
        if timer is None:
            timer = self._frame_timer = FrameTimer(
                self, UPDATE_PERIOD, name="screen_update",
                callback=self._on_timer_update, pause=True)  # type: ignore[attr-defined]
            timer._start()
            self._timers.add(timer)  # type: ignore[attr-defined]  # stopped with the screen
        return timer
