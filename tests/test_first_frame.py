"""A screen's first frame draws everything (tui/first_frame.py): opening play or replay lays
the screen out once, not again for the requests its widgets sent while mounting, and what
changes after that first frame is still drawn."""

from __future__ import annotations

from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.first_frame import FirstFrameDrawsAll
from clarify_tui.tui.layout import LaidOutOnOpen
from clarify_tui.tui.screens.play import PlayScreen
from clarify_tui.tui.widgets.trajectory import Trajectory
from tests.conftest import CTS, DISCO, DOCS, IC


def count_layouts(monkeypatch, screen_type: type) -> list[Screen]:
    """Every full layout (Compositor.reflow) of a screen of `screen_type`, in order."""
    reflows: list[Screen] = []
    reflow = Compositor.reflow

    def counted(self, parent, size):
        if isinstance(parent, screen_type):
            reflows.append(parent)
        return reflow(self, parent, size)

    monkeypatch.setattr(Compositor, "reflow", counted)
    return reflows


class Mounting(LaidOutOnOpen, FirstFrameDrawsAll, Screen):
    """Changes its widgets while they mount: each asks for a repaint and a layout."""

    def compose(self) -> ComposeResult:
        for i in range(5):
            yield Static(f"line {i}", id=f"s{i}")

    def on_mount(self) -> None:
        for i in range(5):
            self.query_one(f"#s{i}", Static).update(f"changed {i}\nand taller")


class Plain(LaidOutOnOpen, Screen):
    compose = Mounting.compose
    on_mount = Mounting.on_mount


class OneScreen(App):
    """Opens `screen` over its default screen on `o`, as the workbench opens its screens."""

    BINDINGS = [("o", "open")]

    def __init__(self, screen: Screen) -> None:
        super().__init__()
        self.first = screen

    def action_open(self) -> None:
        self.push_screen(self.first)


async def test_textual_lays_a_mounting_screen_out_again_and_the_mixin_does_not(monkeypatch):
    """The premise (Textual lays out twice) and the fix, on the same screen: if Textual stops
    sending these requests, or sends them differently, one of the two counts changes."""
    counts = {}
    for screen_type in (Plain, Mounting):
        reflows = count_layouts(monkeypatch, screen_type)
        app = OneScreen(screen_type())
        async with app.run_test(size=(60, 20)) as pilot:
            await pilot.press("o")
            await pilot.pause()
            counts[screen_type] = len(reflows)
            assert [str(app.screen.query_one(f"#s{i}", Static).render()) for i in range(5)] == [
                f"changed {i}\nand taller" for i in range(5)]
            assert app.screen.query_one("#s4", Static).region.height == 2  # laid out as changed
            assert "changed 4" in "".join(s.text for s in app.screen._compositor.render_strips())
        monkeypatch.undo()
    assert counts == {Plain: 2, Mounting: 1}


async def test_a_change_after_the_first_frame_is_still_laid_out_and_drawn():
    app = OneScreen(Mounting())
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("o")
        await pilot.pause()
        static = app.screen.query_one("#s0", Static)
        static.update("one\ntwo\nthree")
        await pilot.pause()
        assert static.region.height == 3
        assert app.screen.query_one("#s1", Static).region.y == static.region.bottom
        assert "three" in "".join(s.text for s in app.screen._compositor.render_strips())


async def test_opening_play_and_replay_lays_each_out_once(monkeypatch, tmp_path):
    from clarify_tui.tui.screens.replay import ReplayScreen

    reflows = count_layouts(monkeypatch, (PlayScreen, ReplayScreen))
    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS),
                     run_mode="step")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        play = app.screen
        assert isinstance(play, PlayScreen) and reflows == [play]
        await pilot.press("space")  # the agent proposes: a later change, laid out as before
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "pending" in str(play.query_one("#pending").render())
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert play.query_one(Trajectory).shown_indexes == [0]
        await pilot.press("q")  # back to the picker
        await pilot.pause()
        reflows.clear()
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and reflows == [replay]
        assert replay.query_one(Trajectory).shown_indexes == [0]
