"""A screen's first frame draws everything (tui/speed/first_frame.py): opening play or replay lays
the screen out once, not again for the requests its widgets sent while mounting, and what
changes after that first frame is still drawn."""

from __future__ import annotations

import asyncio

from textual import events
from textual._compositor import Compositor
from textual.app import App, ComposeResult
from textual.screen import Screen
from textual.widgets import Static

from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.play import PlayScreen
from clarify_tui.tui.speed.first_frame import FirstFrameDrawsAll, LaidOutOnOpen
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
                f"changed {i}\nand taller" for i in range(5)
            ]
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
    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), run_mode="step")
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
        await pilot.press("q")  # back to the picker: a stepped session asks first
        await pilot.pause()
        await pilot.press("g")  # given up
        await pilot.pause()
        reflows.clear()
        await pilot.press("f2")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        replay = app.screen
        assert isinstance(replay, ReplayScreen) and reflows == [replay]
        assert replay.query_one(Trajectory).shown_indexes == [0]


def count_frames(monkeypatch, screen_type) -> list[str]:
    """Every frame a screen of `screen_type` sends to the terminal, as the text it shows."""
    frames: list[str] = []
    display = App._display

    def counted(self, screen, renderable):
        if isinstance(screen, screen_type) and renderable is not None:
            frames.append("".join(s.text for s in screen._compositor.render_strips()))
        return display(self, screen, renderable)

    monkeypatch.setattr(App, "_display", counted)
    return frames


async def test_watch_mode_paints_the_screen_once_then_the_agent_runs_by_itself(monkeypatch, tmp_path):
    """The play screen's first frame is the whole screen, painted once; the watch-mode agent
    starts after it (its first step is not a frame the screen's opening waits for) and
    then runs on by itself."""
    frames = count_frames(monkeypatch, PlayScreen)
    store = Store(tmp_path / "t.db")
    app = ClarifyApp(store=store, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        opened: list[int] = []
        app.post_message(events.Key("enter", "\r"))  # as the bench does: not waiting for the app to go idle
        while not isinstance(app.screen, PlayScreen):
            await asyncio.sleep(0)
        app.screen.call_after_refresh(lambda: opened.append(len(frames)))  # the frame that paints it
        screen = app.screen
        assert isinstance(screen, PlayScreen) and screen.run_mode == "watch" and screen.auto
        while not opened:
            await pilot.pause()
        assert opened == [1]  # painted at the first frame: nothing asked for a second one
        assert "No steps yet." in frames[0] and "watch mode: a pauses" in frames[0]
        assert "Trajectory" in frames[0] and "Question" in frames[0]
        while not screen.driver.steps:  # then the agent takes its first step by itself
            await pilot.pause()
        screen.pace = 0
        while not screen.driver.done:
            await pilot.pause()
        await pilot.pause()
        assert len(screen.query_one(Trajectory).shown_indexes) == len(screen.driver.steps)
    assert store.session(screen.driver.session.id).status == "completed"


async def test_an_observer_takes_a_note_though_the_note_box_is_built_when_first_opened(tmp_path):
    from textual.widgets import Input

    from clarify_tui.tui.widgets.note import NoteBox

    store = Store(tmp_path / "t.db")
    app = ClarifyApp(store=store, tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), run_mode="step")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        screen = app.screen
        assert not screen.query("ActionBar, ReplyBox, TaskClock, #paused-banner")  # not an observer's
        box = screen.query_one(NoteBox)
        assert not box.display and not box.children
        await pilot.press("space")  # the session starts with the agent's first proposal
        await app.workers.wait_for_complete()
        for _ in range(2):  # the box opens with its field focused, and again after closing
            await pilot.press("ctrl+n")
            await pilot.pause()
            assert box.display and isinstance(app.focused, Input) and app.focused.parent is box
            await pilot.press("escape")
            await pilot.pause()
            assert not box.display
        await pilot.press("ctrl+n")
        await pilot.pause()
        await pilot.press(*"odd task")
        await pilot.press("enter")
        await pilot.pause()
        assert not box.display
        assert store.session(screen.driver.session.id).note == "odd task"


async def test_the_edit_dialog_opens_in_one_frame_with_the_pending_action_typed_in(monkeypatch, tmp_path):
    """Step mode's `e`: the pending action's form is composed with the dialog (it used to be
    mounted after the first frame: two more layouts and frames), its field focused."""
    from textual.widgets import Input

    from clarify_tui.tui.screens.compose import ComposeScreen

    frames = count_frames(monkeypatch, ComposeScreen)
    app = ClarifyApp(
        store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), task_id="i1", run_mode="step"
    )
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("space")  # the agent proposes its first action (a search)
        await app.workers.wait_for_complete()
        await pilot.pause()
        pending = app.screen.driver.pending
        opened: list[int] = []
        app.post_message(events.Key("e", "e"))
        while not isinstance(app.screen, ComposeScreen):
            await asyncio.sleep(0)
        app.screen.call_after_refresh(lambda: opened.append(len(frames)))
        while not opened:
            await pilot.pause()
        assert opened == [1]
        assert "Edit the pending action" in frames[0] and f"{pending.kind.value}:" in frames[0]
        assert pending.text in frames[0]
        assert isinstance(app.focused, Input) and app.focused.value == pending.text
        await pilot.press("end", *" tower", "enter")  # typed onto the proposal, then applied as edited
        await pilot.pause()
        assert app.screen.driver.pending.text == pending.text + " tower"
        assert app.screen.driver.pending.human == "edited"
