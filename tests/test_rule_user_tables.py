"""The offline users against tables of what the task decides (issue 22).

Each row of tests/fixtures/rule_user_interactcomp.csv is a question to a bundled
InteractComp demo task with the reply its context decides (paraphrases and negated facts
among them); tests/fixtures/rule_user_cts.csv does the same for the CTS tasks and their
intent queries. The rule users must agree with every row, and every bundled task has at
least 3 rows, so a false "yes" to a negated fact (ic-05: "Was he the mission
commander?" against "He was not the mission commander.") is caught.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from clarify_tui.models import Protocol, Task
from clarify_tui.tasks.demo import demo_file
from clarify_tui.users.rule import RuleUser

FIXTURES = Path(__file__).parent / "fixtures"


def _tasks(protocol: Protocol) -> dict[str, Task]:
    lines = demo_file(protocol).read_text(encoding="utf-8").splitlines()
    return {t.id: t for t in (Task.model_validate(json.loads(line)) for line in lines if line.strip())}


def _table(name: str) -> list[dict[str, str]]:
    with (FIXTURES / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


IC_TASKS = _tasks(Protocol.interactcomp)
IC_ROWS = _table("rule_user_interactcomp.csv")
CTS_TASKS = _tasks(Protocol.cts)
CTS_ROWS = _table("rule_user_cts.csv")


@pytest.mark.parametrize(("tasks", "rows"), [(IC_TASKS, IC_ROWS), (CTS_TASKS, CTS_ROWS)], ids=["interactcomp", "cts"])
def test_every_bundled_task_has_at_least_three_rows(tasks, rows):
    counts = {tid: sum(1 for r in rows if r["task"] == tid) for tid in tasks}
    assert min(counts.values()) >= 3, counts
    assert {r["task"] for r in rows} <= set(tasks)


@pytest.mark.parametrize("row", IC_ROWS, ids=[f"{r['task']}:{r['question']}" for r in IC_ROWS])
async def test_interactcomp_rule_user_replies_what_the_context_decides(row):
    reply = await RuleUser().reply_interactcomp(IC_TASKS[row["task"]], row["question"])
    assert reply.text == row["reply"], row["why"]


@pytest.mark.parametrize("row", CTS_ROWS, ids=[f"{r['task']}:{r['question']}" for r in CTS_ROWS])
async def test_cts_rule_user_answers_what_the_intent_decides(row):
    reply = await RuleUser().answer_clarification(CTS_TASKS[row["task"]], row["question"])
    assert reply.text == row["answer"], row["why"]


async def test_without_intent_slots_a_which_question_gets_the_named_event_from_the_fused_query():
    """The released data has no slots: the user reads what the fused query adds (paper 001 line 121)."""
    task = CTS_TASKS["cts-06"].model_copy(deep=True)
    task.cts.intent_slots = {}
    user = RuleUser()
    assert (
        await user.answer_clarification(task, "Which competition's final do you mean?")
    ).text == "2014 FIFA World Cup"
    assert (await user.answer_clarification(task, "Which year do you mean?")).text == "2014"
