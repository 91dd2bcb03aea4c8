"""`clarify-tui report`: the papers' main tables from a database the test builds by running
the bundled demo offline (the real `run` command), checked against golden files.

Regenerate the golden files after a deliberate change with CLARIFY_REGOLD=1 and read the diff.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import pytest

from clarify_tui.cli import main

GOLDEN = Path(__file__).parent / "fixtures" / "report"
DEEP = "scripted:search-heavy-guess"  # CTS: one fixed deep-search agent, as the paper (001 §4)
RUNS = [
    ("ic-ask", ["--benchmark", "interactcomp", "--agent", "scripted:ask-first"]),
    ("ic-guess", ["--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]),
    ("ic-guess-2", ["--benchmark", "interactcomp", "--agent", "scripted:direct-guess", "--limit", "5"]),
    ("disco-sta", ["--benchmark", "discobench", "--agent", "scripted:search-then-ask"]),
    ("disco-guided", ["--benchmark", "discobench", "--agent", "scripted:direct-guess", "--prompting", "guided"]),
    ("cts-orig", ["--benchmark", "cts", "--agent", "scripted:direct-guess", "--k", "0", "--deep-search", DEEP]),
    ("cts-k1", ["--benchmark", "cts", "--agent", "scripted:ask-first", "--k", "1", "--deep-search", DEEP]),
    ("cts-k2", ["--benchmark", "cts", "--agent", "scripted:ask-first", "--k", "2", "--deep-search", DEEP]),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "demo.db"
    for name, argv in RUNS:
        assert main(["run", *argv, "--db", str(path), "--run", name]) == 0
    return path


def report(capsys, db, *argv: str) -> str:
    capsys.readouterr()
    assert main(["report", "--db", str(db), "--bootstrap", "1000", *argv]) == 0
    return capsys.readouterr().out


def golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if os.environ.get("CLARIFY_REGOLD"):
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} changed (CLARIFY_REGOLD=1 rewrites it)"


@pytest.mark.parametrize("fmt,suffix", [("markdown", "md"), ("latex", "tex"), ("csv", "csv")])
def test_demo_report_matches_the_golden_file(db, capsys, fmt, suffix):
    golden(f"demo_by_run.{suffix}", report(capsys, db, "--format", fmt))


def test_by_agent_puts_neutral_and_guided_side_by_side_and_one_orig_row(db, capsys):
    out = report(capsys, db, "--by", "agent")
    golden("demo_by_agent.md", out)
    assert "| scripted:direct-guess | – | – | – | – | – | – | – | 0.0 |" in out  # guided half only
    assert "| orig | 10.455 |" in out
    # two runs of one agent: accuracy with its std over runs, as the paper's "Acc. (± std)"
    assert "| scripted:direct-guess | 2.00 | 0.00 | 0.00 (± 0.00) | 80.00 | 0.00 |" in out


def test_columns_and_units_are_the_papers(db, capsys):
    out = report(capsys, db)
    # InteractComp Table 2 (003_e5fb3f1934434c15.txt lines 289-296): Round, IR, Acc., C.E., Cost($); percentages; CE x 100
    assert "(paper 003, Table 2)" in out
    assert "| Model | Round | IR | Acc. | C.E. | Cost($) |" in out
    assert "| ic-guess | 2.00 | 0.00 | 0.00 | 80.00 | 0.00 |" in out  # score: calibration_error 0.8
    # DiscoBench Table 2 (paper 000 line 137): Acc., CP, Det., CE, Ask under Neutral and Guided
    assert "(paper 000, Table 2)" in out
    assert "| Model | Neutral: Acc. | Neutral: CP |" in out and "| Guided: Ask |" in out
    # CTS Tables 2, 6 and 3 (paper 001 lines 251, 316, 263): mean (Δ), p50, p90; Δ with its CI
    assert "(paper 001, Table 2)" in out and "(paper 001, Table 6)" in out and "(paper 001, Table 3)" in out
    assert "| System | mean (Δ) | p50 | p90 |" in out
    assert "| cts-k1 | 18.455 (+8.000) |" in out
    assert "| 1 | cts-k1 | +8.000 | [" in out


def test_counts_and_cost_footnotes(db, capsys):
    out = report(capsys, db, "--run", "ic-ask")
    assert "Sessions: ic-ask 11 scored, 0 errored, 0 excluded." in out
    assert "Cost($) prices the agent under test only" in out
    assert "DiscoBench" not in out


def test_csv_is_one_block_per_table_with_counts_as_columns(db, capsys):
    blocks = report(capsys, db, "--format", "csv").strip().split("\n\n")
    assert len(blocks) == 5
    rows = list(csv.DictReader(io.StringIO(blocks[0])))
    assert [r["Model"] for r in rows] == ["ic-ask", "ic-guess", "ic-guess-2"]
    assert rows[0]["scored"] == "11" and rows[0]["comparable"] == "true"


def test_an_unknown_run_is_one_clean_line(db, capsys):
    assert main(["report", "--db", str(db), "--run", "nope"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and "Traceback" not in err


def test_a_deviation_marks_the_row_and_is_footnoted_and_unpriced_is_not_zero():
    """Groups carrying `comparable: false` and `deviations` (issue 23) get a † and a footnote;
    an unpriced agent (`agent_cost_usd: null`) prints "unpriced", never 0.00."""
    from clarify_tui.exporters.paper_report import csv_text, latex, markdown
    from clarify_tui.metrics.paper_tables import PaperTable, _row, add_footnotes

    group = {"key": {"run": "r1"}, "benchmark": "interactcomp", "n_sessions": 3, "comparable": False,
             "deviations": ["user simulator: rule, the paper used GPT-4o at T=1.0"],
             "metrics": {"errored": 1, "abandoned": 1, "unjudged": 1, "agent_cost_usd": None, "cost_usd": None}}
    row = _row("r1", ["1.00"], group)
    row.cells.append(row.agent_cost)
    table = PaperTable(key="interactcomp", caption="c", columns=["Model", "Round", "Cost($)"], rows=[row])
    add_footnotes(table)
    md = markdown([table])
    assert "| r1 † | 1.00 | unpriced |" in md
    assert "† r1: not comparable with the paper (user simulator: rule, the paper used GPT-4o at T=1.0)." in md
    assert "r1 3 scored, 1 errored, 2 excluded" in md
    assert r"r1 $^\dagger$" in latex([table])
    assert csv_text([table]).splitlines()[1].endswith(",false,\"user simulator: rule, the paper used GPT-4o at T=1.0\"")
