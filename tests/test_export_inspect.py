"""export --format inspect: Inspect AI .eval logs, read back with Inspect's own reader.
Samples are sessions (epochs counted from 1, as Inspect does), the eval's metrics are our
score's numbers, an errored session is a sample error (never a score)."""

from __future__ import annotations

import pytest

from clarify_tui import api
from clarify_tui.cli import main
from clarify_tui.errors import AgentUnavailable

inspect_log = pytest.importorskip("inspect_ai.log")


class FlakyAgent:
    """Answers, but its server is down for one task (infrastructure: errored)."""

    def act(self, view):
        from clarify_tui import Action

        if view.task_id == "ic-02":
            raise AgentUnavailable("model server down")
        return Action.answer("Armageddon", confidence=80)


def test_inspect_logs_read_back_with_inspects_reader(tmp_path, capsys):
    db = tmp_path / "i.db"
    api.run(
        "interactcomp",
        FlakyAgent(),
        db=db,
        name="ic",
        limit=3,
        epochs=2,
        task_attempts=1,
        episode={"interactcomp_mode": "answer_only"},
    )
    api.run("cts", "scripted:ask-first", db=db, name="cts", limit=2, episode={"k": 2})
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["cts.eval", "ic.eval"]

    log = inspect_log.read_eval_log(str(out / "ic.eval"))
    assert log.status == "success" and log.eval.task == "clarify_tui/interactcomp" and log.eval.config.epochs == 2
    assert log.eval.model == f"py:{__name__}:FlakyAgent"
    assert sorted((s.id, s.epoch) for s in log.samples) == [(t, e) for t in ("ic-01", "ic-02", "ic-03") for e in (1, 2)]
    errored = [s for s in log.samples if s.error is not None]
    assert {s.id for s in errored} == {"ic-02"} and all(not s.scores for s in errored)
    assert "model server down" in errored[0].error.message
    scored = [s for s in log.samples if s.error is None]
    assert all(
        s.scores["clarify_tui"].value in (0.0, 1.0) and s.messages[1].tool_calls[0].function == "answer" for s in scored
    )
    ours = api.score(db, runs=["ic"])["groups"][0]["metrics"]
    metrics = {k: m.value for k, m in log.results.scores[0].metrics.items()}
    assert metrics["accuracy"] == ours["accuracy"] and metrics["errored"] == ours["errored"] == 2
    assert metrics["pass^2"] == ours["epochs"]["pass_k"]["2"]

    cts = inspect_log.read_eval_log(str(out / "cts.eval"))
    sample = cts.samples[0]
    assert (
        sample.messages[1].tool_calls[0].function == "clarify"
        and len(sample.messages[1].tool_calls[0].arguments["items"]) == 2
    )
    assert isinstance(sample.target, list) and 0 <= sample.scores["clarify_tui"].value <= 100
    assert {k: m.value for k, m in cts.results.scores[0].metrics.items()}["restore_score_mean"] == api.score(
        db, runs=["cts"]
    )["groups"][0]["metrics"]["restore_score_mean"]


def test_inspect_export_needs_a_folder(tmp_path, capsys):
    db = tmp_path / "i.db"
    api.run("interactcomp", "scripted:direct-guess", db=db, name="ic", limit=1)
    assert main(["export", "--db", str(db), "--format", "inspect"]) == 2
    assert "give --out FOLDER" in capsys.readouterr().err


class DownAgent:
    """Its model server is down for every task: nothing is scored."""

    def act(self, view):
        raise AgentUnavailable("quota exhausted")


def test_an_all_errored_run_is_an_error_log_not_a_success(tmp_path, capsys):
    db = tmp_path / "i.db"
    api.run("interactcomp", DownAgent(), db=db, name="down", limit=2, task_attempts=1)
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    log = inspect_log.read_eval_log(str(out / "down.eval"))
    assert log.status == "error" and "all 2 samples errored" in log.error.message
    assert "quota exhausted" in log.error.message
    assert log.results.completed_samples == 0 and all(s.error is not None for s in log.samples)


class TokenAgent:
    """Searches, asks, answers; every move reports the tokens its model call cost."""

    def act(self, view):
        from clarify_tui import Action, Usage

        done = [t.action.kind for t in view.history]
        if "search" not in done:
            action = Action.search(view.question)
        elif "ask" not in done and "ask" in view.allowed:
            action = Action.ask("Is it the best-known one?")
        else:
            action = Action.answer("Armageddon", confidence=50)
        action.raw = f"I will {action.kind.value}"
        action.usage = Usage(tokens_in=100, tokens_out=20, cost_usd=0.01, model="agent-model")
        return action


class TokenUser:
    """InteractComp's user, on an unpriced model: 'no' to everything."""

    def reply_interactcomp(self, task, question):
        from clarify_tui.models import Usage
        from clarify_tui.users.base import UserReply

        return UserReply(
            text="no", raw="No.", usage=Usage(tokens_in=7, tokens_out=1, cost_usd=None, model="user-model")
        )

    reply_discobench = answer_clarification = rewrite = reply_interactcomp


def _ic_token_log(tmp_path, resolve_attachments=False):
    db = tmp_path / "i.db"
    api.run("interactcomp", TokenAgent(), db=db, name="tok", limit=2, user=f"py:{__file__}:TokenUser")
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    return inspect_log.read_eval_log(str(out / "tok.eval"), resolve_attachments=resolve_attachments)


def test_token_usage_per_sample_by_model_and_role_and_the_eval_totals(tmp_path, capsys):
    log = _ic_token_log(tmp_path)
    assert len(log.samples) == 2
    for sample in log.samples:
        agent, user = sample.model_usage["agent-model"], sample.model_usage["user-model"]
        assert (agent.input_tokens, agent.output_tokens, agent.total_tokens) == (300, 60, 360)
        assert agent.total_cost == pytest.approx(0.03)
        assert (user.input_tokens, user.output_tokens) == (7, 1) and user.total_cost is None  # unpriced, never $0
        assert sample.role_usage["agent"].input_tokens == 300 and sample.role_usage["user"].input_tokens == 7
    assert (
        log.eval.model_roles["user"].model == f"py:{__file__}:TokenUser"
        and log.eval.model_roles["judge"].model == "rule"
    )
    totals = log.stats.model_usage
    assert totals["agent-model"].input_tokens == 600 and totals["agent-model"].output_tokens == 120
    assert totals["user-model"].total_tokens == 16 and log.stats.role_usage["agent"].total_tokens == 720


def test_a_samples_events_are_its_model_calls_tool_calls_user_replies_and_score(tmp_path, capsys):
    sample = _ic_token_log(tmp_path, resolve_attachments=True).samples[0]  # long texts are attachments
    kinds = [
        (e.event, getattr(e, "function", None) or getattr(e, "source", None) or getattr(e, "role", None))
        for e in sample.events
    ]
    assert kinds == [
        ("model", None),
        ("tool", "search"),
        ("model", None),
        ("tool", "ask"),
        ("model", "user"),
        ("info", "user"),
        ("model", None),
        ("tool", "answer"),
        ("info", "judge"),
        ("score", None),
    ]
    model, search, ask = sample.events[0], sample.events[1], sample.events[3]
    assert model.model == "agent-model" and model.output.usage.input_tokens == 100
    assert model.output.message.tool_calls[0].function == "search" and model.output.message.content == "I will search"
    assert model.input[0].text == sample.input  # the visible question: the calls see the conversation so far
    assert sample.events[2].input[-1].role == "tool" and sample.events[2].input[-1].function == "search"
    assert search.arguments == {"text": sample.input} and ": " in search.result  # the hits came back
    assert ask.arguments == {"text": "Is it the best-known one?"} and ask.result == "no"
    user_call, reply = sample.events[4], sample.events[5]
    assert (
        user_call.model == "user-model"
        and user_call.output.completion == "No."
        and user_call.output.usage.input_tokens == 7
    )
    assert user_call.input[0].text == "Is it the best-known one?"  # the simulator was asked the agent's question
    assert reply.data["question"] == "Is it the best-known one?" and reply.data["reply"] == "no"
    assert sample.events[-1].score.value == sample.scores["clarify_tui"].value


def test_cts_user_answers_and_rewrite_are_events(tmp_path, capsys):
    db = tmp_path / "c.db"
    api.run("cts", "scripted:ask-first", db=db, name="cts", limit=1, episode={"k": 2})
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    sample = inspect_log.read_eval_log(str(out / "cts.eval")).samples[0]
    clarify = next(e for e in sample.events if e.event == "tool")
    users = [e.data for e in sample.events if e.event == "info" and e.source == "user"]
    assert [u["question"] for u in users[:2]] == clarify.arguments["items"]
    assert all(u["reply"] for u in users[:2]) and "rewrite" in users[2]
    assert [e.function for e in sample.events if e.event == "tool"][-1] == "answer"


class SometimesDownAgent:
    """Answers; its server is down for ic-02 while `down` is set."""

    down = True

    def act(self, view):
        from clarify_tui import Action

        if SometimesDownAgent.down and view.task_id == "ic-02":
            raise AgentUnavailable("model server down")
        return Action.answer("Armageddon", confidence=80)


def test_epochs_after_a_resume_that_played_more_epochs_and_retried_errors(tmp_path, capsys):
    db = tmp_path / "i.db"
    SometimesDownAgent.down = True
    api.run(
        "interactcomp",
        SometimesDownAgent(),
        db=db,
        name="ic",
        limit=3,
        task_attempts=1,
        episode={"interactcomp_mode": "answer_only"},
    )
    SometimesDownAgent.down = False
    resumed = api.run(
        "interactcomp",
        SometimesDownAgent(),
        db=db,
        name="ic",
        limit=3,
        epochs=2,
        task_attempts=1,
        resume=True,
        retry_errored=True,
        episode={"interactcomp_mode": "answer_only"},
    )
    assert resumed.superseded == 1
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    log = inspect_log.read_eval_log(str(out / "ic.eval"))
    assert log.eval.config.epochs == 2  # the run's first command said 1
    assert sorted((s.id, s.epoch) for s in log.samples) == [(t, e) for t in ("ic-01", "ic-02", "ic-03") for e in (1, 2)]
    assert log.status == "success" and all(s.error is None for s in log.samples)  # the superseded one is gone
    ours = api.score(db, runs=["ic"])["groups"][0]["metrics"]
    assert {k: m.value for k, m in log.results.scores[0].metrics.items()}["pass^2"] == ours["epochs"]["pass_k"]["2"]


def test_the_logs_match_the_schema_inspect_view_reads(tmp_path, capsys):
    """`inspect view` types its logs from Inspect's OpenAPI schema: every exported eval and
    sample (events, usage, errors) must validate against it."""
    import json
    from pathlib import Path

    jsonschema = pytest.importorskip("jsonschema")
    schema_file = Path(inspect_log.__file__).parent.parent / "_view" / "inspect-openapi.json"
    components = json.loads(schema_file.read_text())["components"]
    db = tmp_path / "i.db"
    api.run("interactcomp", TokenAgent(), db=db, name="tok", limit=1, user=f"py:{__file__}:TokenUser")
    api.run("interactcomp", DownAgent(), db=db, name="down", limit=1, task_attempts=1)
    api.run("discobench", "scripted:ask-first", db=db, name="disco", limit=1)
    api.run("cts", "scripted:ask-first", db=db, name="cts", limit=1, episode={"k": 2})
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    checked = 0
    for path in sorted(out.iterdir()):
        log = inspect_log.read_eval_log(str(path))
        for obj, which in [(log, "EvalLog"), *((s, "EvalSample") for s in log.samples)]:
            validator = jsonschema.Draft202012Validator(
                {"$ref": f"#/components/schemas/{which}", "components": components}
            )
            errors = [
                f"{path.name} {list(e.absolute_path)}: {e.message[:200]}"
                for e in validator.iter_errors(json.loads(obj.model_dump_json(exclude_none=True)))
            ]
            assert errors == []
            checked += 1
    assert checked == 8 and {e.event for s in log.samples for e in s.events} >= {"model", "tool", "info", "score"}


def test_a_person_playing_the_agent_made_no_model_calls(tmp_path, capsys):
    import asyncio

    from clarify_tui.agents.scripted import ScriptedAgent
    from clarify_tui.engine import build_episode
    from clarify_tui.judges.rule import RuleJudge
    from clarify_tui.models import Session
    from clarify_tui.search.local import LocalSearch
    from clarify_tui.store import Store
    from clarify_tui.users.rule import RuleUser
    from tests.conftest import DOCS, IC

    db = tmp_path / "p.db"
    session = Session(
        run="tui",
        task_id=IC.id,
        protocol=IC.protocol,
        agent="human",
        user="rule",
        search="local",
        judge="rule",
        mode="human_agent",
        annotator="ana",
    )
    asyncio.run(
        build_episode(
            IC,
            agent=ScriptedAgent("search-then-ask"),
            user=RuleUser(),
            search=LocalSearch(DOCS),
            judge=RuleJudge(),
            session=session,
            sink=Store(db),
        ).run()
    )
    out = tmp_path / "logs"
    assert main(["export", "--db", str(db), "--format", "inspect", "--out", str(out)]) == 0
    [sample] = inspect_log.read_eval_log(str(out / "tui.eval")).samples
    events = [e.event for e in sample.events]
    assert (
        "model" not in events and events.count("tool") == sum(1 for m in sample.messages if m.role == "assistant") > 0
    )
