"""A key a server quotes back in its error (a 401 that says "Incorrect API key provided:
sk-…") never reaches the database, an export, the log file or the screen (issue 31)."""

from __future__ import annotations

import sqlite3

from clarify_tui.cli import main
from clarify_tui.redaction import REDACTED, redact
from tests.servers import FakeOpenAI, error

KEY = "sk-proj-R2d2C3poXwing0000secret"


def _everything_in(db) -> str:
    with sqlite3.connect(db) as conn:
        return "\n".join(conn.iterdump())


def test_a_key_echoed_in_a_401_is_stored_exported_logged_and_printed_redacted(tmp_path, monkeypatch, capsys):
    db = tmp_path / "k.db"
    with FakeOpenAI(lambda request: error(401, f"Incorrect API key provided: {KEY}. Find your key at …")) as server:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        code = main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "openai:m",
                "--db",
                str(db),
                "--run",
                "r",
                "--limit",
                "2",
            ]
        )
    assert code != 0
    captured = capsys.readouterr()
    assert KEY not in captured.out + captured.err
    assert "Incorrect API key provided" in _everything_in(db)  # the error is kept...
    assert KEY not in _everything_in(db) and REDACTED in _everything_in(db)  # ...without the key
    for fmt in ("jsonl", "csv"):
        out = tmp_path / f"s.{fmt}"
        assert main(["export", "--db", str(db), "--format", fmt, "--out", str(out)]) == 0
        assert KEY not in out.read_text(encoding="utf-8")
    log = tmp_path / "clarify-tui.log"
    assert not log.exists() or KEY not in log.read_text(encoding="utf-8")
    assert KEY not in capsys.readouterr().err


def test_only_secrets_are_redacted():
    env = {
        "OPENAI_API_KEY": KEY,
        "HOME": "/home/ana-lab-account",
        "SHORT_TOKEN": "abc",
        "TAVILY_API_KEY": "tvly-0123456789",
    }
    text = f"401 for {KEY} and tvly-0123456789 from /home/ana-lab-account (abc)"
    assert redact(text, env) == "401 for [redacted] and [redacted] from /home/ana-lab-account (abc)"
    assert redact(None, env) is None
