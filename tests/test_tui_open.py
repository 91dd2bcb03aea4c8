"""Opening a screen and coming back: what the person sees stays put (and is not rebuilt)."""

from __future__ import annotations

from textual.widgets import DataTable

from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.screens.play import PlayScreen
from tests.conftest import CTS, DISCO, DOCS, IC


async def test_back_from_a_task_the_picker_keeps_the_cursor_on_it(tmp_path):
    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), run_mode="step")
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("down", "down")
        await pilot.press("enter")
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == "c1"
        await pilot.press("q")
        await pilot.pause()
        assert app.screen is app.picker
        assert app.picker.query_one(DataTable).cursor_row == 2  # still on c1, not back at the top


async def test_a_screen_opened_then_resized_is_laid_out_at_the_new_size(tmp_path):
    """Opening skips the second layout at the same size (layout.LaidOutOnOpen); a real
    terminal resize still lays the screen out again."""
    from clarify_tui.tui.screens.sessions import SessionsScreen
    from clarify_tui.tui.widgets.footer import Footer

    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SessionsScreen) and screen.query_one(Footer).size.width == 160
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        assert screen.has_class("-narrow") and screen.query_one(Footer).size.width == 80
        assert screen.query_one(DataTable).region.right <= 80
        await pilot.press("q")  # the picker underneath follows the new size too
        await pilot.pause()
        assert app.screen is app.picker and app.picker.query_one(Footer).size.width == 80


async def test_the_header_follows_a_title_change_and_skips_the_same_title(tmp_path):
    from clarify_tui.tui.speed.header import Header, QuietHeaderTitle

    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        title = app.screen.query_one(QuietHeaderTitle)
        assert "sessions" in str(title.render())
        app.screen.title = "renamed"
        await pilot.pause()
        assert "renamed" in str(title.render())
        header = app.screen.query_one(Header)
        title._layout_required = False
        title.update(header.format_title())  # what it shows already: nothing to lay out
        assert not title._layout_required
        title.update("something else")
        assert title._layout_required


async def test_a_header_taken_down_with_a_title_change_pending_does_not_crash_the_app(tmp_path):
    """A widget taken down removes its children first, then runs its queued callbacks: a
    title change queued then found no title line and crashed the app at exit (NoMatches
    'HeaderTitle' on Header(), CI under load). Removing the title line first is that moment."""
    from textual.widgets._header import HeaderTitle

    from clarify_tui.tui.speed import Header

    app = ClarifyApp(store=Store(tmp_path / "t.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("f2")
        await pilot.pause()
        header = app.screen.query_one(Header)
        await header.query_one(HeaderTitle).remove()
        app.screen.title = "renamed"
        await pilot.pause()
        assert app.screen.query_one(Header).is_mounted
    assert app.return_code in (0, None)
