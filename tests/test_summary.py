"""A session in a few words (clarify_tui/summary.py): the CLI's `sessions` and the TUI's
sessions list read the same outcome, failure and duration."""

from __future__ import annotations

from clarify_tui.cli import main as cli
from clarify_tui.models import Session
from clarify_tui.results import parse_result
from clarify_tui.store import Store
from clarify_tui.summary import duration, failed, outcome, seconds
from tests.conftest import CTS, IC


def make(protocol: str, status: str = "completed", **result) -> Session:
    return Session(
        task_id="t",
        protocol=protocol,
        agent="a",
        user="u",
        search="s",
        status=status,
        result=result,
        created_at="2026-01-01T10:00:00+00:00",
        finished_at="2026-01-01T10:00:12.34+00:00",
    )


def test_failed_means_a_wrong_answer_or_a_restore_score_below_100():
    assert failed(make("interactcomp", correct=False))
    assert not failed(make("interactcomp", correct=True))
    assert not failed(make("interactcomp"))  # not judged
    assert failed(make("cts", restore_score=40.0))
    assert not failed(make("cts", restore_score=100.0))
    assert not failed(make("interactcomp", status="errored", correct=False))  # excluded, not failed


def test_outcome_and_duration_words():
    s = make("cts", restore_score=40.0)
    assert outcome(s) == "40.0" and seconds(s) == 12.34 and duration(s) == "12.3s"
    running = make("interactcomp", status="running").model_copy(update={"finished_at": None})
    assert outcome(running) == "running" and seconds(running) is None and duration(running) == ""


def test_sessions_failed_lists_wrong_answers_and_low_restore_scores(tmp_path, capsys):
    db = tmp_path / "s.db"
    store = Store(db)
    try:
        for task, result in (
            (IC, {"correct": False}),
            (IC, {"correct": True}),
            (CTS, {"restore_score": 40.0}),
            (CTS, {"restore_score": 100.0}),
        ):
            s = Session(task_id=task.id, protocol=task.protocol, agent="a", user="u", search="s")
            store.start_session(s, task)
            s.status, s.result, s.finished_at = "completed", parse_result(task.protocol, result), s.created_at
            store.finish_session(s)
    finally:
        store.close()
    assert cli(["sessions", "--db", str(db)]) == 0
    assert "4 session(s)" in capsys.readouterr().out
    assert cli(["sessions", "--db", str(db), "--failed"]) == 0
    assert "2 session(s)" in capsys.readouterr().out
