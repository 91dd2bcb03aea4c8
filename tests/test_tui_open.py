"""Opening a screen and coming back: what the person sees stays put (and is not rebuilt)."""

from __future__ import annotations

from textual.widgets import DataTable

from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.play import PlayScreen
from tests.conftest import CTS, DISCO, DOCS, IC


async def test_back_from_a_task_the_picker_keeps_the_cursor_on_it(tmp_path):
    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS),
                     run_mode="step")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")
        await pilot.press("enter")
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == "c1"
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.picker
        assert app.picker.query_one(DataTable).cursor_row == 2  # still on c1, not back at the top
