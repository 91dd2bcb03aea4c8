"""Issue 30 (human data first) and 31: a session's counting identity includes its role.

- a person who plays a task as the agent and then as the user of a scripted agent (the
  TUI's default run `tui`) has both sessions scored, apart, with no "completed twice";
- `score` and the scores screen (F3) never put a person's sessions, watched scripted ones
  and stepped ones into one number: a run mixing roles is split by role, and a line says
  so; a run that does not mix roles keeps its json keys exactly;
- the per-task exports (interactcomp-csv, cts-candidates) count a task once, as `score`
  does, with the same warning on stderr.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.cli import main as cli
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import Action, Session
from clarify_tui.search.local import LocalSearch
from clarify_tui.sessions_ops import seen_hidden
from clarify_tui.store import Store, work_drafts
from clarify_tui.tui.app import ClarifyApp
from clarify_tui.tui.browse import BrowseApp
from clarify_tui.tui.driver import EpisodeDriver, PlaySetup
from clarify_tui.tui.messages import AgentTurnStarted, ReplyRequested
from clarify_tui.users.rule import RuleUser
from tests.conftest import CTS, DOCS, IC
from tests.test_tui import SIZE
from tests.test_tui_keys import shown


async def play_in_the_tui_driver(
    store: Store, role: str, agent_spec: str = "scripted:search-then-ask", annotator: str = "ana"
) -> Session:
    """One session as the play screen makes it (EpisodeDriver.for_play: the human agent or
    human user backend, mode, annotator), played to the end by answering its messages."""
    actions = iter([Action.search("red lattice tower Hokkaido"), Action.answer("Sapporo TV Tower", confidence=80)])

    def post(message) -> None:
        if isinstance(message, AgentTurnStarted):
            message.driver.submit_action(next(actions))
        elif isinstance(message, ReplyRequested):
            message.driver.submit_reply("yes")

    setup = PlaySetup(task=IC, role=role, agent_spec=agent_spec, annotator=annotator)  # type: ignore[arg-type]
    driver = EpisodeDriver.for_play(setup, store, post, search=LocalSearch(DOCS))
    await driver.run()
    return driver.session


def play(
    store: Store,
    task,
    *,
    mode: str = "automated",
    agent: str = "scripted:direct-guess",
    annotator: str | None = None,
    run: str = "tui",
) -> Session:
    """A session of `mode` stored through the engine (fast: no screen)."""
    session = Session(
        run=run,
        task_id=task.id,
        protocol=task.protocol,
        agent=agent,
        user="rule",
        search="local",
        judge="rule",
        mode=mode,
        annotator=annotator,
    )  # type: ignore[arg-type]
    episode = build_episode(
        task,
        agent=ScriptedAgent(agent.removeprefix("scripted:")),
        user=RuleUser(),
        search=LocalSearch(DOCS),
        judge=RuleJudge(),
        session=session,
        sink=store,
    )
    return asyncio.run(episode.run())


def score(capsys, db, *extra) -> tuple[str, str]:
    capsys.readouterr()
    assert cli(["score", "--db", str(db), *extra]) == 0
    captured = capsys.readouterr()
    return captured.out, captured.err


def test_a_person_as_the_agent_then_as_the_user_is_scored_twice_apart(tmp_path, capsys):
    db = tmp_path / "tui.db"
    store = Store(db)
    as_agent = asyncio.run(play_in_the_tui_driver(store, "agent"))
    as_user = asyncio.run(play_in_the_tui_driver(store, "user"))
    store.close()
    assert (as_agent.mode, as_agent.agent, as_agent.annotator) == ("human_agent", "human", "ana")
    assert (as_user.mode, as_user.user, as_user.annotator) == ("human_user", "human", "ana")
    assert as_agent.status == as_user.status == "completed" and as_agent.run == as_user.run == "tui"

    out, err = score(capsys, db, "--format", "json")
    assert "completed twice" not in err
    groups = json.loads(out)["groups"]
    assert [(g["key"], g["n_sessions"]) for g in groups] == [
        ({"run": "tui", "role": "human_agent"}, 1),
        ({"run": "tui", "role": "human_user"}, 1),
    ]

    out, err = score(capsys, db)  # the table says why run tui has two columns
    assert "completed twice" not in err
    assert "run tui mixes roles, scored apart (never one number): person as agent, person as user" in out
    assert "tui · person as agent" in out and "tui · person as user" in out


def test_the_same_player_in_the_same_role_still_counts_once(tmp_path, capsys):
    """The role joins the key; it does not loosen it: a person who played the user of one
    agent twice, or two copies of one automated session, still count once."""
    db = tmp_path / "twice.db"
    store = Store(db)
    first = play(store, IC, mode="human_user", annotator="ana")
    again = play(store, IC, mode="human_user", annotator="ana")
    other_agent = play(store, IC, mode="human_user", annotator="ana", agent="scripted:search-then-ask")
    store.close()
    out, err = score(capsys, db, "--format", "json")
    assert err.count("completed twice") == 1
    assert (
        f"run tui, annotator ana as the user of agent scripted:direct-guess, task i1: completed twice; "
        f"scored the earliest session {first.id}, left out {again.id}"
    ) in err
    (group,) = json.loads(out)["groups"]
    assert group["key"] == {"run": "tui"} and group["n_sessions"] == 2  # direct-guess once, search-then-ask once
    assert other_agent.id not in err


def test_watched_stepped_and_a_persons_sessions_are_never_one_number(tmp_path, capsys):
    db = tmp_path / "mixed.db"
    store = Store(db)
    play(store, IC, mode="automated")  # watched: the agent alone (direct-guess: wrong)
    play(store, IC, mode="stepped")  # stepped through by a person
    play(store, IC, mode="human_agent", agent="scripted:search-then-ask", annotator="ana")  # right
    store.close()
    out, err = score(capsys, db, "--format", "json")
    assert "completed twice" not in err
    groups = json.loads(out)["groups"]
    assert [(g["key"].get("role"), g["n_sessions"], g["metrics"]["accuracy"]) for g in groups] == [
        ("automated", 1, 0.0),
        ("stepped", 1, 0.0),
        ("human_agent", 1, 1.0),
    ]

    out, _ = score(capsys, db, "--format", "json", "--by", "annotator")
    keys = [g["key"] for g in json.loads(out)["groups"]]
    assert keys == [
        {"annotator": None, "role": "automated"},
        {"annotator": None, "role": "stepped"},
        {"annotator": "ana"},
    ]  # ana's sessions share one role: her key is as before
    out, _ = score(capsys, db, "--by", "annotator")
    assert "no annotator mixes roles, scored apart (never one number): automated, stepped by a person" in out


def test_runs_that_do_not_mix_roles_keep_their_json_keys(tmp_path, capsys):
    db = tmp_path / "plain.db"
    store = Store(db)
    play(store, IC, run="auto")
    play(store, IC, mode="human_agent", annotator="ana", run="camp")
    play(store, IC, mode="human_agent", annotator="bob", run="camp")
    store.close()
    for by, keys in (
        ("run", [{"run": "auto"}, {"run": "camp"}]),
        ("annotator", [{"annotator": None}, {"annotator": "ana"}, {"annotator": "bob"}]),
        ("mode", [{"mode": "automated"}, {"mode": "human_agent"}]),
    ):
        out, _ = score(capsys, db, "--format", "json", "--by", by)
        assert [g["key"] for g in json.loads(out)["groups"]] == keys
    out, _ = score(capsys, db)
    assert "mixes roles" not in out


async def test_the_scores_screen_draws_the_role_columns_and_says_why(tmp_path):
    db = tmp_path / "f3.db"
    store = Store(db)
    await play_in_the_tui_driver(store, "agent")
    await play_in_the_tui_driver(store, "user")
    app = BrowseApp(store, start="scores")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):
            await pilot.pause(0.05)
            if app.screen.query(".scores-table"):
                break
        await pilot.pause()
        text = shown(app)
    assert "run tui mixes roles, scored apart (never one number): person as agent, person as" in " ".join(
        line.strip() for line in text.splitlines()
    )
    assert "tui · person as agent" in text and "tui · person as user" in text
    assert "2 groups by run" in text


def test_interactcomp_csv_has_one_row_per_counted_task(tmp_path, capsys):
    """Issue 31: a pooled run of two copies gave a row per session (420 rows for 210 tasks)."""
    db = tmp_path / "pooled.db"
    store = Store(db)
    kept = play(store, IC, run="r1")
    copy = play(store, IC, run="r1")  # the same task, agent and run again: a pooled copy
    store.close()
    capsys.readouterr()
    assert cli(["export", "--db", str(db), "--format", "interactcomp-csv"]) == 0
    captured = capsys.readouterr()
    rows = list(csv.DictReader(io.StringIO(captured.out)))
    assert len(rows) == 1
    assert (
        f"warning: run r1, agent scripted:direct-guess, task i1: completed twice; exported the earliest "
        f"session {kept.id}, left out {copy.id} (interactcomp-csv: one row per task)"
    ) in captured.err


def test_cts_candidates_has_one_candidate_per_counted_task(tmp_path, capsys):
    db = tmp_path / "cts.db"
    store = Store(db)
    kept = play(store, CTS, run="r1", agent="scripted:search-then-ask")
    copy = play(store, CTS, run="r1", agent="scripted:search-then-ask")
    person = play(store, CTS, run="r1", agent="scripted:search-then-ask", mode="human_user", annotator="ana")
    store.close()
    capsys.readouterr()
    assert cli(["export", "--db", str(db), "--format", "cts-candidates"]) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    assert len(lines) == 2  # the automated session once, the person's session (another role) once
    assert f"left out {copy.id} (cts-candidates: one row per task)" in captured.err
    assert kept.id in captured.err and person.id not in captured.err


def test_inspect_logs_hold_one_sample_per_counted_task(tmp_path, capsys):
    inspect_log = pytest.importorskip("inspect_ai.log")
    db = tmp_path / "pooled.db"
    store = Store(db)
    kept = play(store, IC, run="r1")
    copy = play(store, IC, run="r1")
    store.close()
    capsys.readouterr()
    out = tmp_path / "logs"
    assert cli(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    assert f"left out {copy.id} (inspect: one row per task)" in capsys.readouterr().err
    log = inspect_log.read_eval_log(str(out / "r1.eval"))
    assert [(s.id, s.metadata["session_id"]) for s in log.samples] == [("i1", kept.id)]


def test_a_run_mixing_roles_is_one_inspect_eval_per_role(tmp_path, capsys):
    """Not an async test: the export runs outside any event loop, as the CLI does (Inspect
    patches asyncio for the whole process with nest_asyncio when called inside one)."""
    inspect_log = pytest.importorskip("inspect_ai.log")
    db = tmp_path / "tui.db"
    store = Store(db)
    asyncio.run(play_in_the_tui_driver(store, "agent"))  # right
    asyncio.run(play_in_the_tui_driver(store, "user", agent_spec="scripted:direct-guess"))  # wrong
    out = tmp_path / "logs"
    assert cli(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["tui~human_agent.eval", "tui~human_user.eval"]
    for role, accuracy in (("human_agent", 1.0), ("human_user", 0.0)):
        log = inspect_log.read_eval_log(str(out / f"tui~{role}.eval"))
        assert [s.id for s in log.samples] == ["i1"] and log.eval.metadata["role"] == role
        assert log.results.scores[0].metrics["accuracy"].value == accuracy


def test_the_user_first_then_the_agent_is_informed_and_left_out(tmp_path, capsys):
    """The other order: the user's screen shows the task's hidden information, so the same
    person's later agent session of it is informed (score leaves it out, says so, and
    --include-informed keeps it); the agent first, then the user, is not."""
    db = tmp_path / "tui.db"
    store = Store(db)
    asyncio.run(play_in_the_tui_driver(store, "user", agent_spec="scripted:direct-guess"))
    agent = asyncio.run(play_in_the_tui_driver(store, "agent"))
    assert agent.result.informed is True
    assert store.session(agent.id).result.informed is True  # as stored, after the engine's final result
    out, err = score(capsys, db, "--format", "json")
    assert "1 informed session(s) left out" in err
    assert [g["key"].get("role") for g in json.loads(out)["groups"]] == [None]  # only the user's session scored
    out, _ = score(capsys, db, "--format", "json", "--include-informed")
    assert sorted(g["key"]["role"] for g in json.loads(out)["groups"]) == ["human_agent", "human_user"]
    other = Store(tmp_path / "other.db")
    first = asyncio.run(play_in_the_tui_driver(other, "agent"))
    asyncio.run(play_in_the_tui_driver(other, "user", agent_spec="scripted:direct-guess"))
    assert not other.session(first.id).result.informed


def answer_work_item(store: Store, kind: str, annotator: str, steps: list | None = None) -> None:
    """`annotator` answers one `kind` work item of task IC, as play/serve --queue store it
    (store/work.py's payload contract: protocol, task_id, a labels item's steps)."""
    store.work.create_queue(f"q-{kind}", kind, "r1")  # type: ignore[arg-type]
    payload = {"kind": kind, "protocol": IC.protocol.value, "task_id": IC.id, "steps": steps or []}
    store.work.add_items(f"q-{kind}", [("s1", len(steps or []), payload)])
    answer = {"reply": "yes", "class": "yes"} if kind == "audit" else {"label": "ask", "note": None}
    assert store.work.record_answer(f"q-{kind}", f"s1:{len(steps or [])}", annotator, answer)


async def test_an_auditor_then_the_agent_is_informed_and_the_screen_says_why(tmp_path, capsys):
    """An audit item shows the task's hidden information (InteractComp's context): a person
    shown it (answered or not) who then plays the task as the agent is informed, as one who
    played its user (score leaves the session out, the play screen says why). A labelling
    item informs only when it holds a user's reply (docs/scoring.md)."""
    db = tmp_path / "tui.db"
    store = Store(db)
    answer_work_item(store, "labels", annotator="ana", steps=[{"index": 0, "actor": "agent", "kind": "search"}])
    answer_work_item(store, "audit", annotator="ben")  # ben's answer informs ana of nothing
    assert not (await play_in_the_tui_driver(store, "agent")).result.informed
    later = await play_in_the_tui_driver(store, "agent", annotator="ben")
    assert store.session(later.id).result.informed is True
    _, err = score(capsys, db, "--format", "json")
    assert "1 informed session(s) left out" in err
    work_drafts.mark_shown(store, "q-audit", "s1:0", "cyd")  # on cyd's screen, not answered
    reply = [{"index": 0, "actor": "agent", "kind": "ask", "text": "Is it in Sapporo?"}]
    reply.append({"index": 0, "actor": "user", "kind": "reply", "text": "yes"})  # the user's words: from the context
    store.work.create_queue("q-labels2", "labels", "r1")
    store.work.add_items(
        "q-labels2", [("s2", 2, {"kind": "labels", "protocol": "interactcomp", "task_id": "i1", "steps": reply})]
    )
    work_drafts.mark_shown(store, "q-labels2", "s2:2", "dee")
    assert seen_hidden(store, IC, "dee") == (
        "you were shown a labelling item of this task (queue q-labels2) holding its user's replies"
    )
    store.close()
    app = ClarifyApp(db=db, tasks=[IC], search=LocalSearch(DOCS), annotator="cyd", task_id=IC.id, as_="agent")
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(200):  # the toast the play screen raises as it opens (read as tests/test_tui.py does)
            toasts = [(n.title, str(n.message)) for n in app._notifications]
            if toasts:
                break
            await pilot.pause(0.02)
        assert toasts == [
            (
                "informed",
                "This session is marked informed and left out of baselines: you were shown an audit item "
                "of this task (queue q-audit), with what its user knows.",
            )
        ]


def test_a_session_left_running_is_counted_running_not_informed_and_the_counts_add_up(tmp_path, capsys):
    """An informed player's session left running is not scored because it is not finished:
    `score` and `report` count it under `running` (as any running session), and only a
    finished informed session is "informed, left out"; scored + excluded + informed = all."""
    db = tmp_path / "tui.db"
    store = Store(db)
    asyncio.run(play_in_the_tui_driver(store, "user", agent_spec="scripted:direct-guess"))
    agent = asyncio.run(play_in_the_tui_driver(store, "agent"))
    left = store.session(agent.id).model_copy(update={"id": "left-running", "status": "running", "finished_at": None})
    assert left.result.informed
    store.start_session(left, IC)
    out, err = score(capsys, db, "--format", "json")
    assert "1 informed session(s) left out" in err
    groups = json.loads(out)["groups"]
    assert sorted(g["key"]["role"] for g in groups) == ["human_agent", "human_user"]
    running = [g for g in groups if g["key"].get("role") == "human_agent"][0]
    assert running["n_sessions"] == 0 and running["metrics"]["running"] == 1
    capsys.readouterr()
    assert cli(["report", "--db", str(db), "--format", "csv"]) == 0
    out, err = capsys.readouterr()
    assert "1 informed session(s) left out" in err
    rows = list(csv.DictReader(io.StringIO(out)))
    assert sum(int(r["scored"]) + int(r["errored"]) + int(r["excluded"]) for r in rows) + 1 == 3
