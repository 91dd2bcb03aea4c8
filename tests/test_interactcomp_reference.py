"""InteractComp played as the reference harness plays it, through a scripted loopback model.

Each test pins one rule of github:FoundationAgents/InteractComp (core/agent.py,
run_benchmark.py, core/benchmark.py, core/responder.py) as seen by a user: what the
model is sent, what is recorded, and how the task is scored.
"""

from __future__ import annotations

import json

import pytest
import sqlite_utils
from servers import FakeOpenAI, FakeTavily, Reply, chat, error, llm_config, tavily_results

from clarify_tui.engine import build_episode
from clarify_tui.models import Answer, EpisodeConfig, InteractCompPart, Task
from clarify_tui.search.cache import CachedSearch
from clarify_tui.services import build_agent, build_judge, build_search, build_user

IC = Task(
    id="ic1",
    protocol="interactcomp",
    question="Which team sport has players strike a fast projectile that teammates intercept in the air?",
    answer=Answer(text="Hornussen", aliases=["Hornuss"]),
    interactcomp=InteractCompPart(
        context="The struck object is a plastic puck. Defenders block it with wooden boards."
    ),
)
FEEDBACK = "Invalid action. Please choose from: answer, search, ask."


def act(name: str, **params) -> str:
    return "Thinking.\n```json\n" + json.dumps({"action": name, "params": params}) + "\n```"


ANSWER = act("answer", answer="Hornussen", confidence="80")


class World:
    """Agent outputs in order; the responder says `reply`; the grader says `grade`
    (default: yes exactly when the predicted answer is Hornussen)."""

    def __init__(self, agent: list[str], reply: str = "yes", grade: str | None = None, fail: str = "") -> None:
        self.agent, self.reply, self.grade, self.fail = list(agent), reply, grade, fail

    def __call__(self, request) -> Reply:
        prompt = request.prompt
        if request.model == "agent-m":
            if not self.agent:
                return Reply(status=400, body={"error": {"message": "agent script exhausted"}})
            return chat(self.agent.pop(0))
        if self.fail and self.fail in prompt:  # a failing responder or grader endpoint
            return error(500, "upstream exploded")
        if "specialized Q&A agent" in prompt:
            return chat(self.reply)
        predicted = prompt.split("Predicted Answer: ")[1].split("\n")[0]
        return chat(self.grade or ("yes" if predicted == "Hornussen" else "no"))


@pytest.fixture
def run(monkeypatch, tmp_path):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("TAVILY_API_KEY", "tvly-test")
    servers = []

    async def play(world: World, hits=(("Result", "https://r", "A page"),), search_fails=False, **config):
        models = FakeOpenAI(world).__enter__()
        tavily = FakeTavily(lambda r: error(500) if search_fails else tavily_results(r.json["query"], hits)).__enter__()
        servers.extend([models, tavily])
        cfg = llm_config(models.base_url, tavily.url)
        db = sqlite_utils.Database(tmp_path / f"{len(servers)}.db")
        ep = build_episode(
            IC,
            agent=build_agent("agent-m", cfg),
            user=build_user("user-m", cfg),
            judge=build_judge("judge-m", cfg),
            search=CachedSearch(build_search(cfg), db, "off"),
            config=EpisodeConfig(**config),
        )
        session = await ep.run()
        return session, ep, models

    yield play
    for server in servers:
        assert server.errors == []
        server.__exit__(None, None, None)


def agent_prompts(models) -> list[str]:
    return [r.json["messages"][1]["content"] for r in models.chat_requests("agent-m")]


def grader_prompts(models) -> list[str]:
    return [r.prompt for r in models.chat_requests("judge-m")]


async def test_four_invalid_outputs_skip_the_task_with_an_empty_graded_prediction(run):
    outputs = [
        "I think it is baseball.",
        '{"action": "lookup", "params": {"query": "x"}}',
        '{"action": "Search", "params": {"query": "x"}}',
        "<answer>Hornussen</answer>",
        ANSWER,
    ]
    session, ep, models = await run(World(outputs))
    assert session.status == "completed" and session.error is None  # a model failure, never excluded
    r = session.result
    assert (r.outcome, r.answer, r.correct, r.invalid, r.rounds) == ("invalid_skip", "", False, 4, 0)
    prompts = agent_prompts(models)
    assert len(prompts) == 4 and all("Current round: 1/10" in p for p in prompts)  # no round used
    assert all(f"Last action: \nObservation: {FEEDBACK}\n" in p for p in prompts[1:])
    [grading] = grader_prompts(models)
    assert "Predicted Answer: \nCorrect Answer: Hornussen" in grading  # graded, as the harness does


async def test_two_invalid_outputs_then_a_valid_one_stay_in_the_round(run):
    outputs = ["no json here", "still none", act("search", query="striking sport"), ANSWER]
    session, ep, models = await run(World(outputs))
    r = session.result
    assert (r.outcome, r.correct, r.invalid, r.rounds, r.searches) == ("answered", True, 2, 2, 1)
    prompts = agent_prompts(models)
    assert [p.count("Current round: 1/10") for p in prompts] == [1, 1, 1, 0]
    assert "Current round: 2/10" in prompts[3]
    # after the search, memory's round 1 holds the question and the search (agent.py:246-256)
    assert f"[Round 1]\nUser: {IC.question}\n    Action: search (query: striking sport)\n" in prompts[3]
    assert "Observation: 1. Result — A page (src: https://r)" in prompts[3]
    assert "[Round 2]" not in prompts[3] and "Last action: search\n" in prompts[3]


async def test_forced_ask_refuses_early_answers_without_a_round_and_counts_them_as_invalid(run):
    outputs = [ANSWER, act("ask", question="Is it a puck?"), ANSWER, act("ask", question="Is it wooden?"), ANSWER]
    session, ep, models = await run(World(outputs), interactcomp_mode="forced_ask", forced_asks=2, max_rounds=4)
    r = session.result
    assert (r.correct, r.asks, r.rounds, r.invalid, r.refused) == (True, 2, 3, 2, 2)
    prompts = agent_prompts(models)
    refusal = "Answer is not allowed before 2 asks. Asks so far: 0/2. Please use ask or search."
    assert f"Last action: \nObservation: {refusal}\n" in prompts[1] and "Current round: 1/4" in prompts[1]
    assert "Asks so far: 1/2." in prompts[3] and "Current round: 2/4" in prompts[3]
    constraints = (
        "Constraints: You must perform at least 2 ask actions before answering. "
        "Early answers will be rejected. The final round must answer.\n\nQUESTION:\n"
    )
    system = models.chat_requests("agent-m")[0].json["messages"][0]["content"]
    assert f"## Question\n{constraints}{IC.question}\n" in system
    assert f"## Question\n{constraints}{IC.question}\n" in prompts[0]
    # the grader sees the task's own question, without the prefix (benchmark.py:118-122)
    assert "Constraints" not in grader_prompts(models)[0]


async def test_forced_ask_early_answers_count_toward_the_invalid_limit(run):
    session, ep, models = await run(World([ANSWER] * 4), interactcomp_mode="forced_ask", forced_asks=2, max_rounds=3)
    assert (session.result.outcome, session.result.invalid, session.result.correct) == ("invalid_skip", 4, False)


async def test_forced_ask_answers_in_the_final_round_whatever_the_asks(run):
    outputs = [act("search", query="sport"), act("search", query="puck"), ANSWER]
    session, ep, models = await run(World(outputs), interactcomp_mode="forced_ask", forced_asks=2, max_rounds=3)
    assert session.result.correct is True and session.result.asks == 0


async def test_answer_only_is_one_final_round_call_and_garbage_is_no_answer(run):
    session, ep, models = await run(World(["I refuse to use JSON."]), interactcomp_mode="answer_only", max_rounds=10)
    [prompt] = agent_prompts(models)
    assert prompt.startswith("\n\nGiven the question and information you have gathered") and "## Round\n1/1\n" in prompt
    assert f"## Memory\n[Round 1]\nUser: {IC.question}\n    Action:  ()\nObservation: \n" in prompt
    system = models.chat_requests("agent-m")[0].json["messages"][0]["content"]
    assert "Action: answer" in system and "Action: search" not in system and "Action: ask" not in system
    r = session.result
    assert (r.answer, r.outcome, r.correct, r.rounds, r.max_rounds) == ("No Answer", "no_answer", False, 1, 1)
    assert "Predicted Answer: No Answer\n" in grader_prompts(models)[0]


async def test_the_final_round_is_one_call_a_non_answer_yields_its_answer_param_or_no_answer(run):
    outputs = [act("search", query="sport"), act("search", query="x", answer="Hornussen")]
    session, ep, models = await run(World(outputs), max_rounds=2)
    assert session.result.answer == "Hornussen" and session.result.correct is True  # agent.py:136
    assert len(agent_prompts(models)) == 2 and "## Round\n2/2" in agent_prompts(models)[1]

    session, ep, models = await run(World([act("search", query="sport"), "prose"]), max_rounds=2)
    assert (session.result.answer, session.result.correct) == ("No Answer", False)
    assert len(agent_prompts(models)) == 2  # the final round is never retried


async def test_a_call_the_harness_cannot_make_scores_zero_and_lenient_parsing_accepts_it(run):
    flat = json.dumps({"action": "search", "query": "striking sport"})  # params outside "params"
    session, ep, models = await run(World([flat, ANSWER]))
    r = session.result
    assert (r.outcome, r.correct, r.actions) == ("call_error", False, "reference")
    assert grader_prompts(models) == [] and session.status == "completed"

    session, ep, models = await run(World([flat, ANSWER]), actions="lenient")
    assert (session.result.correct, session.result.searches, session.result.actions) == (True, 1, "lenient")
    assert session.config.actions == "lenient"


async def test_an_answer_without_confidence_is_a_failed_call_in_reference_parsing(run):
    session, ep, models = await run(World([act("answer", answer="Hornussen")]))
    assert (session.result.outcome, session.result.correct) == ("call_error", False)


async def test_action_order_and_an_empty_search_as_the_reference_renders_them(run):
    outputs = [act("search", query="nothing"), ANSWER]
    session, ep, models = await run(World(outputs), hits=())
    system = models.chat_requests("agent-m")[0].json["messages"][0]["content"]
    assert system.index("Action: answer") < system.index("Action: search") < system.index("Action: ask")
    assert "Observation: No results\n" in agent_prompts(models)[1]


@pytest.mark.parametrize(
    "compat, expected",
    [
        (None, "no"),
        ("paper", "no"),
        ("reference", "no"),
        ("strict", "i don't know"),
    ],
)
async def test_responder_reading_is_the_references_first_line_substrings_unless_strict(run, compat, expected):
    """responder.py:48-66 by default (no flag): "I don't know." is read as *no*."""
    outputs = [act("ask", question="Is it a puck?"), ANSWER]
    flags = {"compat": compat} if compat else {}
    session, ep, models = await run(World(outputs, reply="I don't know."), **flags)
    [reply] = [s.action.text for s in ep.steps if s.actor == "user"]
    assert reply == expected and session.result.compat == (compat or "paper")
    assert f"Observation: {expected}\n" in agent_prompts(models)[1]


@pytest.mark.parametrize("compat, correct", [(None, True), ("paper", True), ("reference", True), ("strict", False)])
async def test_grader_reading_is_the_references_yes_substring_unless_strict(run, compat, correct):
    """benchmark.py:132-148 by default: the gold text only, correct when "yes" occurs."""
    grade = "No. The names differ, so I cannot say yes.\nno"
    flags = {"compat": compat} if compat else {}
    session, ep, models = await run(
        World([act("answer", answer="Baseball", confidence="50")], grade=grade), max_rounds=1, **flags
    )
    assert session.result.correct is correct
    gold = grader_prompts(models)[0].split("Correct Answer: ")[1].split("\n")[0]
    assert gold == ("Hornussen (also accepted: Hornuss)" if compat == "strict" else "Hornussen")


def test_sessions_stored_with_our_old_readings_name_read_as_strict():
    assert EpisodeConfig(compat="ours").compat == "strict"
    assert EpisodeConfig().compat == "paper"


@pytest.mark.parametrize("compat", ["strict", "paper", "reference"])
async def test_failed_responder_search_and_grader_calls_error_unless_compat_reference(run, compat):
    """Reference responder.py:100-102 (i don't know), action.py:134-136 (Search failed),
    benchmark.py:150-152 (wrong) under --compat reference only; by default (paper) and
    strict the session is errored (infrastructure, counted apart), never scored."""
    ask, search = act("ask", question="Is it a puck?"), act("search", query="sport")
    responder, asked, models = await run(World([ask, ANSWER], fail="specialized Q&A agent"), compat=compat)
    searcher, _, searched = await run(World([search, ANSWER]), search_fails=True, compat=compat)
    grader, graded, _ = await run(World([ANSWER], fail="impartial grader"), compat=compat)
    if compat != "reference":
        assert [s.status for s in (responder, searcher, grader)] == ["errored"] * 3
        return
    assert [s.status for s in (responder, searcher, grader)] == ["completed"] * 3
    assert "Observation: i don't know\n" in agent_prompts(models)[1] and responder.result.correct is True
    assert "Observation: Search failed\n" in agent_prompts(searched)[1] and searcher.result.correct is True
    assert grader.result.correct is False
    # issue 22: each converted failure is recorded on its step, so replay and the export say why
    [judged] = [s for s in graded.steps if s.actor == "judge"]
    assert "grader call failed" in judged.observation.text and "500" in judged.observation.data["fault"]
    [replied] = [s for s in asked.steps if s.actor == "user"]
    assert replied.action.text == "i don't know" and "500" in replied.observation.data["fault"]
    assert "responder call failed" in replied.observation.text


async def test_full_with_context_gives_the_agent_context_then_question(run):
    session, ep, models = await run(World([ANSWER]), interactcomp_mode="full_with_context")
    assert f"## Question\nCONTEXT:\n{IC.interactcomp.context}\n\nQUESTION:\n{IC.question}\n" in agent_prompts(models)[0]
    assert IC.interactcomp.context not in grader_prompts(models)[0]


def test_a_run_reports_invalid_skips_as_wrong_errors_apart_and_exports_both_honestly(tmp_path, monkeypatch, capsys):
    """CLI end to end: one answered task, one skipped after invalid outputs, one errored."""
    import csv
    import io

    from clarify_tui.cli import main

    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    records = [
        {"id": i, "question": f"{tag}: which sport is it?", "answer": "Hornussen", "context": "A puck."}
        for i, tag in enumerate(["PLAIN", "GARBAGE", "DOOMED"], 1)
    ]
    dataset = tmp_path / "ic.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    def handler(request):
        if request.model == "agent-m":
            if "DOOMED" in request.prompt:
                return error(500, "upstream exploded")
            return chat("prose, no JSON" if "GARBAGE" in request.prompt else ANSWER)
        return World([])(request)

    with FakeOpenAI(handler) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        db = str(tmp_path / "run.db")
        common = [
            "--benchmark",
            "interactcomp",
            "--dataset",
            str(dataset),
            "--agent",
            "openai:agent-m",
            "--user",
            "openai:user-m",
            "--judge",
            "openai:judge-m",
            "--config",
            str(config),
            "--db",
            db,
        ]
        assert main(["run", *common, "--mode", "forced_ask", "--max-rounds", "5"]) != 0
        refused = " ".join(capsys.readouterr().err.split())
        assert "--max-rounds >= --forced-asks + 1 (5 asks + 1 answer round); got --max-rounds 5" in refused
        assert main(["run", *common, "--run", "r1"]) == 1  # a session errored (docs/runs.md "Exit codes")
        summary = " ".join(capsys.readouterr().err.split())
    assert (
        "2 completed, 1 errored, 2 attempt(s) played again (--task-attempts; kept as superseded); "
        "accuracy 0.50 (1/2), accuracy_all 0.33 (1/3, errored as wrong); 1 invalid skip"
    ) in summary

    assert main(["score", "--db", db, "--format", "json"]) == 0
    [group] = json.loads(capsys.readouterr().out)["groups"]
    metrics = group["metrics"]
    assert (metrics["accuracy"], metrics["accuracy_all"], metrics["invalid_skips"], metrics["errored"]) == (
        0.5,
        pytest.approx(1 / 3),
        1,
        1,
    )
    assert metrics["invalid_outputs"] == 4 and metrics["rounds"] == 0.5  # the skip used no round

    out = tmp_path / "harness.csv"
    assert main(["export", "--db", db, "--format", "interactcomp-csv", "--out", str(out), "--include-hidden"]) == 0
    assert "1 errored session(s)" in capsys.readouterr().err
    rows = {r["question"].split(":")[0]: r for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))}
    assert (rows["PLAIN"]["predicted_answer"], rows["PLAIN"]["score"]) == ("Hornussen", "1.0")
    assert (rows["GARBAGE"]["predicted_answer"], rows["GARBAGE"]["score"]) == ("", "0.0")
    assert rows["GARBAGE"]["action_counts"] == "{'valid': True}"  # run_benchmark.py:129-130
    assert rows["DOOMED"]["predicted_answer"] == "Error" and rows["DOOMED"]["history"].startswith("Error: ")
    assert "500" in rows["DOOMED"]["history"]


def test_compat_strict_is_named_as_not_the_papers_and_a_flag_without_a_model_warns(tmp_path, capsys):
    """Issue 23: the default reads as the reference (nothing to say); `--compat strict` says in
    the run summary and in `score` that its numbers are not the paper's; an explicit --compat
    with the rule user and judge (fixed words, nothing to read) warns that it changes nothing."""
    from clarify_tui.cli import main
    from clarify_tui.protocols.interactcomp.compat import compat_deviations

    db = str(tmp_path / "c.db")
    common = ["run", "--benchmark", "interactcomp", "--agent", "scripted:search-then-ask", "--limit", "2", "--db", db]
    assert main([*common, "--run", "plain"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "--compat" not in err and "not comparable" not in err
    assert main([*common, "--run", "strict", "--compat", "strict"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "warning: --compat strict changes nothing: the rule user and the rule judge reply with fixed words" in err
    assert (
        "note: 2 InteractComp session(s) read replies with --compat strict (ours): not the reference "
        "harness's readings, so not comparable with the paper's numbers"
    ) in err
    assert main(["score", "--db", db, "--run", "plain", "--format", "json"]) == 0
    assert "--compat strict" not in capsys.readouterr().err
    assert main(["score", "--db", db, "--format", "json"]) == 0
    out = capsys.readouterr()
    assert "note: 2 InteractComp session(s) read replies with --compat strict" in out.err
    json.loads(out.out)  # the note stays out of the JSON
    assert compat_deviations("strict") == ["InteractComp readings: strict (ours), not the reference harness's"]
    assert compat_deviations("ours") == compat_deviations("strict")  # results stored before issue 23
    assert compat_deviations("paper") == compat_deviations("reference") == []


# Real-model wordings and what the reference harness makes of them, taken by running its own
# core/responder.py `_normalize` (:48-66, inside `__call__`'s try, :95-102) and
# core/benchmark.py `calculate_score` (:132-152) on each reply (commit 737d0e7).
# (responder reply, what the agent is shown, grader reply, reference score)
REAL_WORDING = [
    ("I don't know.\nThe context does not say.", "no", "The predicted answer matches.\nyes", 1.0),
    (
        "No, the struck object is a puck, so I cannot say yes.",
        "yes",
        "No. The names differ, so I cannot say yes.\nno",
        1.0,
    ),
    (
        "Yes.\nThe context says the object is a plastic puck.",
        "yes",
        "The predicted answer is a different sport.\nno",
        0.0,
    ),
    (
        "The context does not mention the colour.\nI don't know.",
        "no",
        "Let me think: they are not the same. Answer: no",
        0.0,
    ),
    ("The context says the object is a puck.\nyes", "i don't know", "They match. Answer: Yes", 1.0),
    ("Not sure.", "no", "Eyes on the detail: different sports.\nno", 1.0),
    ("I cannot determine this from the context.", "no", "", 0.0),
    ("  \n", "i don't know", "Reasoning: the prediction differs.\nFinal: no", 0.0),
    ("It is unclear.", "i don't know", "YES.", 1.0),
    ("不是。上下文说是冰球。", "i don't know", "no", 0.0),
]


def test_the_reference_differential_on_real_model_wording_agrees_task_for_task_with_no_flag(tmp_path, capsys):
    """Issue 23's done-criterion: with no --compat flag, every task's observation and score
    equal the reference harness's on multi-line responder replies and graders that reason
    before their verdict (REAL_WORDING, read by the reference's own code)."""
    import csv
    import io

    from clarify_tui.cli import main

    records = [
        {
            "id": i,
            "question": f"T{i}: which team sport has a flying puck?",
            "answer": "Hornussen",
            "context": f"T{i}: the struck object is a plastic puck.",
        }
        for i in range(len(REAL_WORDING))
    ]
    dataset = tmp_path / "ic.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    def tag(prompt: str) -> int:
        return int(
            prompt.split(": the struck object" if "specialized Q&A agent" in prompt else ": which team")[0].rsplit(
                "T", 1
            )[1]
        )

    def handler(request):
        prompt = request.prompt
        if request.model == "agent-m":
            asked = "Observation: " in prompt and "Action: ask" in prompt.split("## Memory")[-1]
            return chat(act("answer", answer="Hornussen", confidence="60") if asked else act("ask", question="A puck?"))
        if "specialized Q&A agent" in prompt:
            return chat(REAL_WORDING[tag(prompt)][0])
        return chat(REAL_WORDING[tag(prompt)][2])

    with FakeOpenAI(handler) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        db = str(tmp_path / "run.db")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--dataset",
                    str(dataset),
                    "--agent",
                    "openai:agent-m",
                    "--user",
                    "openai:user-m",
                    "--judge",
                    "openai:judge-m",
                    "--config",
                    str(config),
                    "--db",
                    db,
                    "--run",
                    "plain",
                    "--concurrency",
                    "1",
                ]
            )
            == 0
        )  # no --compat
        shown = {}
        for r in models.chat_requests("agent-m"):
            memory = r.json["messages"][1]["content"].split("## Memory")[-1]
            if "Action: ask" in memory:
                shown[tag(r.json["messages"][0]["content"].split("## Question\n")[1])] = memory.split("Observation: ")[
                    1
                ].split("\n")[0]
        assert models.errors == []
    capsys.readouterr()
    out = tmp_path / "harness.csv"
    assert main(["export", "--db", db, "--format", "interactcomp-csv", "--out", str(out), "--include-hidden"]) == 0
    scores = {
        int(r["question"].split(":")[0][1:]): float(r["score"])
        for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))
    }
    assert shown == {i: row[1] for i, row in enumerate(REAL_WORDING)}
    assert scores == {i: row[3] for i, row in enumerate(REAL_WORDING)}


def test_calibration_counts_skips_and_non_answers_at_confidence_0_natively_and_imported_alike(tmp_path, capsys):
    """run_benchmark.py:90-100: the harness writes confidence 0 for a skipped task and for a
    final-round reply that is not an answer ("No Answer", or its `answer` param), so the
    paper's calibration error counts them. Played natively, then exported as the harness's
    CSV and imported: the same calibration error both ways (it was 0.2 native, leaving them out).

    (80, right) in bin [80,100]: 1/4 * |1 - 0.8| = 0.05; (0, wrong) x2 and (0, right) in
    bin [0,20): 3/4 * |1/3 - 0| = 0.25; calibration_error = 0.30."""
    import csv
    import io

    from clarify_tui.cli import main
    from clarify_tui.importers import import_harness
    from clarify_tui.metrics import load_sessions, score_sessions
    from clarify_tui.store import Store

    tags = ["PLAIN", "GARBAGE", "NOANSWER", "PARAM"]
    records = [
        {"id": i, "question": f"{tag}: which sport is it?", "answer": "Hornussen", "context": "A puck."}
        for i, tag in enumerate(tags, 1)
    ]
    dataset = tmp_path / "ic.jsonl"
    dataset.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")

    def handler(request):
        prompt = request.prompt
        if request.model != "agent-m":
            return World([])(request)
        final = "## Round\n2/2" in prompt
        if "PLAIN" in prompt:
            return chat(ANSWER)
        if "GARBAGE" in prompt:
            return chat("prose, no JSON")
        if not final:
            return chat(act("search", query="striking sport"))
        return chat("I give up." if "NOANSWER" in prompt else act("search", query="x", answer="Hornussen"))

    with FakeOpenAI(handler) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        db = tmp_path / "run.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--dataset",
                    str(dataset),
                    "--agent",
                    "openai:agent-m",
                    "--user",
                    "openai:user-m",
                    "--judge",
                    "openai:judge-m",
                    "--config",
                    str(config),
                    "--db",
                    str(db),
                    "--run",
                    "native",
                    "--max-rounds",
                    "2",
                ]
            )
            == 0
        )
    outcomes = {s.task_id: (s.result.outcome, s.result.correct) for s in Store(db).sessions()}
    assert sorted(outcomes.values()) == sorted(
        [("answered", True), ("invalid_skip", False), ("no_answer", False), ("answered", True)]
    )
    out = tmp_path / "harness.csv"
    assert main(["export", "--db", str(db), "--format", "interactcomp-csv", "--out", str(out), "--include-hidden"]) == 0
    capsys.readouterr()
    histories = {
        r["question"].split(":")[0]: r["history"] for r in csv.DictReader(io.StringIO(out.read_text(encoding="utf-8")))
    }
    # agent.py:137-146: the final round's non-answer is kept as `answer` with its own params
    assert histories["NOANSWER"].endswith("[Round 2]\n    Action: answer ()\nObservation: No Answer")
    assert histories["PARAM"].endswith("    Action: answer (query: x, answer: Hornussen)\nObservation: Hornussen")
    imported = Store(tmp_path / "imported.db")
    import_harness(imported, out, dataset, max_rounds=2)
    [native] = score_sessions(load_sessions(Store(db)))["groups"]
    [again] = score_sessions(load_sessions(imported))["groups"]
    for group in (native, again):
        m = group["metrics"]
        assert (m["calibration_n"], m["calibration_missing"]) == (4, 0)
        assert m["calibration_error"] == pytest.approx(0.30)


def test_under_compat_reference_failed_calls_scored_as_answers_say_why_in_the_export_and_replay(tmp_path, capsys):
    """Issue 22: a grader or responder call that failed is scored as the reference harness
    scores it (wrong; "i don't know"), and the fault is on the step: the export carries it and
    the replay's step cards show it."""
    from rich.console import Console

    from clarify_tui.cli import main
    from clarify_tui.store import Store
    from clarify_tui.tui.widgets.step_card import render_step

    records = [{"id": 1, "question": "Which sport is it?", "answer": "Hornussen", "context": "A puck."}]
    dataset = tmp_path / "ic.jsonl"
    dataset.write_text(json.dumps(records[0]) + "\n", encoding="utf-8")
    world = World([act("ask", question="Is it a puck?"), ANSWER], fail="specialized Q&A agent")

    def handler(request):
        if "impartial grader" in request.prompt:
            return error(500, "grader exploded")
        return world(request)

    with FakeOpenAI(handler) as models:
        config = tmp_path / "clarify.toml"
        config.write_text(f'[openai]\nbase_url = "{models.base_url}"\nmax_retries = 0\n', encoding="utf-8")
        db = tmp_path / "run.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--dataset",
                    str(dataset),
                    "--agent",
                    "openai:agent-m",
                    "--user",
                    "openai:user-m",
                    "--judge",
                    "openai:judge-m",
                    "--config",
                    str(config),
                    "--db",
                    str(db),
                    "--compat",
                    "reference",
                ]
            )
            == 0
        )
    out = tmp_path / "e.jsonl"
    assert main(["export", "--db", str(db), "--format", "jsonl", "--out", str(out)]) == 0
    capsys.readouterr()
    exported = out.read_text(encoding="utf-8")
    assert "grader exploded" in exported and "the grader call failed, scored wrong" in exported
    assert "the responder call failed; the reference harness reads it as i don't know" in exported
    store = Store(db)
    [session] = store.sessions()
    assert session.status == "completed" and session.result.correct is False
    console = Console(width=200, record=True)
    for step in store.steps(session.id):
        console.print(render_step(step))
    shown = console.export_text()
    assert "wrong: the grader call failed, scored wrong as the reference harness does" in shown
    assert "⚠ the responder call failed; the reference harness reads it as i don't know" in shown
