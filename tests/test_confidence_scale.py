"""InteractComp confidence is on the papers' 0-100 scale (issue 31, item 3): a value off it
(250) is left out of calibration, counted and warned about; one between 0 and 1 (an agent on
a 0-1 scale) is used as stated, counted and warned about; never silently."""

from __future__ import annotations

import json

import pytest

from clarify_tui.cli import main

AGENT = """
from clarify_tui import Action

CONFIDENCE = {"t1": 250, "t2": 80, "t3": 80}

class Stated:
    def act(self, view):
        return Action.answer("Hornussen", CONFIDENCE[view.task_id])

class OnAUnitScale:
    def act(self, view):
        return Action.answer("Hornussen", 0.9)
"""


@pytest.fixture
def setup(tmp_path):
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    data = tmp_path / "ic.jsonl"
    data.write_text(
        "".join(
            json.dumps({"id": f"t{i}", "question": "Which sport is it?", "answer": "Hornussen", "context": "A puck."})
            + "\n"
            for i in (1, 2, 3)
        ),
        encoding="utf-8",
    )
    return tmp_path, data


def run_and_score(tmp_path, data, agent, capsys):
    db = str(tmp_path / f"{agent}.db")
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--dataset",
                str(data),
                "--agent",
                f"py:{tmp_path / 'agent.py'}:{agent}",
                "--db",
                db,
                "--run",
                agent,
            ]
        )
        == 0
    )
    ran = " ".join(capsys.readouterr().err.split())
    assert main(["score", "--db", db, "--format", "json"]) == 0
    out = capsys.readouterr()
    [group] = json.loads(out.out)["groups"]
    return ran, " ".join(out.err.split()), group["metrics"]


def test_a_confidence_off_the_scale_is_left_out_of_calibration_counted_and_warned(setup, capsys):
    tmp_path, data = setup
    ran, scored, m = run_and_score(tmp_path, data, "Stated", capsys)
    assert m["accuracy"] == 1.0
    # the two answers at 80 alone: |1.0 - 0.8|; with the 250 in, it was |1.0 - 1.3667|
    assert m["calibration_error"] == pytest.approx(0.2)
    assert (m["calibration_n"], m["out_of_range_confidence"], m["calibration_missing"]) == (2, 1, 0)
    warning = (
        "warning: 1 answer(s) gave a confidence outside the papers' 0-100 scale (e.g. 250): left out of "
        "calibration_error, counted in out_of_range_confidence"
    )
    assert warning in ran and warning in scored


def test_a_confidence_on_a_unit_scale_is_used_as_stated_but_counted_and_warned(setup, capsys):
    tmp_path, data = setup
    ran, scored, m = run_and_score(tmp_path, data, "OnAUnitScale", capsys)
    assert m["calibration_error"] == pytest.approx(0.991)  # 0.9 read as 0.9 %, the papers' scale
    assert (m["fractional_confidence"], m["out_of_range_confidence"]) == (3, 0)
    warning = "warning: 3 answer(s) gave a confidence between 0 and 1 (e.g. 0.9): the papers' scale is 0-100"
    assert warning in ran and warning in scored
