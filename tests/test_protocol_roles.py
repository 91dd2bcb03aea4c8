"""The last protocol switches became a spec's low tier (protocols/roles.py): the scripted
and LLM agents' play, whether a task needs an answer, and the task loader's release
readers. Each test swaps one protocol's roles and watches the behaviour follow the roles,
not the protocol's name: a plug-in protocol supplies them the same way."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from clarify_tui.agent_view import AgentView
from clarify_tui.agents.llm import LLMAgent
from clarify_tui.agents.scripted import GENERIC_ASK, YESNO_FIRST_ASK, ScriptedAgent
from clarify_tui.llm.client import Completion
from clarify_tui.models import Action, ActionKind, Protocol, Task, Usage
from clarify_tui.protocols import registry
from clarify_tui.protocols.release import Release
from clarify_tui.protocols.roles import LLMPlay, ProtocolRoles
from clarify_tui.tasks.loading import collect
from clarify_tui.tasks.sourced import Sourced

ALL = (ActionKind.search, ActionKind.ask, ActionKind.answer)


def _swapped(monkeypatch, name: str, **fields) -> ProtocolRoles:
    roles = dataclasses.replace(registry.roles(name), **fields)
    real = registry.roles
    monkeypatch.setattr(registry, "roles", lambda n: roles if n == name else real(n))
    return roles


def _view(protocol: Protocol, allowed=ALL) -> AgentView:
    return AgentView(task_id="t", protocol=protocol, question="Which bridge is it?", allowed=list(allowed))


@pytest.mark.parametrize("name", registry.BUILTIN)
def test_a_builtin_specs_roles_are_the_low_tier_the_agents_read(name):
    assert registry.get(name).roles is registry.roles(name)


async def test_the_scripted_agents_play_follows_the_roles_not_the_name(monkeypatch):
    view = _view(Protocol.discobench)
    assert (await ScriptedAgent("ask-first").act(view)).text == GENERIC_ASK["en"]  # the hops play
    _swapped(monkeypatch, "discobench", scripted="is_it")
    assert (await ScriptedAgent("ask-first").act(view)).text == YESNO_FIRST_ASK["en"]

    seen: list[tuple[str, str]] = []

    def own(policy: str, view: AgentView) -> Action:
        seen.append((policy, view.question))
        return Action.answer("the protocol's own move")

    _swapped(monkeypatch, "discobench", scripted=own)
    assert (await ScriptedAgent("search-then-ask").act(view)).text == "the protocol's own move"
    assert seen == [("search-then-ask", "Which bridge is it?")]


class _Client:
    model = "m"

    def __init__(self) -> None:
        self.messages: list[list[dict]] = []

    async def complete(self, messages, purpose):
        self.messages.append(messages)
        return Completion(text="ANSWER: Tower Bridge", usage=Usage(calls=1))


async def test_the_llm_agent_plays_a_protocols_own_prompts_where_its_roles_bring_them(monkeypatch):
    client = _Client()
    view = _view(Protocol.discobench)
    await LLMAgent(client).act(view)  # type: ignore[arg-type]
    assert "own system" not in client.messages[-1][0]["content"]  # the generic ReAct prompts

    read: list[str] = []
    play = LLMPlay(
        prompts=lambda v: ("own system", f"own user: {v.question}"),
        read=lambda text, v: read.append(text) or Action.answer("read by the protocol"),
    )
    _swapped(monkeypatch, "discobench", llm=play)
    action = await LLMAgent(client).act(view)  # type: ignore[arg-type]
    assert client.messages[-1] == [
        {"role": "system", "content": "own system"},
        {"role": "user", "content": "own user: Which bridge is it?"},
    ]
    assert action.text == "read by the protocol" and read == ["ANSWER: Tower Bridge"]
    assert action.usage == Usage(calls=1)


def _disco_task(**changes) -> dict:
    from tests.conftest import DISCO

    return DISCO.model_dump(mode="json") | changes


def test_whether_a_task_needs_an_answer_is_the_roles_answer_required(monkeypatch):
    with pytest.raises(ValueError, match="needs an answer"):
        Task.model_validate(_disco_task(answer=None))
    _swapped(monkeypatch, "discobench", answer_required=False)
    assert Task.model_validate(_disco_task(answer=None)).answer is None


def test_the_loader_reads_a_release_its_roles_bring(monkeypatch, tmp_path: Path):
    """A protocol's own release format (records that are not Task records) is recognised
    by its roles' reader, named in its problems, and read by it."""
    release_file = tmp_path / "bridges.jsonl"
    release_file.write_text(json.dumps({"bridge_riddle": "Which bridge?", "solution": "Tower Bridge"}) + "\n")
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"unrelated": 1}) + "\n")

    def read(path, records, problems, canary):
        return [
            Sourced(
                task=Task.model_validate(_disco_task(id=f"b{line}", question=r["bridge_riddle"])),
                file=str(path),
                line=line,
            )
            for line, r in records
        ]

    found, problems = collect(None, release_file)
    assert not found and "cannot tell the dataset format" in str(problems.sorted())

    bridges = Release(title="Bridges", is_record=lambda r: "bridge_riddle" in r, read=read)
    _swapped(monkeypatch, "discobench", release=bridges)
    found, problems = collect(None, release_file)
    assert [s.task.question for s in found] == ["Which bridge?"] and not problems
    found, problems = collect("interactcomp", release_file)
    assert "this is the Bridges release, but benchmark 'interactcomp' was asked for" in str(problems.sorted())


async def test_a_reply_form_with_choices_holds_a_person_and_a_model_to_them():
    import asyncio

    from clarify_tui.errors import UsageError
    from clarify_tui.protocols.roles import ReplyForm
    from clarify_tui.users.human import HumanUser
    from tests.conftest import DISCO

    form = ReplyForm(choices=("warmer", "colder"), otherwise="no idea")
    assert [form.read_choice(t) for t in ("Colder.", "**warmer**", "I think so")] == ["colder", "warmer", "no idea"]
    requests, asked = [], asyncio.Event()
    user = HumanUser(on_request=lambda r: (requests.append(r), asked.set()))
    waiting = asyncio.ensure_future(user.reply(DISCO, "Am I close?", form))
    await asyncio.wait_for(asked.wait(), 5)
    assert requests[0].kind == "form" and requests[0].choices == ["warmer", "colder"]
    with pytest.raises(UsageError, match="one of: warmer, colder"):
        user.submit("yes")
    user.submit("colder")
    assert (await waiting).text == "colder"
