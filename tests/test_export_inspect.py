"""export --format inspect: Inspect AI .eval logs, read back with Inspect's own reader.
Samples are sessions (epochs counted from 1, as Inspect does), the eval's metrics are our
score's numbers, an errored session is a sample error (never a score)."""

from __future__ import annotations

import pytest

from clarify_tui import api
from clarify_tui.cli import main
from clarify_tui.errors import AgentUnavailable

inspect_log = pytest.importorskip("inspect_ai.log")


class FlakyAgent:
    """Answers, but its server is down for one task (infrastructure: errored)."""

    def act(self, view):
        from clarify_tui import Action

        if view.task_id == "ic-02":
            raise AgentUnavailable("model server down")
        return Action.answer("Armageddon", confidence=80)


def test_inspect_logs_read_back_with_inspects_reader(tmp_path, capsys):
    db = tmp_path / "i.db"
    api.run("interactcomp", FlakyAgent(), db=db, name="ic", limit=3, epochs=2, task_attempts=1,
            episode={"interactcomp_mode": "answer_only"})
    api.run("cts", "scripted:ask-first", db=db, name="cts", limit=2, episode={"k": 2})
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["cts.eval", "ic.eval"]

    log = inspect_log.read_eval_log(str(out / "ic.eval"))
    assert log.status == "success" and log.eval.task == "clarify_tui/interactcomp" and log.eval.config.epochs == 2
    assert log.eval.model == f"py:{__name__}:FlakyAgent"
    assert sorted((s.id, s.epoch) for s in log.samples) == [(t, e) for t in ("ic-01", "ic-02", "ic-03") for e in (1, 2)]
    errored = [s for s in log.samples if s.error is not None]
    assert {s.id for s in errored} == {"ic-02"} and all(not s.scores for s in errored)
    assert "model server down" in errored[0].error.message
    scored = [s for s in log.samples if s.error is None]
    assert all(s.scores["clarify_tui"].value in (0.0, 1.0) and s.messages[1].tool_calls[0].function == "answer"
               for s in scored)
    ours = api.score(db, runs=["ic"])["groups"][0]["metrics"]
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == ours["accuracy"] and metrics["errored"] == ours["errored"] == 2
    assert metrics["pass^2"] == ours["epochs"]["pass_k"]["2"]

    cts = inspect_log.read_eval_log(str(out / "cts.eval"))
    sample = cts.samples[0]
    assert sample.messages[1].tool_calls[0].function == "clarify" and len(sample.messages[1].tool_calls[0].arguments["items"]) == 2
    assert isinstance(sample.target, list) and 0 <= sample.scores["clarify_tui"].value <= 100
    assert {k: m.value for k, m in cts.results.scores[0].metrics.items()}["restore_score_mean"] == \
        api.score(db, runs=["cts"])["groups"][0]["metrics"]["restore_score_mean"]


def test_inspect_export_needs_a_folder(tmp_path, capsys):
    db = tmp_path / "i.db"
    api.run("interactcomp", "scripted:direct-guess", db=db, name="ic", limit=1)
    assert main(["export", "--db", str(db), "--format", "inspect"]) == 2
    assert "give --out FOLDER" in capsys.readouterr().err
