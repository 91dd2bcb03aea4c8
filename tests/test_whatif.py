"""`whatif`: counterfactual forks of a whole run (docs/whatif.md).

A researcher asks "what if the agent had asked here?" of every decision point of a run;
the forks must be real sessions whose stored outcomes are the ones the summary counts,
and the baseline's scores must not move."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from clitools import run_cli
from servers import FakeOpenAI, Reply, chat, llm_config

from clarify_tui.models import ActionKind, Answer, EpisodeConfig, InteractCompPart, Task
from clarify_tui.runner import RunSpec, run_batch
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks
from clarify_tui.whatif import WhatIfError, whatif, with_run_seed
from clarify_tui.whatif_results import RUN_SUFFIX, outcome, summarize


def play_run(db, benchmark: str, agent: str, name: str, **config) -> None:
    store = Store(db)
    spec = RunSpec(
        name=name,
        agent=agent,
        user="rule",
        search="local",
        judge="rule",
        benchmark=benchmark,
        dataset="demo",
        config=EpisodeConfig(**config),
        concurrency=2,
    )
    asyncio.run(run_batch(store, spec, load_tasks(benchmark, "demo")))
    store.close()


def score_json(db) -> dict:
    code, out, err = run_cli("score", "--db", str(db), "--format", "json")
    assert code == 0, err
    return json.loads(out)


def forks_of(store: Store, run: str):
    return [s for s in store.sessions(runs=[run + RUN_SUFFIX])]


def test_interactcomp_forks_are_stored_sessions_and_the_baseline_score_does_not_move(tmp_path):
    db = tmp_path / "w.db"
    play_run(db, "interactcomp", "scripted:direct-guess", "guess")
    before = score_json(db)

    code, out, err = run_cli("whatif", "--run", "guess", "--db", str(db), "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert re.search(r"\d+ session\(s\), \d+ decision point\(s\).*to play", err)  # says what it will play first

    store = Store(db)
    parents = {s.id: s for s in store.sessions(runs=["guess"])}
    forks = forks_of(store, "guess")
    assert summary["forks"] == len(forks) == summary["decision_points"] > 0
    for fork in forks:
        cf = fork.counterfactual
        assert cf["intervention"] == "ask" and fork.parent_id in parents
        steps, parent_steps = store.steps(fork.id), store.steps(fork.parent_id)
        # the steps before the decision point are the parent's; the agent asks at it
        assert [s.action for s in steps[: cf["step"]]] == [s.action for s in parent_steps[: cf["step"]]]
        assert steps[cf["step"]].actor == "agent" and steps[cf["step"]].action.kind == ActionKind.ask
        assert parent_steps[cf["step"]].action.kind.value == cf["kind"] != "ask"
    # the summary counts exactly the stored outcomes
    stored = {f.id: f for f in forks}
    flips = {"wrong_to_right": 0, "right_to_wrong": 0, "unchanged": 0}
    for task in summary["tasks"]:
        for p in task["points"]:
            fork = stored[p["fork_id"]]
            assert p["fork_correct"] == bool(outcome(fork)) and p["parent_correct"] == bool(
                outcome(parents[fork.parent_id])
            )
            key = (
                "unchanged"
                if p["fork_correct"] == p["parent_correct"]
                else ("wrong_to_right" if p["fork_correct"] else "right_to_wrong")
            )
            flips[key] += 1
    assert summary["flips"] == flips
    store.close()

    assert score_json(db) == before  # counterfactuals are never in a baseline score
    # exported, they carry the field, and scoring the export leaves them out too
    export = tmp_path / "w.jsonl"
    assert run_cli("export", "--db", str(db), "--format", "jsonl", "--out", str(export))[0] == 0
    records = [json.loads(line) for line in export.read_text().splitlines()]
    assert sum(bool(r["session"].get("counterfactual")) for r in records) == len(forks)
    code, out, err = run_cli("score", "--from-export", str(export), "--format", "json")
    assert json.loads(out) == before

    # again: every fork is reused, none is played twice
    code, out, err = run_cli("whatif", "--run", "guess", "--db", str(db), "--format", "json")
    again = json.loads(out)
    assert again["forks_reused"] == again["forks"] == summary["forks"]


def test_a_seeded_coin_flip_agent_that_asks_flips_wrong_answers_to_right_offline(tmp_path):
    """Offline and deterministic: scripted:coin-flip (seed 3) keeps flipping in its forks, under
    the run's seed, and asking lets its ask-first side search with what the user said, so some
    outcomes flip (docs/whatif.md). The summary agrees with the stored forks."""
    db = tmp_path / "c.db"
    store = Store(db)
    spec = RunSpec(
        name="coin",
        agent="scripted:coin-flip",
        user="rule",
        search="local",
        judge="rule",
        benchmark="interactcomp",
        dataset="demo",
        config=EpisodeConfig(),
        concurrency=2,
        seed=3,
    )
    asyncio.run(run_batch(store, spec, load_tasks("interactcomp", "demo")))
    store.close()
    code, out, err = run_cli("whatif", "--run", "coin", "--db", str(db), "--seed", "3", "--format", "json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["flips"]["wrong_to_right"] >= 1 and summary["flips"]["right_to_wrong"] == 0
    assert summary["value_of_asking"]["delta"] > 0
    points = [p for t in summary["tasks"] for p in t["points"]]
    assert not all(p["fallback"] for p in points)  # its ask-first side asks its own question
    forks = {f.id: f for f in forks_of(Store(db), "coin")}
    assert all(p["fork_correct"] == bool(outcome(forks[p["fork_id"]])) for p in points)
    assert with_run_seed(Store(db), "coin", None).seed == 3  # the forks flip the run's coin, not seed 0's


def test_cts_asks_one_more_question_and_reports_the_change_in_restore_score(tmp_path):
    db = tmp_path / "c.db"
    play_run(db, "cts", "scripted:ask-first", "k1", k=1)
    play_run(db, "cts", "scripted:ask-first", "k3", k=3)
    store = Store(db)
    result = asyncio.run(whatif(store, "k1", which="all"))
    summary = summarize(result, resamples=200)
    assert summary["forks"] == summary["decision_points"] == len(store.sessions(runs=["k1"]))
    for fork in forks_of(store, "k1"):
        assert fork.config.k == 2
        clarify = [s for s in store.steps(fork.id) if s.action.kind == ActionKind.clarify]
        assert len(clarify[0].action.items) == 2
    changes = [p["fork_restore_score"] - p["parent_restore_score"] for t in summary["tasks"] for p in t["points"]]
    assert summary["flips"]["improved"] == sum(c > 0 for c in changes)
    assert summary["value_of_asking"]["delta"] == pytest.approx(sum(changes) / len(changes))
    # k = 3 is the paper's largest budget: no point to fork
    assert summarize(asyncio.run(whatif(store, "k3", which="all")), resamples=10)["decision_points"] == 0
    store.close()


def test_discobench_points_by_kind_limit_and_the_answer_intervention(tmp_path):
    db = tmp_path / "d.db"
    play_run(db, "discobench", "scripted:search-heavy-guess", "heavy")
    store = Store(db)
    answers = asyncio.run(whatif(store, "heavy", at="answer", limit=2))
    assert {p.kind for p in answers.points} == {"answer"} and len(answers.forks) == 2
    searches = asyncio.run(whatif(store, "heavy", at="search", intervention="answer", limit=3))
    assert {p.kind for p in searches.points} == {"search"} and len(searches.forks) == 3
    for fork in (f.session for f in searches.forks):
        step = store.steps(fork.id)[fork.counterfactual["step"]]
        assert step.action.kind == ActionKind.answer and fork.counterfactual["intervention"] == "answer"
    store.close()


def test_a_fork_a_crash_left_running_is_played_again(tmp_path):
    db = tmp_path / "r.db"
    play_run(db, "interactcomp", "scripted:direct-guess", "g")
    store = Store(db)
    first = asyncio.run(whatif(store, "g", limit=1))
    crashed = first.forks[0].session
    crashed.status = "running"  # as a kill -9 mid-fork leaves it
    store.update_session(crashed)
    again = asyncio.run(whatif(store, "g", limit=0))
    assert again.forks == [] and store.session(crashed.id).status == "superseded"
    replayed = asyncio.run(whatif(store, "g", limit=1))
    assert replayed.forks[0].session.counterfactual["step"] == crashed.counterfactual["step"]
    assert replayed.forks[0].session.status == "completed"
    store.close()


def test_unknown_run_is_one_line(tmp_path):
    db = tmp_path / "u.db"
    play_run(db, "interactcomp", "scripted:direct-guess", "real")
    code, out, err = run_cli("whatif", "--run", "typo", "--db", str(db))
    assert code == 2 and "no sessions in run 'typo'" in err and "real" in err and "Traceback" not in err
    with pytest.raises(WhatIfError):
        asyncio.run(whatif(Store(db), "typo"))


IC = Task(
    id="ic1",
    protocol="interactcomp",
    question="Which team sport has players strike a fast projectile?",
    answer=Answer(text="Hornussen"),
    interactcomp=InteractCompPart(context="The struck object is a plastic puck. HIDDEN-CONTEXT-MARK"),
)


def world(request) -> Reply:
    """An LLM agent that guesses "Curling" unless made to ask; after a yes it answers right."""
    prompt = request.prompt
    if request.model == "user-m":
        return chat("yes", 50, 1)
    if request.model == "judge-m":
        return chat("yes" if "Predicted Answer: Hornussen" in prompt else "no", 50, 1)

    def act(name, **params):
        return chat("```json\n" + json.dumps({"action": name, "params": params}) + "\n```", 300, 20)

    if "You must perform an ask action now" in prompt:
        return act("ask", question="Is the projectile a puck?")
    if "Is the projectile a puck?" in prompt:
        return act("answer", answer="Hornussen", confidence="90")
    if "Current round: 1/" in prompt:
        return act("search", query="team striking sport")
    return act("answer", answer="Curling", confidence="70")


def test_an_llm_agent_asks_its_own_question_under_the_constraint_and_flips(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-whatif")
    with FakeOpenAI(world) as models:
        cfg = llm_config(models.base_url)
        store = Store(tmp_path / "llm.db")
        spec = RunSpec(
            name="llm",
            agent="openai:agent-m",
            user="openai:user-m",
            search="local",
            judge="openai:judge-m",
            benchmark="interactcomp",
            dataset="x",
            config=EpisodeConfig(),
        )
        asyncio.run(run_batch(store, spec, [IC], config_obj=cfg))
        assert not outcome(store.sessions(runs=["llm"])[0])
        result = asyncio.run(whatif(store, "llm", at="answer", config_obj=cfg))
        summary = summarize(result, resamples=100)
        assert summary["flips"] == {"wrong_to_right": 1, "right_to_wrong": 0, "unchanged": 0}
        assert summary["extra_cost"]["tokens_in"] > 0
        fork = result.forks[0].session
        assert not fork.counterfactual.get("fallback")  # the agent's own question
        forced = [r for r in models.chat_requests("agent-m") if "You must perform an ask action now" in r.prompt]
        assert forced and all("HIDDEN-CONTEXT-MARK" not in r.prompt for r in models.chat_requests("agent-m"))
        store.close()


@pytest.fixture
def forked_db(tmp_path):
    db = tmp_path / "v.db"
    play_run(db, "interactcomp", "scripted:direct-guess", "g")
    store = Store(db)
    asyncio.run(whatif(store, "g", which="all"))
    store.close()
    return db


async def test_the_what_if_view_lists_a_sessions_forks_and_enter_compares_at_the_fork(forked_db):
    from textual.widgets import DataTable, Static

    from clarify_tui.tui.browse import BrowseApp
    from clarify_tui.tui.screens.compare import CompareScreen
    from clarify_tui.tui.screens.whatif import WhatIfScreen

    store = Store(forked_db)
    parent = store.sessions(runs=["g"])[0]
    forks = [s for s in forks_of(store, "g") if s.parent_id == parent.id]
    app = BrowseApp(store, start="replay", session_id=parent.id)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.press("i")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, WhatIfScreen)
        table = screen.query_one(DataTable)
        assert table.row_count == len(forks) == 2
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        assert [r[1] for r in rows] == ["search", "answer"] and all(r[2].startswith("ask") for r in rows)
        assert "2 forks," in str(screen.query_one("#whatif-head", Static).render())
        await pilot.press("down", "enter")
        await pilot.pause()
        assert isinstance(app.screen, CompareScreen)
        assert app.screen.ids == [parent.id, screen.forks[1].id]
    store.close()


def test_stored_reads_the_forks_back_as_whatif_summarizes_them_without_playing_any(tmp_path):
    """`report --whatif` reads forks with `stored`: the same summary as the `whatif` that made
    them; a superseded fork (a crash's leftover) is not counted, an errored one is, as errored."""
    from clarify_tui.whatif_results import interventions, stored

    db = tmp_path / "s.db"
    play_run(db, "interactcomp", "scripted:direct-guess", "g")
    store = Store(db)
    made = summarize(asyncio.run(whatif(store, "g", which="all", limit=5)), resamples=300, seed=3)
    n_sessions = len(store.sessions())
    back = summarize(stored(store, "g", "ask"), resamples=300, seed=3)
    assert len(store.sessions()) == n_sessions  # nothing played
    assert {k: back[k] for k in ("forks", "flips", "value_of_asking", "tasks")} == {
        k: made[k] for k in ("forks", "flips", "value_of_asking", "tasks")
    }
    assert interventions(store, "g") == ["ask"] and stored(store, "g", "answer").forks == []
    first, second = (f for f in forks_of(store, "g")[:2])
    first.status = "superseded"
    store.update_session(first)
    second.status = "errored"
    store.update_session(second)
    after = summarize(stored(store, "g", "ask"), resamples=300, seed=3)
    assert after["forks"] == made["forks"] - 1 and after["forks_errored"] == 1
    store.close()


def test_a_fork_from_replay_continues_under_the_runs_seed(tmp_path):
    """replay's fork (the TUI driver) gives a seeded agent its run's --seed, as whatif does."""
    from clarify_tui.tui.driver import EpisodeDriver

    db = tmp_path / "s.db"
    store = Store(db)
    spec = RunSpec(
        name="coin",
        agent="scripted:coin-flip",
        user="rule",
        search="local",
        judge="rule",
        benchmark="interactcomp",
        dataset="demo",
        config=EpisodeConfig(),
        concurrency=1,
        seed=5,
    )
    asyncio.run(run_batch(store, spec, load_tasks("interactcomp", "demo")[:1]))
    parent = store.sessions(runs=["coin"])[0]
    driver = EpisodeDriver.for_fork(
        store, parent.id, 0, lambda message: None, agent_spec="scripted:coin-flip", user_spec="rule"
    )
    assert driver.episode.agent.seed == 5
    store.close()
