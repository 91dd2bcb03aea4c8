"""Scores anyone can reproduce from the export: `score --db` and `score --from-export` agree
on every metric, before and after a re-judge (`clarify-tui judge` with an LLM judge on a
loopback server), with errored and abandoned sessions present."""

from __future__ import annotations

import asyncio
import json

import pytest
from servers import FakeOpenAI, Request, chat

from clarify_tui.cli import main
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import Action, EpisodeConfig, Session, Usage
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser
from tests.test_metrics import C1, DISCO, IC, SEARCH, build_world, play

RUNS_TO_REJUDGE = ("ic", "disco", "k1")


async def abandon_after(store: Store, task, action: Action, run: str, config=None) -> None:
    """A human-agent session that spends money on one action and is then abandoned."""
    from clarify_tui.agents.human import HumanAgent

    session = Session(
        run=run,
        task_id=task.id,
        protocol=task.protocol,
        agent="human",
        user="rule",
        search="local",
        mode="human_agent",
        annotator="ann",
    )
    ep = build_episode(
        task,
        agent=HumanAgent(),
        user=RuleUser(),
        search=SEARCH,
        judge=RuleJudge(),
        config=config or EpisodeConfig(),
        session=session,
        sink=store,
    )
    action.usage = Usage(tokens_in=40, tokens_out=4, cost_usd=0.25)
    await ep.apply(action)
    ep.abandon()


async def fill(store: Store) -> None:
    await build_world(store)  # errored sessions in ic and disco
    await abandon_after(store, IC, Action.search("lattice tower"), run="ic")
    await abandon_after(store, DISCO, Action.search("Pathea Games award"), run="disco")
    await abandon_after(store, C1, Action.clarify(["Which year do you mean?"]), run="k1")
    # a priced session on another run, so re-judging leaves some groups untouched
    await play(store, IC, [Action.answer("Tokyo Tower", 60)], run="other", priced=True)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "round.db"
    asyncio.run(fill(Store(path)))
    return path


def cli_out(capsys, *argv: str) -> str:
    capsys.readouterr()
    assert main(list(argv)) == 0
    return capsys.readouterr().out


def both(capsys, db, export, *options: str) -> tuple[str, str]:
    from_db = cli_out(capsys, "score", "--db", str(db), "--bootstrap", "300", *options)
    from_export = cli_out(capsys, "score", "--from-export", str(export), "--bootstrap", "300", *options)
    return from_db, from_export


def assert_agree(capsys, db, export, judges=(None,)) -> dict:
    """Every metric of every group identical, in json (full precision) and csv, by run and by agent."""
    reports = {}
    for judge in judges:
        extra = ("--judge", judge) if judge else ()
        for by in ("run", "agent"):
            a, b = both(capsys, db, export, "--format", "json", "--by", by, *extra)
            assert json.loads(a) == json.loads(b), (judge, by)
            reports[(judge, by)] = json.loads(a)
        a, b = both(capsys, db, export, "--format", "csv", *extra)
        assert a == b
    return reports


def export_to(capsys, db, path) -> None:
    cli_out(capsys, "export", "--db", str(db), "--format", "jsonl", "--out", str(path))


def judge_handler(request: Request):
    """The LLM judge: every answer equivalent ("yes"), every nugget partially covered."""
    if "candidate_answer" in request.prompt.lower() or '"id": "n1"' in request.prompt:
        results = [{"id": n, "coverage": "partial"} for n in ("n1", "n2")]
        return chat(json.dumps({"results": results}), prompt_tokens=300, completion_tokens=30, model="grader-m")
    return chat("yes", prompt_tokens=200, completion_tokens=5, model="grader-m")


def without_totals(report: dict) -> list:
    return [
        {**g, "metrics": {k: v for k, v in g["metrics"].items() if not k.endswith("_total")}} for g in report["groups"]
    ]


def group(report: dict, run: str, role: str = "automated") -> dict:
    """The run's group of `role`: runs "ic", "disco" and "k1" hold a person's abandoned session
    beside automated ones, so they are split by role (metrics/roles.py); "other" is not."""
    [g] = [g for g in report["groups"] if g["key"] in ({"run": run}, {"run": run, "role": role})]
    return g


def test_db_and_export_scores_agree_before_and_after_a_rejudge(db, tmp_path, capsys, monkeypatch):
    before_file = tmp_path / "before.jsonl"
    export_to(capsys, db, before_file)
    before_reports = assert_agree(capsys, db, before_file, judges=(None, "rule"))
    before = before_reports[(None, "run")]
    ic = group(before, "ic")["metrics"]
    assert (ic["errored"], ic["abandoned"]) == (1, 0)  # the person's abandoned session is counted apart
    for run in ("ic", "disco", "k1"):
        person = group(before, run, "human_agent")
        assert (person["n_sessions"], person["metrics"]["abandoned"]) == (0, 1)
    assert group(before, "disco")["metrics"]["errored"] == 1
    assert group(before, "ic", "human_agent")["metrics"]["cost_usd_total"] == pytest.approx(0.25)  # its search

    config = tmp_path / "clarify.toml"
    config.write_text("[prices.grader-m]\ninput_per_mtok = 1000.0\noutput_per_mtok = 2000.0\n", encoding="utf-8")
    with FakeOpenAI(judge_handler) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        cli_out(
            capsys,
            "judge",
            "--db",
            str(db),
            "--run",
            *RUNS_TO_REJUDGE,
            "--judge",
            "openai:grader-m",
            "--config",
            str(config),
        )
        assert server.chat_requests()

    after_file = tmp_path / "after.jsonl"
    export_to(capsys, db, after_file)
    reports = assert_agree(capsys, db, after_file, judges=(None, "rule", "openai:grader-m"))
    after = reports[(None, "run")]
    # the re-judge changed the numbers (so the agreement above covers judgments) ...
    assert group(after, "ic")["metrics"]["accuracy"] == 1.0 != group(before, "ic")["metrics"]["accuracy"]
    assert group(after, "k1")["metrics"]["restore_score_mean"] == 50.0
    # ... `--judge rule` still gives the engine's verdicts; only what was spent grew (re-judging)
    assert without_totals(reports[("rule", "run")]) == without_totals(before_reports[("rule", "run")])
    # cost: the judge's calls are in cost_usd (used verdicts) and in cost_usd_total
    ic_after = group(after, "ic")["metrics"]
    judge_cost = 4 * (200 * 1000 + 5 * 2000) / 1e6  # four completed ic sessions re-judged
    assert ic_after["cost_usd_total"] == pytest.approx(ic["cost_usd_total"] + judge_cost)
    assert ic_after["cost_usd"] == pytest.approx(ic["cost_usd"] + judge_cost)
    assert (ic_after["errored"], ic_after["abandoned"]) == (1, 0)
    # the old export, without the new judgments, scores the old numbers
    old = json.loads(
        cli_out(capsys, "score", "--from-export", str(before_file), "--format", "json", "--bootstrap", "300")
    )
    assert old == before


def test_the_export_says_which_judgment_each_metric_used(db, tmp_path, capsys, monkeypatch):
    with FakeOpenAI(judge_handler) as server:
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        cli_out(capsys, "judge", "--db", str(db), "--run", "ic", "--judge", "openai:grader-m")
        cli_out(capsys, "judge", "--db", str(db), "--run", "ic", "--judge", "rule")
    path = tmp_path / "e.jsonl"
    export_to(capsys, db, path)
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    ic = [r for r in records if r["session"]["run"] == "ic"]
    completed = [r for r in ic if r["session"]["status"] == "completed"]
    assert len(completed) == 4
    for r in completed:
        llm, rule = r["judgments"]  # oldest first
        assert (llm["judge"], llm["kind"], rule["judge"]) == ("openai:grader-m", "answer", "rule")
        assert llm["verdict"]["correct"] is True and (llm["tokens_in"], llm["tokens_out"]) == (200, 5)
        assert llm["created_at"] and llm["latency_ms"] > 0 and llm["id"] < rule["id"]
        inputs = r["score_inputs"]
        # default: the latest judgment (rule's re-judge), by id
        assert inputs["default"]["verdicts"]["answer"] == {"judgment": rule["id"], "judge": "rule"}
        assert inputs["by_judge"]["openai:grader-m"]["verdicts"]["answer"]["judgment"] == llm["id"]
        assert inputs["metrics"]["accuracy"] == "answer" and inputs["metrics"]["rounds"] == "engine"
        assert inputs["default"]["scored"] is True and inputs["default"]["excluded_as"] is None
    errored = [r for r in ic if r["session"]["status"] == "errored"]
    abandoned = [r for r in ic if r["session"]["status"] == "abandoned"]
    assert [r["score_inputs"]["default"]["excluded_as"] for r in errored + abandoned] == ["errored", "abandoned"]
    assert all(not r["score_inputs"]["default"]["scored"] for r in errored + abandoned)


def test_from_export_rejects_a_file_that_is_not_an_export(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "question": "q"}\n', encoding="utf-8")
    assert main(["score", "--from-export", str(bad)]) != 0
    assert "line 1" in capsys.readouterr().err
