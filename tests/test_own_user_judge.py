"""A researcher's own user simulator and judge (docs/users.md, docs/judges.md): the
examples the docs print run through `clarify-tui run --user py:... --judge py:...` on every
protocol, and each is called with exactly the arguments the docs say (the stored replies and
verdicts are what the example gives for them); InteractComp's user contract is enforced."""

from __future__ import annotations

import importlib.util
import json
import re

import pytest

from clarify_tui.cli import main
from clarify_tui.models import ActionKind
from clarify_tui.store import Store
from clarify_tui.users.unknown import as_ua_answer
from tests.clitools import ROOT

USER = "py:examples/my_user.py:MyUser"
JUDGE = "py:examples/my_judge.py:MyJudge"


def example(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("doc,name", [("users", "my_user"), ("judges", "my_judge")])
def test_the_docs_print_the_example_files_exactly(doc, name):
    text = (ROOT / "docs" / f"{doc}.md").read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith(f"# {name}.py"))
    assert block == (ROOT / "examples" / f"{name}.py").read_text(encoding="utf-8")


def _run(tmp_path, benchmark, monkeypatch, capsys) -> tuple[Store, list]:
    monkeypatch.chdir(ROOT)  # the specs name the files as a researcher in the repository would
    db = tmp_path / "r.db"
    extra = ["--k", "2", "--deep-search", "scripted:search-then-ask"] if benchmark == "cts" else []
    assert (
        main(
            [
                "run",
                "--benchmark",
                benchmark,
                "--agent",
                "scripted:ask-first",
                "--user",
                USER,
                "--judge",
                JUDGE,
                "--db",
                str(db),
                "--run",
                "mine",
                "--limit",
                "3",
                *extra,
            ]
        )
        == 0
    )
    assert "3 completed, 0 errored" in capsys.readouterr().err
    store = Store(db)
    sessions = store.sessions(runs=["mine"])
    config = store.run_row("mine")["config"]
    assert {s.user for s in sessions} == {USER} and {s.judge for s in sessions} == {JUDGE}
    assert "user_sha256" in config and "judge_sha256" in config
    return store, sessions


def test_the_example_user_and_judge_play_interactcomp(tmp_path, monkeypatch, capsys):
    store, sessions = _run(tmp_path, "interactcomp", monkeypatch, capsys)
    user, judge = example("my_user").MyUser(), example("my_judge").MyJudge()
    asked = 0
    for session in sessions:
        task, steps = store.task_for(session.id), store.steps(session.id)
        for ask, reply in zip(steps, steps[1:]):
            if ask.actor == "agent" and ask.action.kind == ActionKind.ask:
                assert reply.actor == "user" and reply.action.text == user.reply_interactcomp(task, ask.action.text)
                asked += 1
        answer = next(s.action.text for s in steps if s.action.kind == ActionKind.answer)
        assert session.result.correct == judge.equivalent(task.question, answer, task.gold)["correct"]
    assert asked >= 3


def test_the_example_user_and_judge_play_discobench(tmp_path, monkeypatch, capsys):
    store, sessions = _run(tmp_path, "discobench", monkeypatch, capsys)
    user_mod, judge = example("my_user"), example("my_judge").MyJudge()
    clues = 0
    for session in sessions:
        task, steps = store.task_for(session.id), store.steps(session.id)
        checkpoints = task.discobench.checkpoints
        for i, step in enumerate(steps):
            if step.actor != "judge" or step.action.text != "ask target":
                continue
            ask, reply, checkpoint = steps[i - 1], steps[i + 1], checkpoints[step.observation.data["checkpoint"]]
            targets = judge.ask_targets(checkpoint, ask.action.text)["targets"]
            assert step.observation.data["asked_right"] == (targets and checkpoint.type == "ambi")
            want = checkpoint.clue if step.observation.data["asked_right"] else user_mod.NOTHING
            assert reply.actor == "user" and reply.action.text == want  # the clue rule
            clues += reply.observation.data["released_clue"]
        answer = next(s.action.text for s in reversed(steps) if s.action.kind == ActionKind.answer)
        assert session.result.correct == judge.equivalent(task.question, answer, task.gold, "discobench")["correct"]
    assert clues >= 1


def test_the_example_user_and_judge_play_cts(tmp_path, monkeypatch, capsys):
    store, sessions = _run(tmp_path, "cts", monkeypatch, capsys)
    user, judge = example("my_user").MyUser(), example("my_judge").MyJudge()
    for session in sessions:
        task, steps = store.task_for(session.id), store.steps(session.id)
        replies = [s for s in steps if s.actor == "user" and s.action.kind == ActionKind.reply]
        pairs = [(s.action.text, s.observation.text) for s in replies]
        assert len(pairs) == 2 and all(a == as_ua_answer(user.answer_clarification(task, q)) for q, a in pairs)
        rewrite = next(s for s in steps if s.action.kind == ActionKind.rewrite)
        assert rewrite.action.text == user.rewrite(task.cts.blurred_query, pairs)
        answer = next(s.action.text for s in steps if s.action.kind == ActionKind.answer)
        want = judge.nuggets(answer, task.cts.nuggets, task.cts.fused_query)["coverage"]
        assert [c.coverage for c in session.result.coverage] == want


OFF_CONTRACT = """
class Chatty:
    def __init__(self, says="maybe"):
        self.says = says
    def reply_interactcomp(self, task, question):
        return self.says
"""


@pytest.mark.parametrize(
    "says,stored", [("maybe", None), ("Yes, it is.", None), ("Yes.", "yes"), ("I don\u2019t know", "i don't know")]
)
def test_an_interactcomp_user_reply_outside_yes_no_i_dont_know_errors_the_session(tmp_path, capsys, says, stored):
    (tmp_path / "chatty.py").write_text(OFF_CONTRACT, encoding="utf-8")
    (tmp_path / "clarify.toml").write_text(f"[user.args]\nsays = {json.dumps(says)}\n", encoding="utf-8")
    db = tmp_path / "c.db"
    code = main(
        [
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            "scripted:ask-first",
            "--db",
            str(db),
            "--run",
            "c",
            "--limit",
            "1",
            "--task-attempts",
            "1",
            "--user",
            f"py:{tmp_path}/chatty.py:Chatty",
            "--config",
            str(tmp_path / "clarify.toml"),
        ]
    )
    store = Store(db)
    [session] = store.sessions(runs=["c"])
    replies = [s.action.text for s in store.steps(session.id) if s.actor == "user"]
    if stored is None:  # never stored as the user's words, never shown to the agent
        assert code == 1 and session.status == "errored" and replies == []
        assert f"returned {says!r}, not yes, no or i don't know" in session.error
    else:
        assert code == 0 and session.status == "completed" and set(replies) == {stored}
