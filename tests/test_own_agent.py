"""Bring your own agent (issue 25): the public contract, py: and http:// specs for every
role, bad specs as one line, an agent's own failure versus infrastructure, the file hash
on resume, --agent-arg, entry points, and the example HTTP agent server."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from clarify_tui.cli import main
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks
from tests.clitools import ROOT, cli_env, run_cli
from tests.servers import LoopbackServer, Reply, Script

DOCS_MD = ROOT / "docs" / "agents.md"
CTS_FIXED = ["--deep-search", "scripted:search-then-ask"]  # the paper keeps CTS deep search fixed


def docs_agent(tmp_path: Path) -> Path:
    """The agent exactly as docs/agents.md prints it (a researcher's copy of the docs)."""
    text = DOCS_MD.read_text(encoding="utf-8")
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if b.startswith("# my_agent.py"))
    path = tmp_path / "my_agent.py"
    path.write_text(block, encoding="utf-8")
    return path


def run_args(benchmark: str, agent: str, db: Path, name: str, *extra: str) -> list[str]:
    args = ["run", "--benchmark", benchmark, "--agent", agent, "--db", str(db), "--run", name, *extra]
    return args + (CTS_FIXED if benchmark == "cts" and "--deep-search" not in extra else [])


# ---- the contract ----------------------------------------------------------------------


def test_the_public_names_import_without_textual_and_lazily():
    code = (
        "import sys, clarify_tui; light = 'pydantic' not in sys.modules; "
        "from clarify_tui import Action, AgentView, AgentUnavailable, ActionKind, SearchHit, ViewTurn; "
        "a = Action.answer('x', 80); assert Action.clarify(['a', 'b']).items == ['a', 'b']; "
        "print(light, 'textual' in sys.modules, a.kind.value, clarify_tui.__version__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=cli_env(), check=True)
    assert out.stdout.split() == ["True", "False", "answer", "0.1.0"]


@pytest.mark.parametrize("name", ["agent_view", "action"])
def test_committed_agent_schemas_match_the_models_and_ship_in_the_wheel(name):
    from clarify_tui.agent_schema import schema_text

    assert (ROOT / "docs" / f"{name}.schema.json").read_text(encoding="utf-8") == schema_text(name), (
        f"docs/{name}.schema.json is stale: run python -m clarify_tui.agent_schema"
    )
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert f'"docs/{name}.schema.json" = "clarify_tui/schemas/{name}.schema.json"' in pyproject


def test_the_view_schema_lists_what_the_agent_may_use_and_no_hidden_field():
    from clarify_tui.agent_schema import schema

    fields = set(schema("agent_view")["properties"])
    assert {"allowed", "phase", "k", "rounds_left", "history", "question"} <= fields
    assert not fields & {"answer", "nuggets", "fused_query", "clue", "checkpoints_detail", "target", "gold"}


# ---- the docs' agent plays every protocol ------------------------------------------------


@pytest.mark.parametrize("benchmark", ["interactcomp", "discobench", "cts"])
def test_the_agent_from_the_docs_plays_each_protocol_in_run(tmp_path, benchmark, capsys):
    agent = docs_agent(tmp_path)
    db = tmp_path / "r.db"
    assert main(run_args(benchmark, f"py:{agent}:MyAgent", db, "mine", "--limit", "3")) == 0
    err = capsys.readouterr().err
    assert "3 completed, 0 errored" in err and f"saved to {db}" in err
    store = Store(db)
    sessions = store.sessions(runs=["mine"])
    assert len(sessions) == 3 and {s.status for s in sessions} == {"completed"}
    assert {s.agent for s in sessions} == {f"py:{agent}:MyAgent"}
    kinds = {s.action.kind.value for x in sessions for s in store.steps(x.id) if s.actor == "agent"}
    assert kinds >= ({"clarify"} if benchmark == "cts" else {"search", "ask", "answer"})
    config = json.loads(store.run_row("mine")["config"])
    assert config["agent_sha256"] == __import__("hashlib").sha256(agent.read_bytes()).hexdigest()


def test_agent_args_from_the_flag_and_from_clarify_toml(tmp_path, capsys, monkeypatch):
    agent = docs_agent(tmp_path)
    db = tmp_path / "r.db"
    asks = lambda run: [
        s.action.kind.value
        for x in Store(db).sessions(runs=[run])  # noqa: E731
        for s in Store(db).steps(x.id)
    ].count("ask")
    assert (
        main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "zero", "--limit", "2", "--agent-arg", "asks=0")) == 0
    )
    assert asks("zero") == 0
    monkeypatch.chdir(tmp_path)
    (tmp_path / "clarify.toml").write_text("[agent.args]\nasks = 3\n", encoding="utf-8")
    assert main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "three", "--limit", "2")) == 0
    assert asks("three") > 2  # more than one ask a task: the table's argument reached the class
    assert (
        main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "flag", "--limit", "2", "--agent-arg", "asks=0")) == 0
    )
    assert asks("flag") == 0  # the flag wins over the table


# ---- bad specs: one line ------------------------------------------------------------------


def test_a_bad_spec_is_one_line_naming_what_is_wrong_and_writes_nothing(tmp_path, capsys):
    agent = docs_agent(tmp_path)
    (tmp_path / "broken.py").write_text("import no_such_module_xyz\n", encoding="utf-8")
    (tmp_path / "notagent.py").write_text("class Thing:\n    pass\n", encoding="utf-8")
    db = tmp_path / "bad.db"
    cases = {
        f"py:{tmp_path}/missing.py:MyAgent": "no such file",
        f"py:{agent}:Nope": "has no 'Nope' (it has: MyAgent)",
        f"py:{tmp_path}/broken.py:A": "ModuleNotFoundError: No module named 'no_such_module_xyz' (broken.py:1)",
        f"py:{tmp_path}/notagent.py:Thing": "Thing is not an agent (no act method)",
        "py:no_such_package_xyz.mod:A": "no module named 'no_such_package_xyz.mod'",
        "py:not-installed-xyz": "no entry point 'not-installed-xyz'",
    }
    for spec, expected in cases.items():
        assert main(run_args("interactcomp", spec, db, "x")) == 2
        err = capsys.readouterr().err
        assert expected in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "x", "--agent-arg", "bogus=1")) == 2
    assert "unexpected keyword argument 'bogus'" in capsys.readouterr().err
    assert not db.exists()


# ---- failures: the agent's own or infrastructure -------------------------------------------

RAISING = """
from clarify_tui import Action, AgentUnavailable

class Buggy:
    def act(self, view):  # a plain def is accepted too
        if view.history:
            raise KeyError("my bug")
        return Action.search(view.question)

class Down:
    async def act(self, view):
        raise AgentUnavailable("my model server is down")

class Junk:
    async def act(self, view):
        return 42
"""


def test_an_agent_that_raises_is_scored_wrong_with_its_message_not_errored(tmp_path, capsys):
    (tmp_path / "agents.py").write_text(RAISING, encoding="utf-8")
    db = tmp_path / "f.db"
    for benchmark in ("interactcomp", "discobench", "cts"):
        extra = ["--deep-search", f"py:{tmp_path}/agents.py:Buggy"] if benchmark == "cts" else []
        assert (
            main(
                run_args(benchmark, f"py:{tmp_path}/agents.py:Buggy", db, f"buggy-{benchmark}", "--limit", "2", *extra)
            )
            == 0
        )
        err = capsys.readouterr().err
        assert "2 completed, 0 errored" in err and "raised on task" in err and "traceback in" in err
        store = Store(db)
        for s in store.sessions(runs=[f"buggy-{benchmark}"]):
            assert s.status == "completed" and "agent raised KeyError: 'my bug'" in s.error
            if benchmark == "cts":
                assert s.result.restore_score == 0.0
            else:
                assert s.result.correct is False
            last = [x for x in store.steps(s.id) if x.actor == "agent"][-1]
            assert last.action.kind.value == "invalid" and "my bug" in last.error
    assert 'raise KeyError("my bug")' in (tmp_path / "clarify-tui.log").read_text()  # where to debug it
    report = json.loads(run_score(db, "buggy-interactcomp"))
    assert report["groups"][0]["metrics"]["accuracy"] == 0.0 and report["groups"][0]["metrics"]["errored"] == 0
    assert main(run_args("interactcomp", f"py:{tmp_path}/agents.py:Junk", db, "junk", "--limit", "1")) == 0
    assert "returned int 42, not an Action" in Store(db).sessions(runs=["junk"])[0].error


def run_score(db: Path, run: str) -> str:
    code, out, err = run_cli("score", "--db", str(db), "--run", run, "--format", "json")
    assert code == 0, err
    return out


def test_agent_unavailable_is_infrastructure_errored_and_counted_apart(tmp_path, capsys):
    (tmp_path / "agents.py").write_text(RAISING, encoding="utf-8")
    db = tmp_path / "f.db"
    assert (
        main(run_args("discobench", f"py:{tmp_path}/agents.py:Down", db, "down", "--limit", "2")) == 1
    )  # some session errored: exit 1 (docs/runs.md, exit codes)
    assert "0 completed, 2 errored" in capsys.readouterr().err
    sessions = Store(db).sessions(runs=["down"])
    assert {s.status for s in sessions} == {"errored"} and "my model server is down" in sessions[0].error


# ---- resume refuses a changed file ---------------------------------------------------------


def test_resume_refuses_a_changed_agent_file(tmp_path, capsys):
    agent = docs_agent(tmp_path)
    db = tmp_path / "h.db"
    assert main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "h", "--limit", "2")) == 0
    assert main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "h", "--limit", "3", "--resume")) == 0
    capsys.readouterr()
    agent.write_text(agent.read_text() + "\n# tuned\n", encoding="utf-8")
    assert main(run_args("interactcomp", f"py:{agent}:MyAgent", db, "h", "--limit", "4", "--resume")) == 2
    err = capsys.readouterr().err
    assert "the agent's file changed since the run started" in err and "refuses a changed file" in err
    assert len(Store(db).sessions(runs=["h"])) == 3


# ---- entry points and a module spec --------------------------------------------------------


def test_an_installed_entry_point_and_a_module_spec_load_and_backends_lists_it(tmp_path):
    pkg = tmp_path / "site" / "labagents"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(docs_agent(tmp_path).read_text(), encoding="utf-8")
    dist = tmp_path / "site" / "labagents-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: labagents\nVersion: 0.1\n", encoding="utf-8")
    (dist / "entry_points.txt").write_text("[clarify_tui.agents]\nlab-agent = labagents:MyAgent\n", encoding="utf-8")
    env = cli_env(PYTHONPATH=f"{ROOT}:{tmp_path / 'site'}")
    code, out, err = run_cli("backends", env=env)
    assert code == 0 and "py:lab-agent" in out and "labagents:MyAgent" in out, err
    db = tmp_path / "e.db"
    for spec in ("py:lab-agent", "py:labagents:MyAgent"):
        code, out, err = run_cli(
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            spec,
            "--limit",
            "1",
            "--db",
            str(db),
            "--run",
            spec,
            env=env,
        )
        assert code == 0 and "1 completed, 0 errored" in err, err


# ---- the example HTTP agent server ---------------------------------------------------------


def load_example(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class RecordingAgentServer:
    """The example server in a thread, recording every AgentView it is sent."""

    def __init__(self) -> None:
        example = load_example("http_agent_server")
        self.views: list[dict] = []
        views = self.views

        class Recording(example.AgentHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length)
                views.append(json.loads(body))
                self.rfile = __import__("io").BytesIO(body)
                self.headers.replace_header("Content-Length", str(len(body)))
                super().do_POST()

        self.server = example.make_server()
        self.server.RequestHandlerClass = Recording
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/act"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


@pytest.mark.parametrize("benchmark", ["interactcomp", "discobench", "cts"])
def test_the_http_agent_plays_each_protocol_and_never_sees_a_hidden_field(tmp_path, benchmark, capsys):
    db = tmp_path / "w.db"
    with RecordingAgentServer() as server:
        extra = ["--deep-search", server.url] if benchmark == "cts" else []
        assert main(run_args(benchmark, server.url, db, "web", *extra)) == 0
    err = capsys.readouterr().err
    tasks = {t.id: t for t in load_tasks(benchmark, "demo")}
    assert f"{len(tasks)} completed, 0 errored" in err
    assert server.views and {v["protocol"] for v in server.views} == {benchmark}
    phases = {v["phase"] for v in server.views}
    assert phases == ({"clarify", "search"} if benchmark == "cts" else {"act"})
    for view in server.views:
        text = json.dumps(view, ensure_ascii=False).casefold()
        leaked = [
            h
            for h in tasks[view["task_id"]].hidden_strings()
            if h.casefold() in text and h.casefold() not in _revealed(view)
        ]
        assert not leaked, f"hidden strings sent to the agent: {leaked}"
        assert "rounds_left" in view and view["rounds_left"] == view["max_rounds"] - view["rounds_used"]
        for turn in view["history"]:  # no verdict reaches the agent mid-task (DiscoBench: silent cascading)
            assert not VERDICT_KEYS & set(turn["observation"]["data"]), turn["observation"]


VERDICT_KEYS = {"correct", "status", "asked_right", "released_clue", "coverage", "restore_score", "verdict"}


def _revealed(view: dict) -> str:
    """What the user or a search result legitimately told the agent (clues after a right
    ask, documents that mention the answer): not a leak of the task's hidden fields."""
    parts = [view["question"]]
    for turn in view["history"]:
        obs = turn["observation"]
        parts += [obs["text"], *obs["items"], *(h["title"] + " " + h["content"] for h in obs["hits"])]
    return "\n".join(parts).casefold()


def test_http_agent_retries_transient_faults_and_errors_when_they_run_out(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("clarify_tui.plugins._backoff", lambda attempt: 0.01)  # retried the same, sooner

    def answer(_req):
        return Reply(body={"kind": "answer", "text": "Tokyo Tower", "confidence": 70})

    toml = tmp_path / "clarify.toml"
    toml.write_text("[openai]\ntimeout = 5\nmax_retries = 2\n", encoding="utf-8")
    db = tmp_path / "t.db"
    with LoopbackServer(Script(Reply(status=503, body={"error": "busy"}), answer)) as server:
        args = run_args(
            "interactcomp",
            server.url + "/act",
            db,
            "flaky",
            "--limit",
            "1",
            "--config",
            str(toml),
            "--mode",
            "answer_only",
        )
        assert main(args) == 0
    assert "1 completed, 0 errored" in capsys.readouterr().err
    [session] = Store(db).sessions(runs=["flaky"])
    [step] = [s for s in Store(db).steps(session.id) if s.actor == "agent"]
    assert step.retries == 1 and "HTTP 503" in step.retry_cause
    with LoopbackServer(lambda _req: Reply(status=500, body={"error": "down"})) as server:
        args = run_args(
            "interactcomp",
            server.url + "/act",
            db,
            "down",
            "--limit",
            "1",
            "--config",
            str(toml),
            "--mode",
            "answer_only",
            "--task-attempts",
            "1",
        )
        assert main(args) == 1  # some session errored: exit 1 (docs/runs.md, exit codes)
    assert "0 completed, 1 errored" in capsys.readouterr().err
    with LoopbackServer(lambda _req: Reply(body={"kind": "shout"})) as server:
        args = run_args("interactcomp", server.url + "/act", db, "junk", "--limit", "1", "--config", str(toml))
        assert main(args) == 0
    [session] = Store(db).sessions(runs=["junk"])
    assert session.status == "completed" and "returned an invalid Action (kind" in session.error


# ---- users and judges of one's own ---------------------------------------------------------

USER_AND_JUDGE = """
class AlwaysYes:
    def reply_interactcomp(self, task, question):
        return "yes"

class Lenient:
    async def equivalent(self, question, answer, gold, benchmark="interactcomp"):
        return {"correct": True, "reason": "my judge says so"}
    def checkpoint(self, checkpoint, kind, text):
        return {"verdict": "none"}
    def ask_targets(self, checkpoint, question):
        return {"targets": False}
    def nuggets(self, answer, nuggets, query=""):
        return {"coverage": ["none"] * len(nuggets)}
"""


def test_a_users_and_judges_own_py_and_http_backends(tmp_path, capsys):
    (tmp_path / "roles.py").write_text(USER_AND_JUDGE, encoding="utf-8")
    db = tmp_path / "u.db"
    assert (
        main(
            run_args(
                "interactcomp",
                "scripted:ask-first",
                db,
                "mine",
                "--limit",
                "2",
                "--user",
                f"py:{tmp_path}/roles.py:AlwaysYes",
                "--judge",
                f"py:{tmp_path}/roles.py:Lenient",
            )
        )
        == 0
    )
    assert "accuracy 1.00 (2/2)" in capsys.readouterr().err
    store = Store(db)
    replies = [s.action.text for x in store.sessions(runs=["mine"]) for s in store.steps(x.id) if s.actor == "user"]
    assert replies and set(replies) == {"yes"}

    def user(req):
        assert req.json["method"] == "reply_interactcomp" and "question" in req.json["args"]
        return Reply(body={"text": "no"})

    with LoopbackServer(user) as server:
        assert (
            main(
                run_args(
                    "interactcomp", "scripted:ask-first", db, "web", "--limit", "1", "--user", server.url + "/user"
                )
            )
            == 0
        )
    replies = [s.action.text for x in store.sessions(runs=["web"]) for s in store.steps(x.id) if s.actor == "user"]
    assert replies and set(replies) == {"no"}


def test_play_and_demo_take_an_own_agent_and_refuse_a_bad_one_before_the_screen(tmp_path, capsys, monkeypatch):
    agent = docs_agent(tmp_path)
    assert main(["play", "--db", str(tmp_path / "p.db"), "--agent", f"py:{agent}:Nope"]) == 2
    err = capsys.readouterr().err
    assert "has no 'Nope' (it has: MyAgent)" in err and len(err.strip().splitlines()) == 1
    assert main(["demo", "ask-vs-guess", "--db", str(tmp_path / "p.db"), "--guess", f"py:{agent}:Nope"]) == 2
    assert "has no 'Nope'" in capsys.readouterr().err
    # play --agent-arg reaches the class (a bad argument is refused by it, before the screen)
    monkeypatch.setenv("CLARIFY_AGENT_ARGS", "{}")  # play writes it: the fixture restores it afterwards
    assert (
        main(["play", "--db", str(tmp_path / "p.db"), "--agent", f"py:{agent}:MyAgent", "--agent-arg", "bogus=1"]) == 2
    )
    assert "unexpected keyword argument 'bogus'" in capsys.readouterr().err
    (tmp_path / "notagent.py").write_text("class Thing:\n    pass\n", encoding="utf-8")
    monkeypatch.setenv("CLARIFY_AGENT_ARGS", "{}")
    assert main(["play", "--db", str(tmp_path / "p.db"), "--agent", f"py:{tmp_path}/notagent.py:Thing"]) == 2
    assert "Thing is not an agent (no act method)" in capsys.readouterr().err
    from clarify_tui.backends import make_agent

    monkeypatch.setenv("CLARIFY_AGENT_ARGS", "{}")
    assert make_agent(f"py:{agent}:MyAgent").obj.asks == 1
    monkeypatch.setenv("CLARIFY_AGENT_ARGS", '{"asks": 4}')
    assert make_agent(f"py:{agent}:MyAgent").obj.asks == 4


def test_http_agent_timeout_is_retried_then_infrastructure(tmp_path, capsys):
    toml = tmp_path / "clarify.toml"
    toml.write_text("[openai]\ntimeout = 0.3\nmax_retries = 1\n", encoding="utf-8")
    db = tmp_path / "slow.db"
    with LoopbackServer(lambda _req: Reply(body={"kind": "answer", "text": "x"}, delay=1.5)) as server:
        assert (
            main(
                run_args(
                    "interactcomp",
                    server.url + "/act",
                    db,
                    "slow",
                    "--limit",
                    "1",
                    "--config",
                    str(toml),
                    "--mode",
                    "answer_only",
                    "--task-attempts",
                    "1",
                )
            )
            == 1
        )  # some session errored: exit 1 (docs/runs.md, exit codes)
        assert len(server.requests) == 2  # the first try and one retry
    assert "0 completed, 1 errored" in capsys.readouterr().err
    [session] = Store(db).sessions(runs=["slow"])
    assert "timed out after 0.3 s (after 1 retries)" in session.error


def test_an_http_judge_receives_the_method_and_its_arguments(tmp_path, capsys):
    seen = []

    def judge(req):
        seen.append(req.json)
        return Reply(body={"correct": req.json["args"]["answer"] == "Tokyo Tower", "reason": "exact"})

    db = tmp_path / "j.db"
    with LoopbackServer(judge) as server:
        assert (
            main(
                run_args(
                    "interactcomp", "scripted:direct-guess", db, "j", "--limit", "2", "--judge", server.url + "/judge"
                )
            )
            == 0
        )
    assert "2 completed, 0 errored" in capsys.readouterr().err
    assert seen and {s["method"] for s in seen} == {"equivalent"}
    assert {"question", "answer", "gold"} <= set(seen[0]["args"]) and "text" in seen[0]["args"]["gold"]


def test_a_py_agents_class_is_made_once_per_run(tmp_path, capsys):
    """A researcher's constructor may load a model: validating the spec, recording the
    provenance and running must not make it again."""
    counter = tmp_path / "made.txt"
    (tmp_path / "counted.py").write_text(
        "from pathlib import Path\nfrom clarify_tui import Action\n\n"
        "class Counted:\n"
        "    def __init__(self):\n"
        f"        p = Path({str(counter)!r}); p.write_text(str(int(p.read_text() or 0) + 1) if p.exists() else '1')\n"
        "    def act(self, view):\n"
        "        return Action.answer('x', 50) if 'answer' in view.allowed else Action.search(view.question)\n",
        encoding="utf-8",
    )
    assert (
        main(run_args("interactcomp", f"py:{tmp_path}/counted.py:Counted", tmp_path / "c.db", "c", "--limit", "3")) == 0
    )
    assert counter.read_text() == "1"
