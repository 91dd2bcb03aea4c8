"""Simulator replies outside their contract are retried, then error the session naming
the reply; they are never stored as the user's words (issue 12, point 4)."""

from __future__ import annotations

import pytest
from servers import FakeOpenAI, Script, chat, llm_config

from clarify_tui.backends import make_agent, make_judge
from clarify_tui.engine import build_episode
from clarify_tui.errors import BackendError
from clarify_tui.models import Answer
from clarify_tui.services import build_judge, build_user
from clarify_tui.store import Store
from tests.conftest import CTS, DISCO

REFUSAL = "Sorry, I can't help with that request."


@pytest.fixture
def server(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI(Script()) as srv:
        yield srv


def user(server, retries=2):
    return build_user("user-m", llm_config(server.base_url, user={"parse_retries": retries}))


async def test_a_refused_discobench_reply_is_retried_and_the_retry_counted(server):
    server.set_handler(Script(chat(REFUSAL), chat("I mean the one that won the GWB Bronze Prize.")))
    checkpoint = DISCO.discobench.checkpoints[0]
    reply = await user(server).reply_discobench(DISCO, checkpoint, "Which award?", True)
    assert reply.text == "I mean the one that won the GWB Bronze Prize."
    assert reply.usage.retries == 1 and REFUSAL[:20] in reply.usage.retry_cause
    second = server.chat_requests()[1]
    assert "could not be read" in second.json["messages"][-1]["content"]
    assert second.json["messages"][1]["content"] == REFUSAL


@pytest.mark.parametrize("call", ["discobench", "answer", "rewrite"])
async def test_a_simulator_that_keeps_refusing_errors_naming_the_reply(server, call):
    server.set_handler(lambda request: chat(REFUSAL))
    u = user(server, retries=1)
    with pytest.raises(BackendError, match="reply outside its contract after 2 attempts") as exc:
        if call == "discobench":
            await u.reply_discobench(DISCO, DISCO.discobench.checkpoints[0], "Which award?", True)
        elif call == "answer":
            await u.answer_clarification(CTS, "Which region?")
        else:
            await u.rewrite("tea prices", [("Which tea?", "matcha")])
    assert REFUSAL in str(exc.value)
    assert len(server.chat_requests()) == 2


async def test_an_empty_cts_rewrite_is_retried(server):
    server.set_handler(Script(chat("   \n"), chat("matcha prices 2023")))
    reply = await user(server).rewrite("tea prices", [("Which tea?", "matcha")])
    assert reply.text == "matcha prices 2023" and reply.usage.retries == 1


async def test_a_judge_refusal_is_never_a_verdict(server):
    server.set_handler(lambda request: chat(REFUSAL))
    judge = build_judge("judge-m", llm_config(server.base_url))
    with pytest.raises(BackendError, match="unreadable output after 3 attempts"):
        await judge.equivalent("q", "a", Answer(text="a"))


@pytest.mark.parametrize("task", [DISCO, CTS], ids=["discobench", "cts"])
async def test_in_an_episode_the_refusal_is_not_stored_and_the_session_errors(server, tmp_path, search, task):
    server.set_handler(lambda request: chat(REFUSAL))
    store = Store(tmp_path / "c.db")
    ep = build_episode(
        task,
        agent=make_agent("scripted:search-then-ask"),
        user=user(server, retries=1),
        search=search,
        judge=make_judge("rule"),
        sink=store,
    )
    session = await ep.run()
    assert session.status == "errored" and REFUSAL in session.error
    stored = store.steps(session.id)
    assert all(REFUSAL not in (s.action.text + " ".join(s.action.items) + s.observation.text) for s in stored)
    assert not any(s.actor == "user" for s in stored)
