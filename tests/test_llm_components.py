"""LLM agent, simulators and judges through the real openai SDK against a loopback server."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time

import pytest
from servers import FakeOpenAI, Reply, Script, chat, error, llm_config

from clarify_tui.agent_view import AgentView, ViewTurn
from clarify_tui.errors import BackendError
from clarify_tui.models import (
    Action,
    ActionKind,
    Answer,
    Checkpoint,
    CTSPart,
    InteractCompPart,
    Nugget,
    Observation,
    SearchHit,
    Task,
)
from clarify_tui.services import build_agent, build_judge, build_user

KEY = "sk-test-DO-NOT-LEAK-4242"
ALL = [ActionKind.search, ActionKind.ask, ActionKind.answer]

IC_TASK = Task(
    id="ic1",
    protocol="interactcomp",
    question="Which team striking sport has players hit a fast projectile that teammates intercept?",
    answer=Answer(text="Hornussen"),
    interactcomp=InteractCompPart(context="The struck object is a plastic puck. Defenders use wooden boards."),
)
CTS_TASK = Task(
    id="c1",
    protocol="cts",
    question="best universities for AI",
    cts=CTSPart(
        blurred_query="best universities for AI",
        fused_query="best universities for AI in Europe for master's study",
        nuggets=[
            Nugget(id="N1", text="ETH Zurich is a top AI university", weight=3),
            Nugget(id="N2", text="Oxford offers an AI MSc", weight=1),
        ],
    ),
)
CHECKPOINT = Checkpoint(
    type="ambi",
    ambiguity_type="entity",
    target="My Time at Sandrock",
    aliases=["Sandrock"],
    distractors=["My Time at Portia"],
    clue="It won the GWB Indie Game Awards Bronze Prize.",
    ambiguity_logic="several Pathea games won awards",
    description="Identify the award-winning Pathea game",
)


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with FakeOpenAI(Script()) as srv:
        yield srv
        assert srv.errors == []


def config(srv: FakeOpenAI, **sections):
    return llm_config(srv.base_url, prices={"agent-m": {"input_per_mtok": 2.0, "output_per_mtok": 8.0}}, **sections)


def ic_view(**kw) -> AgentView:
    base = dict(task_id="ic1", protocol="interactcomp", question=IC_TASK.question, allowed=ALL, max_rounds=10)
    return AgentView(**{**base, **kw})


async def test_interactcomp_agent_prompt_sampling_and_usage(server):
    server.set_handler(
        Script(
            chat(
                'Thinking.\n```json\n{"action": "ask", "params": {"question": "Is it a puck?"}}\n```',
                prompt_tokens=1000,
                completion_tokens=50,
            )
        )
    )
    agent = build_agent("agent-m", config(server))
    history = [
        ViewTurn(
            action=Action.search("striking sport"),
            observation=Observation(hits=[SearchHit(title="Baseball", url="https://b", content="bat and ball")]),
        ),
    ]
    action = await agent.act(ic_view(history=history, rounds_used=1))

    assert (action.kind, action.text) == (ActionKind.ask, "Is it a puck?")
    assert action.usage.tokens_in == 1000 and action.usage.tokens_out == 50
    assert action.usage.cost_usd == pytest.approx((1000 * 2 + 50 * 8) / 1e6)
    assert action.usage.model == "agent-m" and action.usage.latency_ms > 0
    assert "```json" in action.raw
    [request] = server.chat_requests()
    body = request.json
    assert (body["model"], body["temperature"], body["top_p"]) == ("agent-m", 0.6, 0.95)
    system, user = body["messages"]
    assert "You are an intelligent agent" in system["content"] and IC_TASK.question in system["content"]
    assert "Action: ask" in system["content"] and "Action: search" in system["content"]
    assert "[Round 1]" in user["content"] and "1. Baseball — bat and ball (src: https://b)" in user["content"]
    assert "Current round: 2/10" in user["content"]
    assert request.headers["authorization"] == f"Bearer {KEY}"


async def test_final_round_offers_only_answer(server):
    server.set_handler(Script(chat('{"action": "answer", "params": {"answer": "Hornussen", "confidence": 70}}')))
    agent = build_agent("agent-m", config(server))
    action = await agent.act(ic_view(allowed=[ActionKind.answer], rounds_used=9))
    assert (action.kind, action.text, action.confidence) == (ActionKind.answer, "Hornussen", 70.0)
    system, user = server.chat_requests()[0].json["messages"]
    assert "Action: answer" in system["content"] and "Action: search" not in system["content"]
    assert "output the final answer" in user["content"]


async def test_role_settings_override_paper_defaults(server):
    server.set_handler(Script(chat('{"action": "answer", "params": {"answer": "x", "confidence": 1}}')))
    cfg = config(
        server,
        agent={
            "temperature": 0.0,
            "max_tokens": 256,
            "max_tokens_param": "max_completion_tokens",
            "reasoning_effort": "high",
        },
    )
    await build_agent("agent-m", cfg).act(ic_view())
    body = server.chat_requests()[0].json
    assert (body["temperature"], body["top_p"], body["max_completion_tokens"], body["reasoning_effort"]) == (
        0.0,
        0.95,
        256,
        "high",
    )
    assert "max_tokens" not in body


@pytest.mark.parametrize(
    "model, reasoning",
    [
        ("o3-mini", True),
        ("o1", True),
        ("openai/o4-mini", True),
        ("gpt-5", True),
        ("gpt-5-mini", True),
        ("gpt-4o", False),
        ("qwen3-32b", False),
    ],
)
async def test_o_series_and_gpt5_get_no_top_p_and_max_completion_tokens(server, model, reasoning):
    """InteractComp reference core/engine/async_llm.py:212-221: for "o3" / "gpt-5" models
    top_p is left out and the token cap is sent as max_completion_tokens."""
    server.set_handler(Script(chat('{"action": "answer", "params": {"answer": "x", "confidence": 1}}')))
    cfg = config(server, agent={"max_tokens": 512})
    await build_agent(model, cfg).act(ic_view())
    body = server.chat_requests()[0].json
    assert body["model"] == model and body["temperature"] == 0.6
    if reasoning:
        assert "top_p" not in body and "max_tokens" not in body and body["max_completion_tokens"] == 512
    else:
        assert body["top_p"] == 0.95 and body["max_tokens"] == 512 and "max_completion_tokens" not in body


@pytest.mark.parametrize(
    "output",
    [
        "I believe the answer is baseball.",
        '{"action": "search", "params": {"query": "x"',
        '{"action": "lookup", "params": {"query": "x"}}',
    ],
)
async def test_unusable_output_becomes_invalid_with_feedback(server, output):
    server.set_handler(Script(chat(output)))
    action = await build_agent("agent-m", config(server)).act(ic_view())
    assert action.kind == ActionKind.invalid
    assert action.raw == output
    assert action.text == "Invalid action. Please choose from: answer, search, ask."  # the reference's order
    assert action.usage.tokens_in == 100


async def test_invalid_feedback_is_shown_as_last_observation(server):
    server.set_handler(Script(chat('{"action": "search", "params": {"query": "puck sport"}}')))
    bad = Action(kind=ActionKind.invalid, raw="prose", text="Invalid action. Please choose from: answer, search, ask.")
    view = ic_view(history=[ViewTurn(action=bad, observation=Observation(text=bad.text, error=bad.text))])
    await build_agent("agent-m", config(server)).act(view)
    user = server.chat_requests()[0].json["messages"][1]["content"]
    # reference agent.py:156-162: "Last action" is the last action in memory (none yet)
    assert "Last action: \nObservation: Invalid action. Please choose from: answer, search, ask.\n" in user
    assert "Current round: 1/" in user  # the invalid output used no round
    # agent.py:48-63: round 1 holds the question, with an empty action until one is taken
    assert "## Memory\n[Round 1]\nUser: " in user and "\n    Action:  ()\nObservation: \n" in user


async def test_discobench_neutral_prompt_has_no_ambiguity_hint_and_guided_does(server):
    reply = '{"action": "search", "params": {"query": "Pathea award"}}'
    server.set_handler(Script(chat(reply), chat(reply)))
    agent = build_agent("agent-m", config(server))
    base = dict(task_id="d1", protocol="discobench", question="Which Pathea game won an award?", allowed=ALL)
    await agent.act(AgentView(**base, prompting="neutral"))
    await agent.act(AgentView(**base, prompting="guided"))
    neutral, guided = (r.json["messages"][0]["content"] for r in server.chat_requests())
    assert "ambigu" not in neutral.lower() and "ambigu" in guided.lower()
    assert "Action: ask" in neutral and "yes, no, or i don't know" not in neutral
    assert "temperature" not in server.chat_requests()[0].json  # DiscoBench states none: not sent


async def test_cts_clarifier_returns_k_questions_then_retries_after_invalid(server):
    server.set_handler(Script(chat('["Which region?"]'), chat('Sure:\n["Which region?", "Which degree level?"]')))
    agent = build_agent("agent-m", config(server))
    view = AgentView(
        task_id="c1",
        protocol="cts",
        question="best universities for AI",
        phase="clarify",
        allowed=[ActionKind.clarify],
        k=2,
    )
    first = await agent.act(view)
    assert first.kind == ActionKind.invalid and "exactly 2" in first.text
    view.history.append(ViewTurn(action=first, observation=Observation(text=first.text)))
    second = await agent.act(view)
    assert second.kind == ActionKind.clarify and second.items == ["Which region?", "Which degree level?"]
    requests = server.chat_requests()
    assert "BLURRED_QUERY: best universities for AI" in requests[0].prompt and "K: 2" in requests[0].prompt
    assert requests[0].json["temperature"] == 0.0
    assert [m["role"] for m in requests[1].json["messages"]] == ["user", "assistant", "user"]


async def test_cts_search_agent_accepts_visit_and_answer_tag(server):
    server.set_handler(
        Script(
            chat('{"action": "visit", "params": {"url": "https://eth"}}'),
            chat("Done.\n<answer>ETH Zurich and Oxford.</answer>"),
        )
    )
    agent = build_agent("agent-m", config(server))
    view = AgentView(
        task_id="c1",
        protocol="cts",
        question="best universities for AI in Europe",
        phase="search",
        allowed=[ActionKind.search, ActionKind.visit, ActionKind.answer],
    )
    assert (await agent.act(view)).kind == ActionKind.visit
    answer = await agent.act(view)
    assert (answer.kind, answer.text) == (ActionKind.answer, "ETH Zurich and Oxford.")
    assert "Action: visit" in server.chat_requests()[0].json["messages"][0]["content"]


async def test_interactcomp_responder_reads_reasoned_reply(server):
    server.set_handler(Script(chat("The context mentions a puck but nothing about teams.\nI don't know.")))
    reply = await build_user("user-m", config(server)).reply_interactcomp(IC_TASK, "Is it played in teams?")
    assert reply.text == "i don't know"
    body = server.chat_requests()[0].json
    assert body["temperature"] == 1.0
    assert IC_TASK.interactcomp.context in body["messages"][0]["content"]
    assert reply.usage.model == "user-m"


async def test_discobench_responder_sees_the_clue_only_for_a_targeted_ask(server):
    server.set_handler(Script(chat("It is the one that won the GWB Bronze Prize."), chat("I can't tell you more.")))
    user = build_user("user-m", config(server))
    task = IC_TASK.model_copy(update={"question": "Which Pathea game won an award?"})
    right = await user.reply_discobench(task, CHECKPOINT, "Which award do you mean?", True)
    wrong = await user.reply_discobench(task, CHECKPOINT, "What colour is the logo?", False)
    assert right.text.startswith("It is the one") and wrong.text == "I can't tell you more."
    first, second = server.chat_requests()
    assert CHECKPOINT.clue in first.prompt
    assert CHECKPOINT.clue not in second.prompt and CHECKPOINT.target not in second.prompt


async def test_cts_answerer_and_rewriter_see_only_what_they_may(server):
    server.set_handler(Script(chat("Europe"), chat("Unknown."), chat("best universities for AI in Europe")))
    user = build_user("user-m", config(server))
    assert (await user.answer_clarification(CTS_TASK, "Which region?")).text == "Europe"
    assert (await user.answer_clarification(CTS_TASK, "Which year?")).text == "unknown"
    rewrite = await user.rewrite("best universities for AI", [("Which region?", "Europe"), ("Which year?", "unknown")])
    assert rewrite.text == "best universities for AI in Europe"
    answerer, _, rewriter = server.chat_requests()
    assert CTS_TASK.cts.fused_query in answerer.prompt and answerer.json["temperature"] == 0.0
    assert CTS_TASK.cts.fused_query not in rewriter.prompt
    assert '"user_answer": "Europe"' in rewriter.prompt


async def test_grader_retries_unreadable_output_and_sums_usage(server):
    server.set_handler(Script(chat("It depends on the spelling."), chat("no")))
    verdict = await build_judge("judge-m", config(server)).equivalent(IC_TASK.question, "Baseball", IC_TASK.answer)
    assert verdict.correct is False
    assert verdict.usage.tokens_in == 200 and verdict.usage.model == "judge-m"
    first, second = server.chat_requests()
    assert first.json["temperature"] == 0.0 and "impartial grader" in first.prompt
    assert "could not be read" in second.json["messages"][-1]["content"]


async def test_nugget_judge_is_strict_and_gives_up_with_backend_error(server):
    missing = json.dumps({"results": [{"id": "N1", "coverage": "full"}]})
    good = json.dumps({"results": [{"id": "N2", "coverage": "Partial"}, {"id": "N1", "coverage": "full"}]})
    server.set_handler(Script(chat(missing), chat(good)))
    judge = build_judge("judge-m", config(server))
    judgement = await judge.nuggets("ETH Zurich leads; Oxford has an AI course.", CTS_TASK.cts.nuggets)
    assert judgement.coverage == ["full", "partial"]
    assert "no result for nugget ids N2" in server.chat_requests()[1].prompt

    server.set_handler(Script(chat("full, partial"), chat('{"results": [}'), chat("none")))
    with pytest.raises(BackendError, match="unreadable output after 3 attempts"):
        await judge.nuggets("anything", CTS_TASK.cts.nuggets)


async def test_checkpoint_and_ask_judges(server):
    server.set_handler(Script(chat('{"verdict": "distractor"}'), chat('```json\n{"targets": true}\n```')))
    judge = build_judge("judge-m", config(server))
    assert (await judge.checkpoint(CHECKPOINT, "answer", "My Time at Portia")).verdict == "distractor"
    assert (await judge.ask_targets(CHECKPOINT, "Which award do you mean?")).targets is True
    checkpoint_prompt, ask_prompt = (r.prompt for r in server.chat_requests())
    assert "My Time at Sandrock; Sandrock" in checkpoint_prompt and "My Time at Portia" in checkpoint_prompt
    assert CHECKPOINT.ambiguity_logic in ask_prompt


# ---- failures -------------------------------------------------------------------------


async def test_429_then_success(server):
    server.set_handler(Script(error(429, "slow down"), chat('{"action": "search", "params": {"query": "x"}}')))
    action = await build_agent("agent-m", config(server)).act(ic_view())
    assert action.kind == ActionKind.search
    assert len(server.chat_requests()) == 2


async def test_500_until_retries_run_out(server):
    server.set_handler(lambda request: error(500, "upstream exploded"))
    with pytest.raises(BackendError, match=r"HTTP 500.*after 2 retries"):
        await build_agent("agent-m", config(server)).act(ic_view())
    assert len(server.chat_requests()) == 3


async def test_bad_key_fails_at_once(server):
    server.set_handler(lambda request: error(401, "bad key"))
    with pytest.raises(BackendError, match="HTTP 401"):
        await build_user("user-m", config(server)).reply_interactcomp(IC_TASK, "Is it Swiss?")
    assert len(server.chat_requests()) == 1


async def test_slow_server_hits_the_timeout(server):
    server.set_handler(lambda request: Reply(body={}, delay=2.0))
    cfg = config(server, judge={"timeout": 0.2, "max_retries": 1})
    started = time.perf_counter()
    with pytest.raises(BackendError, match="timed out after 0.2s"):
        await build_judge("judge-m", cfg).equivalent("q", "a", Answer(text="a"))
    assert time.perf_counter() - started < 1.9  # gave up well before the reply would come
    assert len(server.chat_requests()) == 2


async def test_concurrency_limit_per_endpoint_is_shared_by_roles(server):
    in_flight, peak, lock = [0], [0], threading.Lock()

    def slow(request):
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.15)
        with lock:
            in_flight[0] -= 1
        return chat("yes")

    server.set_handler(slow)
    cfg = config(server, user={"max_concurrency": 2})
    user, judge = build_user("user-m", cfg), build_judge("judge-m", cfg)
    calls = [user.reply_interactcomp(IC_TASK, "Is it Swiss?") for _ in range(3)]
    calls += [judge.equivalent("q", "a", Answer(text="a")) for _ in range(3)]
    await asyncio.gather(*calls)
    assert peak[0] == 2


async def test_the_key_never_reaches_logs_errors_or_reprs(server, caplog):
    caplog.set_level(logging.DEBUG)
    server.set_handler(Script(chat("yes"), *[error(500, "boom")] * 3))
    cfg = config(server)
    user = build_user("user-m", cfg)
    await user.reply_interactcomp(IC_TASK, "Is it Swiss?")
    with pytest.raises(BackendError) as failure:
        await user.reply_interactcomp(IC_TASK, "Is it Swiss?")
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"  # it was used…
    for text in (caplog.text, str(failure.value), repr(user.client), cfg.model_dump_json()):
        assert KEY not in text  # …and shown nowhere
