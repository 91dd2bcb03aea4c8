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
    from clarify_tui.metrics.paper_tables import PaperTable, add_footnotes, make_row

    group = {
        "key": {"run": "r1"},
        "benchmark": "interactcomp",
        "n_sessions": 3,
        "comparable": False,
        "deviations": ["user simulator: rule, the paper used GPT-4o at T=1.0"],
        "metrics": {"errored": 1, "abandoned": 1, "unjudged": 1, "agent_cost_usd": None, "cost_usd": None},
    }
    row = make_row("r1", ["1.00"], group)
    row.cells.append(row.agent_cost)
    table = PaperTable(key="interactcomp", caption="c", columns=["Model", "Round", "Cost($)"], rows=[row])
    add_footnotes(table)
    md = markdown([table])
    assert "| r1 † | 1.00 | unpriced |" in md
    assert "† r1: not comparable with the paper (user simulator: rule, the paper used GPT-4o at T=1.0)." in md
    assert "r1 3 scored, 1 errored, 2 excluded" in md
    assert r"r1 $^\dagger$" in latex([table])
    assert csv_text([table]).splitlines()[1].endswith(',false,"user simulator: rule, the paper used GPT-4o at T=1.0"')


# ---- report --whatif: the what-if columns (issue 27) ---------------------------------------

WHATIFS = [  # the demo's guessing agents asked to ask; the asking agent made to answer instead
    ["--run", "ic-guess"],
    ["--run", "ic-guess", "--intervention", "answer"],  # one run, both interventions: two column groups
    ["--run", "ic-ask", "--sessions", "all", "--intervention", "answer"],
    ["--run", "disco-guided"],
    ["--run", "cts-k1"],
]


@pytest.fixture(scope="module")
def forked(db, tmp_path_factory):
    """A copy of the demo database with `whatif` forks of four runs (cts-k2, cts-orig,
    ic-guess-2 and disco-sta have none)."""
    import sqlite3

    path = tmp_path_factory.mktemp("report-whatif") / "forked.db"
    with sqlite3.connect(db) as src, sqlite3.connect(path) as dst:
        src.backup(dst)
    for argv in WHATIFS:
        assert main(["whatif", *argv, "--db", str(path), "--format", "json", "--bootstrap", "1000"]) == 0
    return path


def whatif_json(capsys, db, *argv: str) -> dict:
    import json

    capsys.readouterr()
    assert main(["whatif", *argv, "--db", str(db), "--format", "json", "--bootstrap", "1000"]) == 0
    return json.loads(capsys.readouterr().out)


def md_rows(out: str, title: str, label: str | None = None) -> dict[str, dict[str, str]]:
    """The rows of the markdown table whose caption contains `title`, by their `label`
    column (default the first), each a dict of cell by header."""
    block = out.split(title, 1)[1].split("\n\n")[1].splitlines()
    header = [c.strip() for c in block[0].strip("|").split(" | ")]
    rows = [[c.strip() for c in line.strip("|").split(" | ")] for line in block[2:]]
    at = header.index(label) if label else 0
    return {r[at]: dict(zip(header, r)) for r in rows}


@pytest.mark.parametrize("fmt,suffix", [("markdown", "md"), ("latex", "tex"), ("csv", "csv")])
def test_whatif_columns_match_the_golden_file_and_the_forks_leave_the_report_unchanged(forked, capsys, fmt, suffix):
    golden(f"demo_whatif.{suffix}", report(capsys, forked, "--format", fmt, "--whatif"))
    # without the flag, a database with forks prints today's report byte for byte: no fork leaks in
    golden(f"demo_by_run.{suffix}", report(capsys, forked, "--format", fmt))


def test_whatif_cells_are_the_numbers_whatif_prints(forked, capsys):
    out = report(capsys, forked, "--whatif")
    ic = md_rows(out, "(paper 003, Table 2)")
    guess = whatif_json(capsys, forked, "--run", "ic-guess")  # a second whatif reuses every fork
    assert guess["forks_reused"] == guess["forks"] == 22
    lo, hi = guess["value_of_asking"]["ci95"]
    assert [ic["ic-guess"][f"What-if ask: {c}"] for c in ("forks", "W→R", "R→W", "Δ", "95% CI")] == [
        "22",
        str(guess["flips"]["wrong_to_right"]),
        str(guess["flips"]["right_to_wrong"]),
        f"{100 * guess['value_of_asking']['delta']:+.2f}",
        f"[{100 * lo:.2f}, {100 * hi:.2f}]",
    ]
    answer = whatif_json(capsys, forked, "--run", "ic-ask", "--sessions", "all", "--intervention", "answer")
    assert answer["flips"]["right_to_wrong"] == 22  # the asking agent, made to answer at each search, loses
    assert ic["ic-ask"]["What-if answer: R→W"] == "22" and ic["ic-ask"]["What-if answer: Δ"] == "-100.00"
    cts = whatif_json(capsys, forked, "--run", "cts-k1")
    lo, hi = cts["value_of_asking"]["ci95"]
    row = md_rows(out, "(paper 001, Table 2)")["cts-k1"]  # CTS: the change in restore score, not flips
    assert [row[f"What-if ask: {c}"] for c in ("forks", "improved", "worsened", "Δ", "95% CI")] == [
        str(cts["forks"]),
        str(cts["flips"]["improved"]),
        str(cts["flips"]["worsened"]),
        f"{cts['value_of_asking']['delta']:+.3f}",
        f"[{lo:.3f}, {hi:.3f}]",
    ]
    assert cts["flips"]["improved"] > 0


def test_whatif_delta_beside_a_runs_accuracy_says_over_how_many_forked_tasks(forked, capsys, tmp_path):
    """Issue 31: Δ is over the forked tasks only, not a change of the run's accuracy; the
    report says over how many, per run, and `whatif`'s own table says it too."""
    import sqlite3

    db = tmp_path / "some.db"  # ic-guess-2 (5 tasks) with 3 forks: 2 of its tasks forked
    with sqlite3.connect(forked) as src, sqlite3.connect(db) as dst:
        src.backup(dst)
    capsys.readouterr()
    assert main(["whatif", "--run", "ic-guess-2", "--limit", "3", "--db", str(db), "--bootstrap", "100"]) == 0
    assert "value of asking over 2 forked tasks [95% CI]" in capsys.readouterr().out
    out = report(capsys, db, "--whatif")
    ic = md_rows(out, "(paper 003, Table 2)")
    assert (ic["ic-guess-2"]["What-if ask: forks"], ic["ic-guess-2"]["What-if ask: forked tasks"]) == ("3", "2")
    assert ic["ic-guess"]["What-if ask: forked tasks"] == "11"
    assert (
        "What-if ask: Δ is over the forked tasks only, not the run's every task, so it is no change of the "
        "run's own score: ic-guess over 11 forked tasks (of 11 scored); ic-guess-2 over 2 forked tasks "
        "(of 5 scored)."
    ) in " ".join(out.split())


def test_a_run_without_forks_prints_the_empty_cell_never_zero_and_interventions_stay_apart(forked, capsys):
    out = report(capsys, forked, "--whatif")
    ic = md_rows(out, "(paper 003, Table 2)")
    groups = {
        "ask": [f"What-if ask: {c}" for c in ("forks", "W→R", "R→W", "Δ", "95% CI")],
        "answer": [f"What-if answer: {c}" for c in ("forks", "W→R", "R→W", "Δ", "95% CI")],
    }
    assert [ic["ic-guess-2"][c] for c in groups["ask"] + groups["answer"]] == ["–"] * 10
    # ic-ask has answer forks only, ic-guess ask forks only: neither group borrows the other's
    assert [ic["ic-ask"][c] for c in groups["ask"]] == ["–"] * 5 and ic["ic-ask"][groups["answer"][0]] == "22"
    # ic-guess has both: each group is its own intervention's `whatif`, never the two pooled
    for intervention, columns in groups.items():
        made = whatif_json(capsys, forked, "--run", "ic-guess", "--intervention", intervention)
        assert made["intervention"] == intervention and made["forks_reused"] == made["forks"]
        assert ic["ic-guess"][columns[0]] == str(made["forks"])
        assert ic["ic-guess"][columns[3]] == f"{100 * made['value_of_asking']['delta']:+.2f}"
    assert ic["ic-guess"][groups["ask"][0]] == "22" and ic["ic-guess"][groups["answer"][0]] == "11"
    # DiscoBench and CTS have no answer forks: only the ask group, the unforked runs empty
    assert "What-if answer" not in out.split("(paper 000, Table 2)")[1]
    assert md_rows(out, "(paper 000, Table 2)")["disco-sta"]["What-if ask: forks"] == "–"
    assert md_rows(out, "(paper 001, Table 6)", "System")["cts-k2"]["What-if ask: Δ"] == "–"
    # the baseline columns are the report's without the flag, and the forks are counted nowhere else
    plain = md_rows(report(capsys, forked), "(paper 003, Table 2)")
    for label, cells in plain.items():
        assert {k: v for k, v in ic[label].items() if not k.startswith("What-if")} == cells
    assert "ic-guess 11 scored, 0 errored, 0 excluded" in out


def test_whatif_by_agent_is_one_clean_line(forked, capsys):
    assert main(["report", "--db", str(forked), "--whatif", "--by", "agent"]) == 2
    err = capsys.readouterr().err
    assert "--whatif" in err and "--by run" in err and "Traceback" not in err


def test_errored_forks_are_counted_and_named_and_all_errored_prints_no_delta():
    from clarify_tui.metrics.paper_tables import PaperTable, Row
    from clarify_tui.metrics.whatif_columns import add_whatif

    summary = {
        "forks": 3,
        "forks_errored": 3,
        "flips": {"wrong_to_right": 0, "right_to_wrong": 0, "unchanged": 0},
        "value_of_asking": {"delta": None, "ci95": None},
    }
    table = PaperTable(
        key="interactcomp",
        caption="c",
        columns=["Model", "Acc."],
        whatif_digits=2,
        rows=[Row("r1", ["r1", "0.00"], key={"run": "r1"})],
    )
    add_whatif([table], {"r1": {"ask": summary}}, 100, 0)
    assert table.rows[0].cells == ["r1", "0.00", "3", "0", "–", "–", "–", "–"]
    assert any("r1 3 fork(s) errored (infrastructure failures)" in n for n in table.notes)
