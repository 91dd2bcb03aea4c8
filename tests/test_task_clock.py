"""The task clock redraws when the second it shows changes, not twice a second (issue 30:
an idle browser visitor's app spent ~1.4 % of a core on it)."""

from __future__ import annotations

from textual.app import App, ComposeResult

from clarify_tui.annotation import ActiveClock
from clarify_tui.tui.widgets.clock import TaskClock


class ClockApp(App):
    def __init__(self, clock: ActiveClock) -> None:
        super().__init__()
        self.clock = clock

    def compose(self) -> ComposeResult:
        yield TaskClock(self.clock, id="clock")


def drawn(app: App) -> str:
    return "\n".join(s.text for s in app.screen._compositor.render_strips())


async def test_the_task_clock_draws_each_new_second_and_nothing_in_between():
    now = [100.0]
    clock = ActiveClock(now=lambda: now[0])
    clock.start()
    app = ClockApp(clock)
    async with app.run_test(size=(40, 3)) as pilot:
        widget = app.query_one(TaskClock)
        await pilot.pause()
        assert "⏱ 00:00  p pauses" in drawn(app)
        repaints = []
        real = widget.update
        widget.update = lambda *a, **k: (repaints.append(now[0]), real(*a, **k))  # type: ignore[method-assign]
        now[0] = 102.3
        widget.tick()
        await pilot.pause()
        assert "⏱ 00:02" in drawn(app)
        now[0] = 102.8  # the same second: the timers of the old clock redrew here too
        widget.tick()
        assert repaints == [102.3]
        now[0] = 103.0
        widget.tick()
        await pilot.pause()
        assert "⏱ 00:03" in drawn(app) and repaints == [102.3, 103.0]
        clock.pause()
        widget.tick()
        await pilot.pause()
        assert "⏸ paused 00:03  p resumes" in drawn(app)
        assert widget._next is None  # paused: no timer wakes the app until it resumes
