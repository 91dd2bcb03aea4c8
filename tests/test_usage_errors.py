"""A user's mistake is one line and exit 2 (UsageError); a bug's ValueError or KeyError is
not dressed up as one: its traceback shows (exit 1) and is kept in the log (issue 32).
The user's mistakes themselves are inventoried in test_bad_input*.py."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from clarify_tui.cli import main
from clarify_tui.errors import NotFound, UsageError
from clarify_tui.store import Store
from tests.clitools import ROOT, cli_env

BUG = "a bug deep inside, not the user's input"


def _boom(exc: type[Exception]):
    def step_counts(self):
        raise exc(BUG)

    return step_counts


def test_a_bugs_value_error_shows_its_traceback_and_exits_1(tmp_path):
    db = tmp_path / "s.db"
    Store(db).close()
    script = textwrap.dedent(f"""
        import sys
        from clarify_tui.store import Store
        def step_counts(self):
            raise ValueError({BUG!r})
        Store.step_counts = step_counts
        from clarify_tui.cli import main
        sys.exit(main(["sessions", "--db", {str(db)!r}]))
    """)
    proc = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=cli_env(), cwd=ROOT, timeout=120
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback (most recent call last)" in proc.stderr and f"ValueError: {BUG}" in proc.stderr
    assert "in step_counts" in proc.stderr  # where the bug is, not only what it said
    assert "clarify-tui hit a bug" in proc.stderr and str(tmp_path / "clarify-tui.log") in proc.stderr
    log = (tmp_path / "clarify-tui.log").read_text()
    assert "Traceback (most recent call last)" in log and f"ValueError: {BUG}" in log


@pytest.mark.parametrize("exc", [ValueError, KeyError])
def test_a_bug_is_not_swallowed_into_one_error_line(exc, tmp_path, capsys, monkeypatch):
    db = tmp_path / "s.db"
    Store(db).close()
    monkeypatch.setattr(Store, "step_counts", _boom(exc))
    assert main(["sessions", "--db", str(db)]) == 1  # it was 2, after printing "error: <message>" alone
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and f"{exc.__name__}: " in err and "in step_counts" in err
    assert "error:" not in err and "hit a bug" in err
    assert f"{exc.__name__}: " in (tmp_path / "clarify-tui.log").read_text()


def test_a_bugs_traceback_hides_a_key_it_quotes(tmp_path, capsys, monkeypatch):
    key = "sk-proj-R2d2C3poXwing0000secret"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    db = tmp_path / "s.db"
    Store(db).close()

    def step_counts(self):
        raise ValueError(f"bad header Authorization: Bearer {key}")

    monkeypatch.setattr(Store, "step_counts", step_counts)
    assert main(["sessions", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "Bearer [redacted]" in err and key not in err
    assert key not in (tmp_path / "clarify-tui.log").read_text()


def test_a_users_mistake_stays_one_line_with_exit_2(tmp_path, capsys):
    db = tmp_path / "s.db"
    Store(db).close()
    assert main(["replay", "--db", str(db), "nosuchid"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"error: no session 'nosuchid' in {db}"  # unquoted, unlike a KeyError's text
    assert not (tmp_path / "clarify-tui.log").exists()


def test_usage_errors_are_still_caught_where_value_and_key_errors_were():
    """Code that catches ValueError around a parse (the TUI's forms) or KeyError around a
    lookup keeps working."""
    with pytest.raises(ValueError):
        raise UsageError("x")
    with pytest.raises(KeyError):
        raise NotFound("no session 'x'")
    assert str(NotFound("no session 'x'")) == "no session 'x'"
