"""Re-judging stored sessions with an LLM judge on a loopback OpenAI server, then scoring
with either judge's verdicts."""

from __future__ import annotations

import json

from servers import FakeOpenAI, Script, chat

from clarify_tui.cli import main
from tests.conftest import IC


def test_judge_with_an_llm_then_score_with_each_judge(tmp_path, search, monkeypatch, capsys):
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    data = tmp_path / "ic.jsonl"
    data.write_text(IC.model_dump_json() + "\n", encoding="utf-8")
    db = tmp_path / "j.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                str(data),
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--run",
                "dg",
            ]
        )
        == 0
    )
    with FakeOpenAI(Script(chat("yes"))) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert main(["judge", "--db", str(db), "--run", "dg", "--judge", "openai:grader-m"]) == 0
        [request] = server.chat_requests()
        assert "Tokyo Tower" in request.prompt  # the stored answer was sent to the grader
    capsys.readouterr()

    def accuracy(*extra: str) -> float:
        assert main(["score", "--db", str(db), "--format", "json", *extra]) == 0
        [group] = json.loads(capsys.readouterr().out)["groups"]
        return group["metrics"]["accuracy"]

    assert accuracy("--judge", "rule") == 0.0
    assert accuracy("--judge", "openai:grader-m") == 1.0
    assert accuracy() == 1.0  # default: the latest judgment


def test_rejudging_reads_the_grader_as_the_session_was_read(tmp_path, search, monkeypatch, capsys):
    """A default run is graded as the reference (benchmark.py:132-148: gold text only, "yes"
    anywhere is correct); `judge` re-grades it the same way, and a `--compat strict` run our way."""
    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    data = tmp_path / "ic.jsonl"
    data.write_text(IC.model_dump_json() + "\n", encoding="utf-8")
    db = tmp_path / "j.db"
    common = [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        str(data),
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
    ]
    assert main([*common, "--run", "paper"]) == 0
    assert main([*common, "--run", "strict", "--compat", "strict"]) == 0
    reasoned = "No: the towers differ, so I cannot say yes.\nno"
    correct = {}
    with FakeOpenAI(lambda r: chat(reasoned)) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        for run in ("paper", "strict"):
            assert main(["judge", "--db", str(db), "--run", run, "--judge", "openai:grader-m"]) == 0
            capsys.readouterr()
            assert main(["score", "--db", str(db), "--run", run, "--format", "json"]) == 0
            [group] = json.loads(capsys.readouterr().out)["groups"]
            correct[run] = group["metrics"]["accuracy"]
    assert correct == {"paper": 1.0, "strict": 0.0}


def test_a_killed_judge_resumes_without_judging_anything_twice(tmp_path, search, monkeypatch, capsys):
    """`judge` stores each verdict as it is made; after a kill, `--resume` judges only the
    sessions still without a verdict of that judge (each grader call costs money)."""
    import sqlite3

    import clarify_tui.backends as backends

    monkeypatch.setattr(backends, "_local_search", lambda: search)
    db = tmp_path / "k.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                "demo",
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--run",
                "dg",
            ]
        )
        == 0
    )
    with FakeOpenAI(lambda request: chat("yes")) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert main(["judge", "--db", str(db), "--run", "dg", "--judge", "openai:grader-m"]) == 0
        judged = len(server.chat_requests())
        conn = sqlite3.connect(db)  # the kill: the last four verdicts were never made
        conn.execute("DELETE FROM judgments WHERE id IN (SELECT id FROM judgments ORDER BY id DESC LIMIT 4)")
        conn.commit()
        capsys.readouterr()
        assert main(["judge", "--db", str(db), "--run", "dg", "--judge", "openai:grader-m", "--resume"]) == 0
        assert len(server.chat_requests()) == judged + 4
        err = capsys.readouterr().err
        assert f"{judged - 4} session(s) already held a verdict of openai:grader-m: skipped" in err
    per_session = conn.execute("SELECT COUNT(*) FROM judgments GROUP BY session_id").fetchall()
    assert len(per_session) == judged and {n for (n,) in per_session} == {1}
