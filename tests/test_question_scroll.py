"""The question panel at 80×24 (issue 30): ctrl+↓ moves the drawn text, and the line
saying which DiscoBench checkpoint the agent is on stays drawn however the question is
cut or scrolled. Everything is read from the screen's drawn lines."""

from __future__ import annotations

import pytest

from clarify_tui.store import Store
from tests.test_annotator_screen import SMALL, demo_app, frames

ROLES = {"agent": {"as_": "agent"}, "user": {"as_": "user", "run_mode": "step"}, "step": {"run_mode": "step"}}


def drawn(app) -> list[str]:
    """The terminal's lines as drawn."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def question_box(app) -> tuple[list[str], str]:
    """The question panel's drawn rows (inside its border) and its bottom border."""
    lines = drawn(app)
    top = next(i for i, line in enumerate(lines) if line.startswith("╭─ Question"))
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("╰"))
    return [line[1:-1].strip() for line in lines[top + 1 : bottom]], lines[bottom]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("task_id", ["dg-01", "dg-02", "dg-03"])
async def test_ctrl_down_moves_the_drawn_question_and_the_checkpoint_stays(tmp_path, task_id, role):
    app = demo_app(Store(tmp_path / "q.db"), task_id=task_id, **ROLES[role])
    async with app.run_test(size=SMALL) as pilot:
        await frames(pilot)
        rows, border = question_box(app)
        first = rows[0]
        assert "You are on checkpoint 1 of" in " ".join(rows), rows
        assert "more ↓" in border and not any(r.startswith("allowed:") for r in rows), rows
        await pilot.press("ctrl+down")
        await frames(pilot)
        rows, border = question_box(app)
        assert first not in rows and any(r.startswith("allowed:") for r in rows), rows  # the text moved
        assert "You are on checkpoint 1 of" in " ".join(rows), rows  # the notice did not
        assert "ctrl+↑" in border
        await pilot.press("ctrl+up")
        await frames(pilot)
        rows, _ = question_box(app)
        assert rows[0] == first and "You are on checkpoint 1 of" in " ".join(rows)
