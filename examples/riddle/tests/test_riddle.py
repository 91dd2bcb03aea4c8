"""Riddle installed: clarify-tui finds it, reads its tasks, and its rule user gives the hint."""

from __future__ import annotations

from clarify_riddle import user

from clarify_tui.protocols import registry
from clarify_tui.tasks import load_tasks


def test_registered_beside_the_builtins() -> None:
    assert registry.names()[-1] == "riddle"
    assert registry.get("riddle").title == "Riddle"


def test_rule_user_gives_the_hint_of_the_bundled_task() -> None:
    tasks = load_tasks("riddle", "demo")
    assert [t.id for t in tasks] == ["rd-01", "rd-02", "rd-03"]
    assert user.reply(tasks[0], "which country?") == "It is the capital of Australia."
    assert "It is the capital of Australia." in tasks[0].hidden_strings()
