"""Issue 32: a protocol from an installed package (the `clarify_tui.protocols` entry point
group) is listed, played, stored and scored as the built-ins are. The example package
examples/riddle is registered the way pip installs it (a dist-info with entry_points.txt
on the path), in subprocesses, so this process's registry stays the built-ins'."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RIDDLE = ROOT / "examples" / "riddle"


@pytest.fixture
def installed(tmp_path: Path) -> dict[str, str]:
    """An environment in which clarify-riddle is installed (its dist-info and entry point)."""
    site = tmp_path / "site"
    info = site / "clarify_riddle-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: clarify-riddle\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[clarify_tui.protocols]\nriddle = clarify_riddle.spec:SPEC\n")
    path = os.pathsep.join([str(ROOT), str(RIDDLE / "src"), str(site)])
    return {**os.environ, "PYTHONPATH": path, "CLARIFY_DB": str(tmp_path / "x.db"), "NO_COLOR": "1"}


def cli(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "clarify_tui", *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Warning" not in done.stderr, done.stderr  # e.g. a result the serializer did not know
    return done.stdout + done.stderr if args[0] == "run" else done.stdout  # run's summary is on stderr


def test_an_installed_protocol_is_listed_played_stored_and_scored(installed: dict[str, str], tmp_path: Path) -> None:
    listed = cli(installed, "datasets")
    assert any(line.split()[:3] == ["riddle", "demo", "3"] for line in listed.splitlines()), listed

    for policy in ("direct-guess", "ask-first"):
        ran = cli(
            installed,
            "run",
            "--benchmark",
            "riddle",
            "--dataset",
            "demo",
            "--agent",
            f"scripted:{policy}",
            "--user",
            "rule",
            "--run",
            policy,
        )
        assert "3 completed, 0 errored" in ran, ran

    scored = json.loads(cli(installed, "score", "--format", "json"))
    groups = {g["key"]["run"]: g for g in scored["groups"]}
    assert set(groups) == {"direct-guess", "ask-first"}
    assert all(g["benchmark"] == "riddle" and g["n_sessions"] == 3 for g in groups.values())
    # its own metric, from its own result model read back from the store
    assert groups["direct-guess"]["metrics"]["ask_rate"] == 0.0
    assert groups["ask-first"]["metrics"]["ask_rate"] == 1.0
    assert groups["direct-guess"]["metrics"]["accuracy"] is not None

    report = cli(installed, "report")  # its own table, from its spec's paper_tables
    assert "Riddle: accuracy and ask rate (%)" in report
    assert [
        line.split("|")[3].strip()
        for line in report.splitlines()
        if line.startswith(("| direct-guess ", "| ask-first "))
    ] == ["0.0", "100.0"]

    out = tmp_path / "e.jsonl"
    cli(installed, "export", "--format", "jsonl", "--out", str(out))
    # the csv export (it assumed a CTS result for anything not InteractComp or DiscoBench)
    rows = list(csv.DictReader(io.StringIO(cli(installed, "export", "--format", "csv"))))
    assert [(r["protocol"], r["status"], r["correct"]) for r in rows] == [("riddle", "completed", "0")] * 6
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["session"]["protocol"] for r in records] == ["riddle"] * 6
    # the rule user's reply is the task's hint, stored as the user's step
    replies = [s["input"]["text"] for r in records for s in r["steps"] if s["actor"] == "user"]
    assert "It is the capital of Australia." in replies
    from_export = json.loads(cli(installed, "score", "--from-export", str(out), "--format", "json"))
    assert {g["key"]["run"]: g["metrics"]["ask_rate"] for g in from_export["groups"]} == {
        "direct-guess": 0.0,
        "ask-first": 1.0,
    }

    # what-if: its sessions fork with an ask where the agent searched or answered, and play on
    whatif = json.loads(cli(installed, "whatif", "--run", "direct-guess", "--format", "json"))
    assert whatif["benchmark"] == "riddle" and whatif["sessions"] == 3
    assert whatif["forks"] == whatif["decision_points"] > 0 and whatif["forks_errored"] == 0


def test_the_example_package_tests_pass_when_installed(installed: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(RIDDLE / "tests")],
        env=installed,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=RIDDLE,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_an_entry_point_cannot_shadow_a_builtin_or_take_a_name_no_flag_can_spell(monkeypatch) -> None:
    from importlib import metadata

    from clarify_tui.errors import UsageError
    from clarify_tui.protocols import registry

    found = [
        metadata.EntryPoint(name, "somewhere:SPEC", registry.ENTRY_POINT_GROUP) for name in ("cts", "Bad-Name", "mine")
    ]
    monkeypatch.setattr(metadata, "entry_points", lambda group: found if group == registry.ENTRY_POINT_GROUP else [])
    registry.installed.cache_clear()
    try:
        assert registry.names() == ("discobench", "interactcomp", "cts", "mine")
        assert registry.get("cts").title == "CTS"  # the built-in, never the package's
        with pytest.raises(KeyError, match="no protocol 'Bad-Name'"):
            registry.get("Bad-Name")
        with pytest.raises(
            UsageError,
            match=r"the installed protocol 'mine' \(somewhere:SPEC\) failed to load: "
            r"ModuleNotFoundError",
        ):
            registry.get("mine")
    finally:
        registry.installed.cache_clear()


@pytest.fixture
def riddle_here(monkeypatch):
    """clarify-riddle registered in this process (its entry point and its source on the path)."""
    from importlib import metadata

    from clarify_tui.protocols import registry

    monkeypatch.syspath_prepend(str(RIDDLE / "src"))
    found = [metadata.EntryPoint("riddle", "clarify_riddle.spec:SPEC", registry.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(metadata, "entry_points", lambda group: found if group == registry.ENTRY_POINT_GROUP else [])
    registry.installed.cache_clear()
    yield
    from clarify_tui.models import Protocol

    registry.installed.cache_clear()
    registry.get.cache_clear()
    Protocol._value2member_map_.pop("riddle", None)  # the member made on first use: gone with the package


def test_the_tui_state_panel_draws_an_installed_protocol_before_its_first_step(riddle_here) -> None:
    from rich.console import Console

    from clarify_tui.models import Task
    from clarify_tui.results import EpisodeState
    from clarify_tui.tui.widgets.state import render_state

    task = Task.model_validate_json((RIDDLE / "src" / "clarify_riddle" / "tasks.jsonl").read_text().splitlines()[0])
    console = Console(width=60, record=True, color_system=None)
    console.print(render_state(task, EpisodeState(max_rounds=5), reveal=False, spoilers=False))
    drawn = console.export_text()
    assert "rounds 0 / 5" in drawn
    assert "Australia" not in drawn  # its part is hidden: the hint is the user's to give
