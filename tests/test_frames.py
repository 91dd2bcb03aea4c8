"""A screen paints as soon as the frame-rate cap allows (tui/frames.py): a change made
after a long frame is painted at once, one made just after a short frame waits only for
the rest of 1/60 s, and the play screen paints with that timer, not Textual's own."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from clarify_tui.tui.frames import FrameTimer, PromptFrames
from clarify_tui.tui.screens.play import PlayScreen

INTERVAL = 1 / 60


class FramesScreen(PromptFrames, Screen):
    def compose(self) -> ComposeResult:
        yield Static("before", id="text")


class FramesApp(App):
    def on_mount(self) -> None:
        self.push_screen(FramesScreen())


async def test_a_frame_starts_at_once_unless_the_last_one_started_less_than_an_interval_ago():
    now, sleeps, ticks = [100.0], [], []

    async def sleep(seconds: float) -> None:
        sleeps.append(round(seconds, 4))
        now[0] += seconds
        await asyncio.sleep(0)

    async with FramesApp().run_test() as pilot:
        frame_took = [0.0]

        def tick() -> None:  # a frame: the screen pauses its timer, then paints
            timer.pause()
            ticks.append(now[0])
            now[0] += frame_took[0]

        timer = FrameTimer(pilot.app.screen, INTERVAL, callback=tick, pause=True)
        timer.clock = lambda: now[0]
        timer.sleep = sleep
        timer._start()

        async def frame(after: float, took: float) -> None:
            now[0] += after
            frame_took[0] = took
            count = len(ticks)
            timer.resume()
            while len(ticks) == count:
                await asyncio.sleep(0)

        await frame(after=1.0, took=0.025)  # idle for a second: at once
        await frame(after=0.0, took=0.004)  # right after a 25 ms frame: at once (Textual waited 17-33 ms)
        await frame(after=0.002, took=0.004)  # 6 ms after a frame started: the rest of 1/60 s
        timer.stop()
    assert sleeps == [round(INTERVAL - 0.006, 4)]
    assert ticks == [101.0, 101.025, 101.0 + 0.025 + INTERVAL]


async def test_the_screen_paints_with_the_prompt_timer_not_textuals():
    app = FramesApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        timer = screen._update_timer
        assert isinstance(timer, FrameTimer)
        paint, painted = timer._callback, []

        def counted() -> None:
            painted.append(screen.query_one("#text", Static).content)
            paint()

        timer._callback = counted
        screen.query_one("#text", Static).update("after")
        await pilot.pause()
        assert painted and painted[-1] == "after"  # the change was painted by this timer's tick
        assert screen._Screen__update_timer is None  # Textual never made (or used) its own
    assert issubclass(PlayScreen, PromptFrames)
