"""A dialog's dimmed backdrop is drawn once and reused, yet shows every change below it."""

from __future__ import annotations

import asyncio

from textual._context import visible_screen_stack
from textual.app import App, ComposeResult
from textual.screen import ModalScreen
from textual.widgets import Static

from clarify_tui.tui.speed import Dialog

CSS = """
Ask { align: center middle; }
#box { width: 20; height: 3; background: $surface; }
"""


def make_app(modal_base: type) -> App:
    class Ask(modal_base):  # type: ignore[misc, valid-type]
        def compose(self) -> ComposeResult:
            yield Static("dialog", id="box")

    class Below(App):
        def compose(self) -> ComposeResult:
            yield Static("line one, before", id="changing")
            yield Static("[b red]a red bold line[/]")

        def open(self) -> None:
            self.push_screen(Ask())

    Below.CSS = CSS
    return Below()


async def screen_after(modal_base: type, change: bool) -> tuple[list, int]:
    """What the terminal shows with the dialog up (after the change below, if asked), and
    how many times the screen below was drawn for the backdrop."""
    app = make_app(modal_base)
    async with app.run_test(size=(60, 10)) as pilot:
        below = app.screen
        drawn = 0
        original = type(below._compositor).render_strips

        def counting(self, size=None):  # noqa: ANN001, ANN202
            nonlocal drawn
            if self is below._compositor:
                drawn += 1
            return original(self, size)

        type(below._compositor).render_strips = counting  # type: ignore[method-assign]
        try:
            app.open()
            await pilot.pause()
            for _ in range(3):  # the dialog's own repaints: focus, layout, hover
                app.screen.refresh()
                await pilot.pause()
            if change:
                below.query_one("#changing", Static).update("line one, AFTER")
                await pilot.pause()
                await pilot.pause()
            visible_screen_stack.set(app._background_screens)  # as each frame's render_update does
            strips = app.screen._compositor.render_strips()
        finally:
            type(below._compositor).render_strips = original  # type: ignore[method-assign]
        return [list(strip) for strip in strips], drawn


def test_backdrop_is_identical_to_textuals_own_and_drawn_once() -> None:
    ours, drawn = asyncio.run(screen_after(Dialog, change=False))
    textuals, drawn_by_textual = asyncio.run(screen_after(ModalScreen, change=False))
    assert ours == textuals  # same text, same dimmed colours, cell for cell
    assert drawn_by_textual >= drawn + 3  # the dialog's own three repaints reuse the backdrop


def test_a_change_below_shows_through_dimmed() -> None:
    ours, _ = asyncio.run(screen_after(Dialog, change=True))
    textuals, _ = asyncio.run(screen_after(ModalScreen, change=True))
    assert "line one, AFTER" in "".join(segment.text for segment in ours[0])
    assert ours == textuals
