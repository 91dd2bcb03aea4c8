"""An own agent's invalid outputs are said, not only counted (issue 31, item 2): a `py:` agent
that returns None, an `http://` agent that sends garbage, an action the protocol forbids.
The run names the count and the first cause on stderr, in its summary, and
`run --fail-on-error [N|FRACTION]` turns too many of them (or errored sessions) into exit 1."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from clarify_tui.cli import main
from tests.servers import LoopbackServer, Reply

AGENTS = '''
from clarify_tui import Action

class NoneAgent:
    def act(self, view):
        return None

class Forbidden:
    async def act(self, view):
        return Action.clarify(["what do you mean?"])

class SomeNone:
    """None on ic-01 and ic-02, an answer elsewhere."""
    def act(self, view):
        return None if view.task_id in ("ic-01", "ic-02") else Action.answer("Hornussen", 50)
'''


@pytest.fixture
def agents(tmp_path) -> Path:
    path = tmp_path / "agents.py"
    path.write_text(AGENTS, encoding="utf-8")
    return path


def run(db: Path, benchmark: str, agent: str, *extra: str) -> list[str]:
    return ["run", "--benchmark", benchmark, "--agent", agent, "--db", str(db), *extra]


def said(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_an_agent_returning_none_is_named_with_its_count_and_first_cause(tmp_path, agents, capsys):
    db = tmp_path / "a.db"
    assert (
        main(run(db, "interactcomp", f"py:{agents}:NoneAgent", "--limit", "3", "--run", "a")) == 0
    )  # without the flag: as before
    err = said(capsys)
    # first: the earliest session's (episodes run concurrently, so which task that is may vary)
    assert re.search(
        r"agent: 3 invalid outputs in 3 session\(s\), 3 ended by them \(scored wrong\); first: "
        r"task ic-0[123]: agent returned NoneType None, not an Action",
        err,
    )
    assert main(run(db, "interactcomp", f"py:{agents}:NoneAgent", "--limit", "3", "--run", "b", "--fail-on-error")) == 1


def test_a_forbidden_action_is_named_in_every_protocol(tmp_path, agents, capsys):
    db = tmp_path / "f.db"
    assert main(run(db, "discobench", f"py:{agents}:Forbidden", "--limit", "2")) == 0
    err = said(capsys)
    assert re.search(
        r"agent: 6 invalid outputs in 2 session\(s\), 2 ended by them \(scored wrong\); first: "
        r"task dg-0[12]: 'clarify' is not allowed now\. Allowed: search, ask, answer\.",
        err,
    )


def test_garbage_from_an_http_agent_is_named(tmp_path, capsys):
    db = tmp_path / "h.db"
    with LoopbackServer(lambda _req: Reply(body="<html>oops</html>")) as server:
        assert main(run(db, "interactcomp", server.url + "/act", "--limit", "2", "--fail-on-error", "1")) == 1
    err = said(capsys)
    assert re.search(
        r"agent: 2 invalid outputs in 2 session\(s\), 2 ended by them \(scored wrong\); first: "
        r"task ic-0[12]: agent at http://\S+ returned a body that is not JSON \('<html>oops</html>'\)",
        err,
    )


@pytest.mark.parametrize(
    "flag, code",
    [
        ([], 0),
        (["--fail-on-error"], 1),
        (["--fail-on-error", "0"], 1),
        (["--fail-on-error", "1"], 1),
        (["--fail-on-error", "2"], 0),
        (["--fail-on-error", "0.5"], 0),
        (["--fail-on-error", "0.25"], 1),
    ],
)
def test_fail_on_error_counts_more_than_n_or_more_than_a_share(tmp_path, agents, capsys, flag, code):
    """2 of 4 sessions ended by the agent's None: more than 1, not more than 2, not more than half."""
    db = tmp_path / "n.db"
    assert main(run(db, "interactcomp", f"py:{agents}:SomeNone", "--limit", "4", *flag)) == code
    assert "agent: 2 invalid outputs in 2 session(s), 2 ended by them" in said(capsys)


def test_fail_on_error_counts_errored_sessions_too(tmp_path, capsys):
    db = tmp_path / "e.db"
    with LoopbackServer(lambda _req: Reply(status=500, body={"error": "down"})) as server:
        toml = tmp_path / "clarify.toml"
        toml.write_text("[openai]\ntimeout = 5\nmax_retries = 0\n", encoding="utf-8")
        common = run(
            db, "interactcomp", server.url + "/act", "--limit", "1", "--config", str(toml), "--task-attempts", "1"
        )
        assert main([*common, "--run", "a", "--fail-on-error", "1"]) == 0  # 1 errored: not more than 1
        assert main([*common, "--run", "b", "--fail-on-error"]) == 1
    assert "0 completed, 1 errored" in said(capsys)


def test_fail_on_error_refuses_what_is_neither_a_count_nor_a_share():
    from clarify_tui.agent_faults import tolerance

    assert (tolerance("3"), tolerance("0.1")) == (3.0, 0.1)
    for bad in ("1.5", "-1", "many"):
        with pytest.raises(argparse.ArgumentTypeError):
            tolerance(bad)
