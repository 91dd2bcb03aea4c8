"""The trajectory's scrollbar (widgets/quick_scrollbar.py) draws exactly the rows
Textual's own scrollbar draws, wherever the view is, and is set up as Textual sets up
the scrollbar of any scrolling widget (the test that fails if Textual changes that)."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.containers import Horizontal
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.scrollbar import ScrollBar
from textual.widget import Widget

from clarify_tui.tui.widgets.quick_scrollbar import QuickScrollBar
from clarify_tui.tui.widgets.trajectory import Trajectory
from tests.test_trajectory import make_steps


class Plain(ScrollView):
    def on_mount(self) -> None:
        self.virtual_size = Size(10, 500)


class BothApp(App):
    CSS = "Trajectory, Plain { height: 1fr; width: 1fr; }"

    def compose(self) -> ComposeResult:
        with Horizontal():
            yield Trajectory()
            yield Plain()


async def test_the_scrollbar_draws_the_rows_textuals_draws_wherever_the_view_is():
    async with BothApp().run_test(size=(100, 30)) as pilot:
        trajectory = pilot.app.query_one(Trajectory)
        trajectory.sync(make_steps(400), True)
        await pilot.pause()
        bar = trajectory.vertical_scrollbar
        assert isinstance(bar, QuickScrollBar) and bar.display
        seen = set()
        for y in (0, 7, 150, 151, 900, trajectory.max_scroll_y // 2, trajectory.max_scroll_y):
            trajectory.scroll_to(y=y, animate=False)
            await pilot.pause()
            region = bar.size.region
            quick = bar.render_lines(region)
            bar._styles_cache.clear()  # Textual's own drawing, from scratch
            bar._render_content()
            textual = Widget.render_lines(bar, region)
            assert quick == textual, f"at line {y}"
            seen.add(tuple(line.text for line in quick))
        assert len(seen) > 3  # the thumb moved


async def test_the_scrollbar_is_set_up_as_textual_sets_up_its_own():
    async with BothApp().run_test(size=(100, 30)) as pilot:
        ours, theirs = pilot.app.query_one(Trajectory), pilot.app.query_one(Plain)
        ours.sync(make_steps(400), True)  # both overflow: both show their scrollbar
        await pilot.pause()
        mine, textuals = ours.vertical_scrollbar, theirs.vertical_scrollbar
        await pilot.pause()
        assert type(textuals) is ScrollBar
        for bar, owner in ((mine, ours), (textuals, theirs)):
            assert bar is owner._vertical_scrollbar and bar.parent is owner and bar.is_running
        for name in ("name", "vertical", "thickness", "display", "classes"):
            assert getattr(mine, name) == getattr(textuals, name), name
