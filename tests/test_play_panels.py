"""The play screen's panels and status line follow every step: refresh_all skips only
what did not change (a step that moves no counter), never what did."""

from __future__ import annotations

from clarify_tui.tui.widgets.question import QuestionPanel
from tests.test_tui import SIZE, _plain, make_app, search, settle, store  # noqa: F401  (fixtures)


def shown(screen) -> tuple[str, str]:
    return _plain(screen.query_one(QuestionPanel).text.render()), _plain(screen.query_one("#status").render())


async def test_the_question_panel_and_status_line_show_each_new_step(store, search):  # noqa: F811
    app = make_app(store, search, task_id="i1", run_mode="step")
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        question, status = shown(screen)
        assert "rounds 0/" in question and status.startswith("0 steps ·")
        for rounds in (1, 2):
            await pilot.press("space")
            await settle(pilot)
            await pilot.press("enter")
            await settle(pilot)
            question, status = shown(screen)
            assert f"rounds {rounds}/" in question, question
            n = len(screen.driver.steps)
            assert status.startswith(f"{n} step{'' if n == 1 else 's'} ·")
        screen.refresh_all()  # nothing changed: the same text stays
        assert shown(screen) == (question, status)
