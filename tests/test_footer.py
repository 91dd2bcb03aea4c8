"""The key-hint footer (widgets/footer.py): the screen's keys from the first frame on, kept
up to date in place, and a click on a key presses it."""

from __future__ import annotations

from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.widgets.footer import Footer
from tests.conftest import CTS, DISCO, DOCS, IC


def make_app(tmp_path, **kwargs) -> ClarifyApp:
    return ClarifyApp(store=Store(tmp_path / "f.db"), tasks=[IC, DISCO, CTS], search=LocalSearch(DOCS), **kwargs)


def footer_line(app) -> str:
    return app.screen.query_one(Footer).render().plain


async def test_the_footer_lists_the_screens_keys_and_the_palette(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        line = footer_line(app)
        assert " f2 Sessions " in line and " f3 Scores " in line and " ? Help " in line
        assert line.rstrip().endswith("▏^p palette") and len(line) == 160
        await pilot.press("f2")
        await pilot.pause()
        line = footer_line(app)
        assert " space Mark " in line and " c Compare " in line  # the sessions screen's own keys


async def test_a_click_on_a_footer_key_presses_it(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        x = footer_line(app).index("f3 Scores")
        await pilot.click(Footer, offset=(x, 0))
        await pilot.pause()
        assert type(app.screen).__name__ == "ScoresScreen"


async def test_a_narrow_footer_drops_the_least_needed_keys_and_keeps_quit_and_help(tmp_path):
    """At 80 columns the footer was cut: q, ? and F2/F3 never showed while playing."""
    app = make_app(tmp_path, task_id="i1", as_="agent")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        line = footer_line(app)
        assert len(line) == 80 and line.rstrip().endswith("▏^p palette")
        for key in ("q Back", "? Help", "f2 Sessions", "f3 Scores"):
            assert key in line, line
        assert "Answer" in line  # the role's keys come before what only ? lists


async def test_keys_that_still_do_not_fit_scroll_with_the_wheel_and_the_palette_stays(tmp_path):
    app = make_app(tmp_path)
    async with app.run_test(size=(18, 24)) as pilot:  # not even `? Help` fits beside the palette key
        await pilot.pause()
        footer = app.screen.query_one(Footer)
        before = footer_line(app)
        footer.post_message(_scroll_down(footer))
        await pilot.pause()
        after = footer_line(app)
        assert after != before and after.rstrip().endswith("▏^p palette") and len(after) == 18


def _scroll_down(widget):
    from textual.events import MouseScrollDown

    return MouseScrollDown(widget, 2, 0, 0, 1, 0, False, False, False)
