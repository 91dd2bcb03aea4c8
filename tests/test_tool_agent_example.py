"""examples/tool_agent.py, the native tool-calling agent, against a loopback
OpenAI-compatible server that answers with tool calls: it plays InteractComp and CTS's
clarify phase through `run`, is offered only the tools the protocol allows, and a dead
server is infrastructure (errored), not a wrong answer."""

from __future__ import annotations

import json

from clarify_tui.cli import main
from clarify_tui.store import Store
from tests.clitools import ROOT
from tests.servers import FakeOpenAI, Reply, error

TOOL_AGENT = f"py:{ROOT / 'examples' / 'tool_agent.py'}:ToolAgent"


def tool_call(name: str, **args) -> Reply:
    return Reply(
        body={
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "fake-tools",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {"id": "t1", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 7, "total_tokens": 57},
        }
    )


def policy(request) -> Reply:
    """search, then ask, then answer: read off the conversation the agent rebuilt."""
    tools = [t["function"]["name"] for t in request.json["tools"]]
    done = [m["tool_calls"][0]["function"]["name"] for m in request.json["messages"] if m.get("tool_calls")]
    if "clarify" in tools:
        return tool_call("clarify", questions=["Which region do you mean?"])
    if "search" in tools and "search" not in done:
        return tool_call("search", query=request.json["messages"][1]["content"])
    if "ask" in tools and "ask" not in done:
        return tool_call("ask", question="Is it the famous one?")
    return tool_call("answer", answer="Tokyo Tower", confidence=70)


def test_the_tool_agent_plays_interactcomp_and_cts_with_tool_calls(tmp_path, monkeypatch, capsys):
    db = tmp_path / "t.db"
    with FakeOpenAI(policy) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    TOOL_AGENT,
                    "--agent-arg",
                    "model=fake-tools",
                    "--agent-arg",
                    "seed=7",
                    "--db",
                    str(db),
                    "--run",
                    "ic",
                    "--limit",
                    "2",
                ]
            )
            == 0
        )
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "cts",
                    "--agent",
                    TOOL_AGENT,
                    "--deep-search",
                    "scripted:search-then-ask",
                    "--db",
                    str(db),
                    "--run",
                    "cts",
                    "--limit",
                    "2",
                ]
            )
            == 0
        )
        requests = server.chat_requests()
    assert "2 completed, 0 errored" in capsys.readouterr().err
    store = Store(db)
    [first, *_] = store.sessions(runs=["ic"])
    steps = [s for s in store.steps(first.id) if s.actor == "agent"]
    assert [s.action.kind.value for s in steps] == ["search", "ask", "answer"]
    assert steps[-1].action.confidence == 70 and steps[0].tokens_in == 50 and steps[0].model == "fake-tools"
    assert all(
        r.json["tool_choice"] == "required" and r.json.get("seed") == 7 for r in requests if r.model == "fake-tools"
    )
    # the last round of InteractComp offers only answer; CTS's clarify phase only clarify
    assert any([t["function"]["name"] for t in r.json["tools"]] == ["clarify"] for r in requests)
    clarify = [s for x in store.sessions(runs=["cts"]) for s in store.steps(x.id) if s.action.kind.value == "clarify"]
    assert clarify and clarify[0].action.items == ["Which region do you mean?"]


def test_a_dead_model_server_is_infrastructure_not_a_wrong_answer(tmp_path, monkeypatch, capsys):
    db = tmp_path / "d.db"
    with FakeOpenAI(lambda _r: error(401, "bad key")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    TOOL_AGENT,
                    "--db",
                    str(db),
                    "--run",
                    "d",
                    "--limit",
                    "1",
                    "--task-attempts",
                    "1",
                ]
            )
            == 1
        )  # some session errored: exit 1 (docs/runs.md, exit codes)
    assert "0 completed, 1 errored" in capsys.readouterr().err
    assert "AuthenticationError" in Store(db).sessions(runs=["d"])[0].error


def test_seed_reaches_a_py_agent_that_takes_one_and_every_model_call(tmp_path, monkeypatch, capsys):
    import asyncio

    from clarify_tui.services import chat_client
    from tests.servers import chat, llm_config

    db = tmp_path / "s.db"
    with FakeOpenAI(policy) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    TOOL_AGENT,
                    "--seed",
                    "11",
                    "--db",
                    str(db),
                    "--run",
                    "s",
                    "--limit",
                    "1",
                ]
            )
            == 0
        )
        assert {r.json.get("seed") for r in server.chat_requests()} == {11}
    assert json.loads(Store(db).run_row("s")["config"])["seed"] == 11
    with FakeOpenAI(lambda _r: chat("yes")) as server:
        client = chat_client("judge", "fake", llm_config(server.base_url, seed=5))
        asyncio.run(client.complete([{"role": "user", "content": "same?"}], "grader"))
        assert server.chat_requests()[0].json["seed"] == 5
