"""Loading every protocol of a dataset for the workbench and `serve` (tasks/collection.py)."""

from __future__ import annotations

from clarify_tui.models import PROTOCOLS, Protocol
from clarify_tui.tasks import find_task, load_all, load_tasks


def test_the_demo_loads_every_protocol():
    tasks, problems = load_all("demo")
    assert problems == []
    assert {t.protocol.value for t in tasks} == set(PROTOCOLS)
    assert len(tasks) == sum(len(load_tasks(p, "demo")) for p in PROTOCOLS)


def test_a_benchmark_limits_it_to_one_protocol():
    tasks, problems = load_all("demo", "cts")
    assert problems == [] and tasks
    assert {t.protocol for t in tasks} == {Protocol.cts}


def test_what_fails_is_one_line_per_benchmark_and_what_loads_is_kept(tmp_path):
    missing = tmp_path / "nope.jsonl"
    tasks, problems = load_all(missing)
    assert tasks == []
    assert len(problems) == 1 and problems[0].startswith(f"{missing}: ")
    assert "\n" not in problems[0]

    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\nnot json\n')
    tasks, problems = load_all(bad, "interactcomp")
    assert tasks == [] and len(problems) == 1 and problems[0].startswith("interactcomp: ")


def test_find_task_by_id_or_protocol_and_id():
    tasks, _ = load_all("demo")
    first = tasks[0]
    assert find_task(tasks, first.id) is first
    assert find_task(tasks, f"{first.protocol.value}:{first.id}") is first
    assert find_task(tasks, "no-such-task") is None
