"""Watch mode's pace at 80 columns (issue 30): the status line a person reads shows the
mode and pace `a`, `+` and `-` change, and `play --pace SECONDS` sets the time between two
steps of the watched agent (recorded, not timed: no wall clock)."""

from __future__ import annotations

import re

import pytest

from clarify_tui.cli import main as cli
from clarify_tui.store import Store
from clarify_tui.tui import app as app_module
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.messages import SessionEnded
from clarify_tui.tui.screens.play_controls import WatchControls
from tests.test_annotator_screen import SMALL, demo_app, frames
from tests.test_tui import Messages


def pace_drawn(app) -> str:
    """The drawn status line's "watch (…, N s/step)", or "" when it is not on screen."""
    lines = [strip.text for strip in app.screen._compositor.render_strips()]
    found = [m.group(0) for line in lines for m in [re.search(r"watch \((running|paused), [\d.]+ s/step\)", line)] if m]
    return found[0] if found else ""


@pytest.mark.parametrize("role", ["observer", "user"])
async def test_the_pace_is_drawn_at_80_columns_and_follows_plus_and_minus(tmp_path, role):
    app = demo_app(Store(tmp_path / "p.db"), task_id="dg-01", as_=role, auto=False)
    async with app.run_test(size=SMALL) as pilot:
        await frames(pilot)
        assert pace_drawn(app) == "watch (paused, 0.5 s/step)"
        await pilot.press("plus")
        await frames(pilot)
        assert pace_drawn(app) == "watch (paused, 0.25 s/step)"
        await pilot.press("minus", "minus")
        await frames(pilot)
        assert pace_drawn(app) == "watch (paused, 1 s/step)"
        await pilot.press("a")  # running: the agent steps; the line still says the pace
        await frames(pilot)
        assert pace_drawn(app) in ("watch (running, 1 s/step)", "")  # "" only once the session has ended
        assert pace_drawn(app) or app.screen.driver.done


def test_play_pace_sets_the_time_between_steps(tmp_path, monkeypatch):
    """`play --pace 1.5` reaches the screen: the watched agent waits 1.5 s between steps
    (each wait recorded instead of slept), the status line says so, and `+` goes on from
    it to the next faster pace."""
    opened: dict = {}
    monkeypatch.setattr(app_module, "run_app", lambda **kwargs: opened.update(kwargs) or 0)
    assert cli(["play", "--task", "dg-01", "--pace", "1.5", "--db", str(tmp_path / "w.db")]) == 0
    assert opened["pace"] == 1.5
    waits: list[float] = []

    async def recorded(self, seconds: float) -> None:
        waits.append(seconds)

    monkeypatch.setattr(WatchControls, "between_steps", recorded)
    import asyncio

    async def watch() -> None:
        hook = Messages()
        app = ClarifyApp(**{**opened, "auto": False})
        async with app.run_test(size=SMALL, message_hook=hook) as pilot:
            await frames(pilot)
            assert pace_drawn(app) == "watch (paused, 1.5 s/step)"
            await pilot.press("a")
            await hook.next(SessionEnded, timeout=60)
            await frames(pilot)
        assert waits and set(waits) == {1.5}, waits
        app = ClarifyApp(**{**opened, "auto": False})
        async with app.run_test(size=SMALL) as pilot:
            await frames(pilot)
            await pilot.press("plus")
            await frames(pilot)
            assert pace_drawn(app) == "watch (paused, 1 s/step)"

    asyncio.run(watch())


def test_play_pace_refuses_a_negative_number_and_playing_the_agent(capsys):
    for extra in (["--pace", "-1"], ["--as", "agent", "--pace", "1"]):
        with pytest.raises(SystemExit) as exit_:
            cli(["play", "--task", "dg-01", *extra])
        assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "must be at least 0 seconds" in err and "--pace paces a watched agent" in err
