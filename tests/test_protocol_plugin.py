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
    registry.roles.cache_clear()
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


def _riddle_task(n: int = 0):
    from clarify_tui.models import Task

    return Task.model_validate_json((RIDDLE / "src" / "clarify_riddle" / "tasks.jsonl").read_text().splitlines()[n])


def test_a_model_user_answers_an_installed_protocols_ask_from_what_its_reply_form_shows(
    installed: dict[str, str], riddle_here, tmp_path: Path
) -> None:
    """`--user openai:M` on riddle: its roles bring no user, so the generic reply asks the
    model (a loopback server) with the riddle, the ask and the task's riddle part (the
    hint: what the default reply form shows), and the reply reaches the agent and the store."""
    from clarify_tui.store import Store
    from tests.servers import FakeOpenAI, chat

    db, toml = tmp_path / "r.db", tmp_path / "clarify.toml"
    with FakeOpenAI(lambda request: chat("The city was built to be the capital.")) as server:
        toml.write_text(f'[openai]\nbase_url = "{server.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        args = ["run", "--benchmark", "riddle", "--dataset", "demo", "--limit", "1", "--run", "m"]
        args += ["--agent", "scripted:ask-first", "--user", "openai:user-m", "--db", str(db), "--config", str(toml)]
        assert "1 completed, 0 errored" in cli({**installed, "OPENAI_API_KEY": "sk-test"}, *args)
        requests = server.chat_requests("user-m")
    prompt = requests[0].prompt
    task = _riddle_task()
    assert task.question in prompt and "hint: It is the capital of Australia." in prompt
    assert "Reply in one or two sentences" in prompt  # free text: riddle's form has no choices
    assert task.gold.text not in prompt  # the default form never shows the answer
    [session] = Store(db).sessions(runs=["m"])
    replies = [s.action.text for s in Store(db).steps(session.id) if s.actor == "user"]
    assert replies == ["The city was built to be the capital."] * len(requests) and replies
    assert session.user == "openai:user-m" and session.status == "completed"


async def test_a_person_playing_the_user_of_an_installed_protocol_gets_the_generic_reply_form(
    riddle_here, tmp_path: Path
) -> None:
    """`play --as user` on a riddle task: the reply box shows the agent's ask, what the
    reply form shows of the task (its hint) and how to reply; the typed reply is stored."""
    from clarify_tui.search.local import LocalSearch
    from clarify_tui.store import Store
    from clarify_tui.tui.messages import ReplyRequested, SessionEnded
    from tests.conftest import DOCS
    from tests.test_tui import SIZE, Messages, make_app, type_text
    from tests.test_tui_keys import shown

    store, task = Store(tmp_path / "tui.db"), _riddle_task()
    hook = Messages()
    app = make_app(store, LocalSearch(DOCS), tasks=[task], task_id=task.id, as_="user", agent_spec="scripted:ask-first")
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        screen = app.screen
        screen.pace = 0
        request = (await hook.next(ReplyRequested)).request
        await pilot.pause()
        assert request.kind == "form"
        drawn = shown(app)
        assert "The agent asks:" in drawn and "t type a reply from what you know" in drawn
        assert "hint: It is the capital of Australia." in drawn
        await pilot.press("t")
        await type_text(pilot, "A planned capital city.")
        await pilot.press("enter")
        await hook.next(SessionEnded)
        sid = screen.driver.session.id
    [reply] = [s for s in store.steps(sid) if s.actor == "user"]
    assert reply.action.text == "A planned capital city."


def test_an_installed_protocols_tasks_views_results_and_states_validate_against_the_published_schemas(
    installed: dict[str, str], riddle_here, tmp_path: Path
) -> None:
    """The schemas name a protocol by a name (the built-ins as examples), not an enum of
    three, and admit an installed protocol's result and state (OwnResult/OwnState): riddle's
    task file, a view of its task, and its exported sessions validate, as a built-in's do."""
    jsonschema = pytest.importorskip("jsonschema")
    from clarify_tui.agent_view import AgentView
    from clarify_tui.store import Store

    def validator(path: Path):
        return jsonschema.Draft202012Validator(json.loads(path.read_text(encoding="utf-8")))

    tasks = validator(ROOT / "data" / "schema" / "task.schema.json")
    lines = (RIDDLE / "src" / "clarify_riddle" / "tasks.jsonl").read_text().splitlines()
    assert [list(tasks.iter_errors(json.loads(line))) for line in lines] == [[]] * 3
    assert list(tasks.iter_errors({"id": "x", "protocol": "Riddle!", "question": "q"}))  # no such name
    assert list(tasks.iter_errors({"id": "x", "protocol": "cts", "question": "q", "questoin": "typo"}))

    view = AgentView(task_id="rd-01", protocol=_riddle_task().protocol, question="Which city?")
    assert not list(validator(ROOT / "docs" / "agent_view.schema.json").iter_errors(view.model_dump(mode="json")))

    db, out = tmp_path / "s.db", tmp_path / "e.jsonl"
    for benchmark in ("riddle", "discobench"):
        args = ["run", "--benchmark", benchmark, "--dataset", "demo", "--limit", "1", "--db", str(db)]
        cli(installed, *args, "--agent", "scripted:ask-first", "--user", "rule", "--run", benchmark)
    cli(installed, "export", "--format", "jsonl", "--out", str(out), "--db", str(db))
    results, states = validator(ROOT / "docs" / "result.schema.json"), validator(ROOT / "docs" / "state.schema.json")
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["session"]["protocol"] for r in records) == ["discobench", "riddle"]
    for record in records:
        assert record["session"]["result"] and not list(results.iter_errors(record["session"]["result"]))
        # the snapshots as the store keeps them (`steps.state`)
        snapshots = [s.model_dump(mode="json")["state"] for s in Store(db).steps(record["session"]["id"])]
        assert any(s.get("protocol") for s in snapshots)
        assert not [e.message for state in snapshots for e in states.iter_errors(state)]


def test_a_researchers_own_user_answers_an_installed_protocols_ask_with_its_reply_method(
    installed: dict[str, str], riddle_here, tmp_path: Path
) -> None:
    """`--user py:FILE:NAME` on riddle: the object's `reply(task, question, form)` answers
    (shown the form, as a model user is); one without it errors the session naming it."""
    from clarify_tui.store import Store

    mine = tmp_path / "mine.py"
    mine.write_text(
        "class Mine:\n"
        "    def reply(self, task, question, form):\n"
        "        return 'mine: ' + form.known(task)\n"
        "class Old:\n"
        "    def reply_interactcomp(self, task, question):\n"
        "        return 'yes'\n"
    )
    db = tmp_path / "s.db"
    for name in ("Mine", "Old"):
        args = ["run", "--benchmark", "riddle", "--dataset", "demo", "--limit", "1", "--db", str(db), "--run", name]
        args += ["--agent", "scripted:ask-first", "--user", f"py:{mine}:{name}"]
        subprocess.run([sys.executable, "-m", "clarify_tui", *args], env=installed, capture_output=True, timeout=120)
    store = Store(db)
    [ok] = store.sessions(runs=["Mine"])
    assert ok.status == "completed"
    assert [s.action.text for s in store.steps(ok.id) if s.actor == "user"][0] == (
        "mine: hint: It is the capital of Australia."
    )
    [old] = store.sessions(runs=["Old"])
    assert old.status == "errored" and "has no reply method, which this protocol calls" in (old.error or "")
