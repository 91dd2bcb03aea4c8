"""A grader reply that states no verdict (empty, a refusal, "I need to think...") is a wrong
answer under the paper's reading, and stays one; but it is counted per group (score json,
the run summary, report) and the reply is kept on the judge step, so a reader sees how many
wrongs are the grader's and not the agent's (issue 31, item 1)."""

from __future__ import annotations

import json

import pytest
from servers import FakeOpenAI, chat

from clarify_tui.cli import main
from clarify_tui.store import Store

ANSWER = 'Thinking.\n```json\n{"action": "answer", "params": {"answer": "Hornussen", "confidence": "80"}}\n```'
# task tag -> what the grader says about the (right) answer "Hornussen"
GRADES = {
    "YES": "yes",
    "EMPTY": "",
    "THINK": "I need to think about this more carefully.",
    "REFUSE": "I'm sorry, I can't help with that request.",
    "NO": "no",
}


def grader(request):
    if request.model == "agent-m":
        return chat(ANSWER)
    if "impartial grader" in request.prompt:
        tag = request.prompt.split("Question: ")[1].split(":")[0]
        return chat(GRADES[tag])
    return chat("yes")


@pytest.fixture
def dataset(tmp_path):
    path = tmp_path / "ic.jsonl"
    path.write_text(
        "".join(
            json.dumps({"id": i, "question": f"{tag}: which sport is it?", "answer": "Hornussen", "context": "A puck."})
            + "\n"
            for i, tag in enumerate(GRADES, 1)
        ),
        encoding="utf-8",
    )
    return path


def run(tmp_path, dataset, models, *extra) -> str:
    config = tmp_path / "clarify.toml"
    config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
    return str(tmp_path / "run.db"), [
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        str(dataset),
        "--agent",
        "openai:agent-m",
        "--user",
        "openai:user-m",
        "--judge",
        "openai:judge-m",
        "--config",
        str(config),
        "--db",
        str(tmp_path / "run.db"),
        *extra,
    ]


def test_unreadable_grader_replies_are_wrong_counted_and_kept_on_the_judge_step(tmp_path, dataset, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(grader) as models:
        db, argv = run(tmp_path, dataset, models, "--run", "r1")
        assert main(argv) == 0
    summary = " ".join(capsys.readouterr().err.split())
    # the paper's reading is kept: only "yes" is right, the oracle's other four answers are wrong
    assert "accuracy 0.20 (1/5)" in summary
    assert "3 unreadable grader replies scored wrong (the paper's reading" in summary

    assert main(["score", "--db", db, "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert group["metrics"]["unreadable_verdicts"] == 3 and group["metrics"]["accuracy"] == 0.2

    assert main(["report", "--db", db]) == 0
    report = " ".join(capsys.readouterr().out.split())
    assert (
        "Unreadable grader replies (empty, a refusal, no yes or no), scored wrong as the paper reads them; "
        "so many of the wrong answers are the grader's: r1 3." in report
    )

    store = Store(db)
    judged = {}
    for s in store.sessions():
        [step] = [st for st in store.steps(s.id) if st.actor == "judge"]
        judged[s.task_id] = step.observation
    replies = {tag: judged[str(i)].data["reply"] for i, tag in enumerate(GRADES, 1)}
    assert replies == GRADES  # every reply kept, the readable ones too
    assert [tag for i, tag in enumerate(GRADES, 1) if judged[str(i)].data.get("unreadable")] == [
        "EMPTY",
        "THINK",
        "REFUSE",
    ]
    assert "the grader's reply states no verdict ('I need to think" in judged["3"].text
    # what replay draws for that judge step
    from rich.console import Console

    from clarify_tui.tui.widgets.step_card import render_step

    [session] = [s for s in store.sessions() if s.task_id == "3"]
    console = Console(width=200, record=True)
    for step in store.steps(session.id):
        console.print(render_step(step))
    assert (
        "wrong: the grader's reply states no verdict ('I need to think about this more carefully.'), read as "
        "no, as the paper reads it" in " ".join(console.export_text().split())
    )


def test_under_compat_strict_the_graders_reply_is_kept_too(tmp_path, dataset, monkeypatch, capsys):
    """Strict reading asks again on an unreadable reply (then errors): no verdict is unreadable,
    and the reply it read is on the judge step as in the paper's reading."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(grader) as models:
        db, argv = run(tmp_path, dataset, models, "--compat", "strict", "--task-ids", "1,5")
        assert main(argv) == 0
    capsys.readouterr()
    assert main(["score", "--db", db, "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    assert group["metrics"]["unreadable_verdicts"] == 0
    store = Store(db)
    replies = {
        s.task_id: [st for st in store.steps(s.id) if st.actor == "judge"][0].observation.data["reply"]
        for s in store.sessions()
    }
    assert replies == {"1": "yes", "5": "no"}


@pytest.mark.parametrize(
    "reply, correct, unreadable",
    [
        ("yes", True, False),
        ("no", False, False),
        ("No, the names differ.", False, False),
        ("", False, True),
        ("I need to think.", False, True),
        ("Correct.", False, True),
        ("I cannot determine that.", False, True),
    ],
)
def test_which_replies_are_unreadable(reply, correct, unreadable):
    from clarify_tui.judges.llm import unreadable_grade
    from clarify_tui.protocols.interactcomp.reference import grader_reading

    assert grader_reading(reply) is correct
    assert unreadable_grade(reply, correct) is unreadable
