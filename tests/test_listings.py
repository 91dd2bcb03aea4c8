"""Listings readable anywhere (issue: piped output wrapped every column to two
characters; 75 lines for 6 sessions). Piped: plain aligned columns, one line a row; on an
80-column terminal: one line a row, the columns a reviewer needs first; csv and json for scripts."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from clitools import run_cli

from clarify_tui.commands.listing import emit, fitting

LONG_RUN = "a-rather-long-run-name-for-a-paper"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("listings") / "l.db"
    code, _, err = run_cli(
        "run",
        "--benchmark",
        "interactcomp",
        "--dataset",
        "demo",
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(path),
        "--run",
        LONG_RUN,
        "--limit",
        "6",
    )
    assert code == 0, err
    return path


def test_sessions_piped_are_plain_columns_one_line_a_row(db):
    code, out, err = run_cli("sessions", "--db", str(db))
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 1 + 1 + 6  # title, header, six sessions
    header = lines[1].split()
    assert header[:4] == ["id", "task", "outcome", "annotator"]
    assert all(LONG_RUN in line and "scripted:direct-guess" in line for line in lines[2:])
    assert not any(ch in out for ch in "│┃━")  # no box drawing in a file


def test_sessions_and_datasets_as_csv_and_json_carry_every_column(db):
    code, out, _ = run_cli("sessions", "--db", str(db), "--format", "json")
    rows = json.loads(out)
    assert len(rows) == 6 and {"id", "task", "outcome", "run", "agent", "note", "annotator"} <= set(rows[0])
    assert rows[0]["annotator"] is None
    code, out, _ = run_cli("sessions", "--db", str(db), "--format", "csv")
    assert [r["run"] for r in csv.DictReader(io.StringIO(out))] == [LONG_RUN] * 6
    code, out, _ = run_cli("datasets", "--format", "json")
    assert {r["benchmark"] for r in json.loads(out)} == {"discobench", "interactcomp", "cts"}
    code, out, _ = run_cli("datasets")
    assert len(out.splitlines()) == 1 + 1 + 3 and all("demo" in line for line in out.splitlines()[2:])


def test_score_piped_never_wraps_a_group_name(db):
    code, out, err = run_cli("score", "--db", str(db))
    assert code == 0, err
    assert any(LONG_RUN in line for line in out.splitlines())


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_80_column_terminal_keeps_rows_whole_and_names_what_did_not_fit(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    rows = [
        {
            "id": f"{i:012d}",
            "task": "ic-01",
            "outcome": "wrong",
            "annotator": "ana",
            "run": LONG_RUN,
            "agent": "openai:gpt-4o-mini-2024-07-18",
            "note": "the question was unclear " * 5,
        }
        for i in range(6)
    ]
    columns = ("id", "task", "outcome", "annotator", "run", "agent", "note")
    out = Terminal()
    emit(rows, columns, out=out)
    text = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue())
    body = [line for line in text.splitlines() if line.startswith("│")]
    assert len(body) == 6 and all(len(line) <= 80 for line in text.splitlines())
    shown = fitting(rows, columns, 80)
    assert shown[:4] == ["id", "task", "outcome", "annotator"]
    hidden = [c for c in columns if c not in shown]
    assert hidden and "not shown at this width: " + ", ".join(hidden) in " ".join(text.split())
