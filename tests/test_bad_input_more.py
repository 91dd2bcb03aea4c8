"""More bad input (issue 22): what a new user or an attacker meets across every command
and input file, each ending in one clean line naming the file, line or flag, exit code 2
(docs/runs.md), no traceback, and no file changed or left behind. The rows add to
tests/test_bad_input.py, tests/test_cli_errors.py and tests/test_db_errors.py without
repeating them; `python -m tests.bad_input_cases` counts them (tried / clean / traceback /
silent / unclear)."""

from __future__ import annotations

import gzip
import json
import sqlite3
from pathlib import Path

import pytest

from clarify_tui.cli import build_parser, main
from clarify_tui.store import Store
from tests.bad_input_cases import Case, attempt, drop_template
from tests.bad_input_cases import foreign_db as _foreign
from tests.bad_input_cases import make_dir as _mkdir
from tests.bad_input_cases import played as _played
from tests.bad_input_cases import write as _write

RUN = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess"]
DEMO = Path(__file__).resolve().parent.parent / "data" / "demo"


def _ic(**change) -> dict:
    """The first bundled InteractComp task as a dict, with `change` applied (None deletes)."""
    record = json.loads((DEMO / "interactcomp.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for key, value in change.items():
        if value is None:
            record.pop(key, None)
        else:
            record[key] = value
    return record


def _disco(**change) -> dict:
    record = json.loads((DEMO / "discobench.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record.update(change)
    return record


def _cts(**change) -> dict:
    record = json.loads((DEMO / "cts.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record.update(change)
    return record


def _jsonl(*records: dict | str) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def _data(tmp: Path, text: str | bytes, name: str = "tasks.jsonl", benchmark: str = "interactcomp") -> list[str]:
    agent = {
        "interactcomp": "scripted:direct-guess",
        "discobench": "scripted:search-then-ask",
        "cts": "scripted:ask-first",
    }[benchmark]
    return [
        "run",
        "--benchmark",
        benchmark,
        "--agent",
        agent,
        "--db",
        str(tmp / "d.db"),
        "--dataset",
        str(_write(tmp / name, text)),
    ]


def _config(tmp: Path, text: str | bytes, *extra: str) -> list[str]:
    return [*RUN, "--db", str(tmp / "d.db"), "--config", str(_write(tmp / "clarify.toml", text)), *extra]


def _agent_file(tmp: Path, source: str, name: str = "mine.py") -> str:
    return str(_write(tmp / name, source))


def _future(tmp: Path) -> Path:
    db = _played(tmp)
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    return db


def _corrupt(tmp: Path) -> Path:
    """A database whose pages after the header were overwritten (a bad copy, a torn disk)."""
    db = _played(tmp)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    data = bytearray(db.read_bytes())
    data[1024:] = b"\xa5" * (len(data) - 1024)
    db.write_bytes(bytes(data))
    return db


def _truncated_db(tmp: Path) -> Path:
    db = _played(tmp)
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])
    return db


def _csv(tmp: Path, text: str | bytes) -> list[str]:
    return [
        "import",
        "--db",
        str(tmp / "d.db"),
        "--format",
        "interactcomp-harness",
        "--dataset",
        "demo",
        str(_write(tmp / "results.csv", text)),
    ]


def _cand(tmp: Path, text: str | bytes) -> list[str]:
    return [
        "import",
        "--db",
        str(tmp / "d.db"),
        "--format",
        "cts-candidates",
        "--dataset",
        "demo",
        str(_write(tmp / "sys__cand.jsonl", text)),
    ]


def _export(tmp: Path) -> Path:
    """An `export --format jsonl` file of the played database (sessions, not tasks)."""
    out = tmp / "export.jsonl"
    assert main(["export", "--db", str(_played(tmp)), "--out", str(out)]) == 0
    (tmp / "ok.db").unlink()
    return out


def _with_cts(tmp: Path) -> Path:
    """The played database with a CTS run 'c' added."""
    db = _played(tmp)
    assert (
        main(
            [
                "run",
                "--benchmark",
                "cts",
                "--agent",
                "scripted:ask-first",
                "--db",
                str(db),
                "--run",
                "c",
                "--limit",
                "1",
            ]
        )
        == 0
    )
    return db


def _no_searches(tmp: Path) -> Path:
    """The played database with its recorded searches deleted."""
    db = _played(tmp)
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM search_cache")
    return db


def _loop(tmp: Path) -> Path:
    link = tmp / "loop.jsonl"
    link.symlink_to(link)
    return link


CACHE_ROW = '{"kind": "search", "backend": "local", "query": "q", "params": {}, "response": []}\n'
HEADER = "question,correct_answer,predicted_answer,confidence,history,score,cost,action_counts\n"
Q1 = _ic()["question"]
ROW1 = f'"{Q1}",Deep Impact,Deep Impact,50,"[]",1,0.1,"{{}}"\n'  # its history "[]" is a problem of its own

DATASETS = [
    Case(
        "dataset: a truncated last line",
        lambda t: _data(t, _jsonl(_ic()) + json.dumps(_ic(id="ic-x"))[:60]),
        "{tmp}/tasks.jsonl:2: not JSON: Unterminated string starting at",
        names="tasks.jsonl:2: not JSON",
        lines=3,
    ),
    Case(
        "dataset: question is a number",
        lambda t: _data(t, _jsonl(_ic(question=42))),
        "tasks.jsonl:1: field 'question'",
        lines=3,
    ),
    Case(
        "dataset: question missing",
        lambda t: _data(t, _jsonl(_ic(question=None))),
        "tasks.jsonl:1: field 'question': missing",
        lines=3,
    ),
    Case(
        "dataset: duplicate ids",
        lambda t: _data(t, _jsonl(_ic(), _ic())),
        "tasks.jsonl:2: field 'id': duplicate id 'ic-01' (first on line 1)",
        lines=3,
    ),
    Case(
        "dataset: UTF-16",
        lambda t: _data(t, _jsonl(_ic()).encode("utf-16")),
        "tasks.jsonl: file is UTF-16-encoded; save it as UTF-8",
        lines=3,
    ),
    Case("dataset: empty file", lambda t: _data(t, b""), "tasks.jsonl: file is empty", lines=3),
    Case(
        "dataset: only blank lines (CRLF)", lambda t: _data(t, b"\r\n\r\n  \r\n"), "tasks.jsonl: file is empty", lines=3
    ),
    Case(
        "dataset: a directory",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_mkdir(t / "tasks"))],
        "{tmp}/tasks: is a folder; a dataset for interactcomp is a JSONL or JSON",
        names="tasks",
        lines=3,
    ),
    Case(
        "dataset: missing file",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(t / "nope.jsonl")],
        "nope.jsonl: no such file or folder",
        lines=3,
    ),
    Case(
        "dataset: Latin-1 line",
        lambda t: _data(t, _jsonl(_ic()).replace("Earth", "Erd\xe9").encode("latin-1")),
        "tasks.jsonl:1: not UTF-8: byte 0xe9",
        lines=3,
    ),
    Case(
        "dataset: a line that is an array",
        lambda t: _data(t, _jsonl(_ic()) + "[1, 2]\n"),
        "tasks.jsonl:2: expected a JSON object, got an array",
        lines=3,
    ),
    Case(
        "dataset: unknown field",
        lambda t: _data(t, _jsonl(_ic(colour="red"))),
        "tasks.jsonl:1: field 'colour': unknown field",
        lines=3,
    ),
    Case("dataset: empty id", lambda t: _data(t, _jsonl(_ic(id=""))), "tasks.jsonl:1: field 'id'", lines=3),
    Case(
        "dataset: NaN answer",
        lambda t: _data(t, _jsonl(_ic()).replace('"Deep Impact"', "NaN", 1)),
        "tasks.jsonl:1: field 'answer",
        lines=3,
    ),
    Case(
        "dataset: a discobench task for interactcomp",
        lambda t: _data(t, _jsonl(_disco())),
        "tasks.jsonl:1: field 'protocol': a discobench task, but benchmark interactcomp was asked for",
        lines=3,
    ),
    Case(
        "dataset: discobench without checkpoints",
        lambda t: _data(
            t, _jsonl(_disco(discobench={**_disco()["discobench"], "checkpoints": []})), benchmark="discobench"
        ),
        "tasks.jsonl:1: field 'discobench.checkpoints'",
        lines=3,
    ),
    Case(
        "dataset: cts nugget weight 5",
        lambda t: _data(
            t,
            _jsonl(_cts(cts={**_cts()["cts"], "nuggets": [{**_cts()["cts"]["nuggets"][0], "weight": 5}]})),
            benchmark="cts",
        ),
        "tasks.jsonl:1: field 'cts.nuggets[0].weight': nugget weight must be 1, 2 or 3",
        lines=3,
    ),
    Case(
        "dataset: .json with trailing garbage",
        lambda t: _data(t, json.dumps([_ic()]) + " }", name="tasks.json"),
        "{tmp}/tasks.json:1: not JSON: extra data after the array (column 659)",
        names="tasks.json:1: not JSON",
        lines=3,
    ),
    Case(
        "dataset: a 5 MB line that is not JSON",
        lambda t: _data(t, '{"id": "' + "x" * 5_000_000),
        "{tmp}/tasks.jsonl:1: not JSON: Unterminated string starting at",
        names="tasks.jsonl:1: not JSON",
        lines=3,
    ),
    Case(
        "dataset: a null byte in a line",
        lambda t: _data(t, _jsonl(_ic()).replace("{", "{\x00", 1)),
        "{tmp}/tasks.jsonl:1: not JSON: Expecting property name enclosed in",
        names="tasks.jsonl:1: not JSON",
        lines=3,
    ),
    Case(
        "run --task-ids naming no task",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--task-ids", "ic-01,nope"],
        "--task-ids: no task 'nope'",
        names="nope",
    ),
    Case(
        "run --task-ids ''",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--task-ids", ""],
        "argument --task-ids: expected ids separated by commas, got ''",
        names="--task-ids",
    ),
    Case(
        "run --task-ids , ,",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--task-ids", " , ,"],
        "argument --task-ids: expected ids separated by commas, got ' , ,'",
        names="--task-ids",
    ),
]


def _dotenv(tmp: Path, data: bytes) -> list[str]:
    """`sessions` on a database, with `.env` in the working directory holding `data`."""
    db = _played(tmp)
    _write(tmp / ".env", data)
    return ["sessions", "--db", str(db)]


CONFIGS = [
    Case(
        "clarify.toml: TOML syntax error",
        lambda t: _config(t, "[openai]\ntimeout = \n"),
        "clarify.toml",
        names="clarify.toml",
    ),
    Case("clarify.toml: unknown key", lambda t: _config(t, "[openai]\ntimeot = 3\n"), "clarify.toml", names="timeot"),
    Case(
        "clarify.toml: unknown section",
        lambda t: _config(t, "[agnet]\ntemperature = 0.1\n"),
        "clarify.toml",
        names="agnet",
    ),
    Case(
        "clarify.toml: temperature is text",
        lambda t: _config(t, '[agent]\ntemperature = "hot"\n'),
        "clarify.toml",
        names="agent.temperature",
    ),
    Case(
        "clarify.toml: negative timeout",
        lambda t: _config(t, "[openai]\ntimeout = -1\n"),
        "clarify.toml",
        names="openai.timeout",
    ),
    Case(
        "clarify.toml: temperature 5",
        lambda t: _config(t, "[judge]\ntemperature = 5\n"),
        "clarify.toml",
        names="judge.temperature",
    ),
    Case(
        "clarify.toml: max_retries -3",
        lambda t: _config(t, "[openai]\nmax_retries = -3\n"),
        "clarify.toml",
        names="openai.max_retries",
    ),
    Case(
        "clarify.toml: [agent.args] not a table",
        lambda t: _config(t, '[agent]\nargs = "x=1"\n'),
        "clarify.toml",
        names="agent.args",
    ),
    Case(
        "clarify.toml: UTF-16",
        lambda t: _config(t, "[openai]\ntimeout = 3\n".encode("utf-16")),
        "clarify.toml",
        names="clarify.toml",
    ),
    Case(
        "--set without =",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--set", "agent.temperature"],
        "--set expects ROLE.FIELD=VALUE, got 'agent.temperature'",
        names="--set",
    ),
    Case(
        "--set unknown role",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--set", "robot.temperature=1"],
        "--set",
        names="robot",
    ),
    Case(
        "--set text for a number",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--set", "agent.temperature=hot"],
        "--set",
        names="agent.temperature",
    ),
    Case(
        "--set unknown field",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--set", "agent.temprature=1"],
        "--set",
        names="temprature",
    ),
    Case(
        ".env not UTF-8",
        lambda t: _dotenv(t, b"# keys\nOPENAI_API_KEY=caf\xe9\n"),
        "{tmp}/.env:2: not UTF-8 (byte 0xe9)",
        names=".env",
    ),
]


def _py(tmp: Path, source: str, *extra: str) -> list[str]:
    """`run` with the agent `py:FILE:Agent`, FILE holding `source`."""
    return [*RUN[:-1], f"py:{_agent_file(tmp, source)}:Agent", "--db", str(tmp / "d.db"), *extra]


TAKES_X = "class Agent:\n    def __init__(self, x=1):\n        pass\n\n    async def act(self, view):\n        pass\n"
NO_ARGS = "class Agent:\n    async def act(self, view):\n        pass\n"

SPECS = [
    Case(
        "py: file missing",
        lambda t: [*RUN[:-1], f"py:{t}/gone.py:Agent", "--db", str(t / "d.db")],
        "no such file",
        names="gone.py",
    ),
    Case("py: name missing", lambda t: _py(t, "X = 1\n"), "has no 'Agent'", names="mine.py"),
    Case("py: syntax error", lambda t: _py(t, "def (:\n"), "mine.py:1", names="mine.py"),
    Case("py: raises at import", lambda t: _py(t, "raise RuntimeError('boom')\n"), "importing", names="mine.py"),
    Case(
        "py: module missing",
        lambda t: [*RUN[:-1], "py:no_such_pkg.agents:Agent", "--db", str(t / "d.db")],
        "no module named 'no_such_pkg.agents'",
        names="no_such_pkg",
    ),
    Case("py: an int, not an agent", lambda t: _py(t, "Agent = 3\n"), "is not an agent", names="Agent"),
    Case("py: a class without act", lambda t: _py(t, "class Agent:\n    pass\n"), "no act method", names="Agent"),
    Case("py: empty", lambda t: [*RUN[:-1], "py:", "--db", str(t / "d.db")], "py:FILE.py:NAME", names="'py:'"),
    Case(
        "py: entry point not installed",
        lambda t: [*RUN[:-1], "py:nosuchplugin", "--db", str(t / "d.db")],
        "no entry point 'nosuchplugin'",
        names="nosuchplugin",
    ),
    Case(
        "http: port not a number",
        lambda t: [*RUN[:-1], "http://localhost:notaport/act", "--db", str(t / "d.db")],
        "notaport",
        names="http://localhost:notaport/act",
    ),
    Case(
        "http: no host",
        lambda t: [*RUN[:-1], "http:///act", "--db", str(t / "d.db")],
        "'http:///act': no host (give http://HOST:PORT/PATH)",
        names="http:///act",
    ),
    Case(
        "openai: empty model",
        lambda t: [*RUN[:-1], "openai:", "--db", str(t / "d.db")],
        "openai agent needs a model: openai:MODEL",
        names="openai:",
    ),
    Case(
        "--agent ''",
        lambda t: [*RUN[:-1], "", "--db", str(t / "d.db")],
        "argument --agent: a spec cannot be empty",
        names="agent",
    ),
    Case(
        "--agent-arg without =",
        lambda t: _py(t, TAKES_X, "--agent-arg", "x"),
        "--agent-arg expects KEY=VALUE with a Python name as KEY, got 'x'",
        names="--agent-arg",
    ),
    Case(
        "--agent-arg the class does not take",
        lambda t: _py(t, NO_ARGS, "--agent-arg", "depth=3"),
        "'py:{tmp}/mine.py:Agent': could not make Agent with arguments depth=3",
        names="depth",
    ),
    Case(
        "--agent-arg for a scripted agent",
        lambda t: [*RUN, "--agent-arg", "x=1", "--db", str(t / "d.db")],
        "--agent-arg goes to a py: agent's class or factory",
        names="--agent-arg",
    ),
    Case(
        "--deep-search unknown",
        lambda t: [
            "run",
            "--benchmark",
            "cts",
            "--agent",
            "scripted:ask-first",
            "--deep-search",
            "scripted:nonsense",
            "--db",
            str(t / "d.db"),
        ],
        "unknown scripted agent 'nonsense'; choose one of: direct-guess",
        names="nonsense",
    ),
    Case(
        "--user py: missing file",
        lambda t: [*RUN, "--user", f"py:{t}/u.py:User", "--db", str(t / "d.db")],
        "'py:{tmp}/u.py:User': no such file {tmp}/u.py",
        names="u.py",
    ),
    Case(
        "--search '' ",
        lambda t: [*RUN, "--search", "", "--db", str(t / "d.db")],
        "argument --search: a spec cannot be empty (see `clarify-tui backends`)",
        names="search",
    ),
]

FLAGS = [
    Case(
        "run --epochs 0",
        lambda t: [*RUN, "--epochs", "0", "--db", str(t / "d.db")],
        "argument --epochs: must be at least 1, got 0",
        names="--epochs",
    ),
    Case(
        "run --task-attempts 0",
        lambda t: [*RUN, "--task-attempts", "0", "--db", str(t / "d.db")],
        "argument --task-attempts: must be at least 1, got 0",
        names="--task-attempts",
    ),
    Case(
        "run --forced-asks -1",
        lambda t: [*RUN, "--mode", "forced_ask", "--forced-asks", "-1", "--db", str(t / "d.db")],
        "argument --forced-asks: must be at least 0, got -1",
        names="--forced-asks",
    ),
    Case(
        "run --run with a newline",
        lambda t: [*RUN, "--run", "ic\nguess", "--db", str(t / "d.db")],
        "argument --run: a run name cannot hold a control character ('\\n' in 'ic\\nguess')",
        names="--run",
    ),
    Case(
        "run --seed abc",
        lambda t: [*RUN, "--seed", "abc", "--db", str(t / "d.db")],
        "argument --seed: invalid int value: 'abc'",
        names="--seed",
    ),
    Case(
        "run --concurrency 1e9",
        lambda t: [*RUN, "--concurrency", "1e9", "--db", str(t / "d.db")],
        "argument --concurrency: expected a whole number, got '1e9'",
        names="--concurrency",
    ),
    Case(
        "run --mode forced_ask on discobench",
        lambda t: [
            "run",
            "--benchmark",
            "discobench",
            "--agent",
            "scripted:ask-first",
            "--mode",
            "forced_ask",
            "--db",
            str(t / "d.db"),
            "--limit",
            "1",
        ],
        "warning: --mode changes nothing: it applies to InteractComp only, not discobench",
        warns=True,
    ),
    Case(
        "run --k on interactcomp",
        lambda t: [*RUN, "--k", "3", "--db", str(t / "d.db"), "--limit", "1"],
        "warning: --k changes nothing: it applies to CTS only, not interactcomp",
        warns=True,
    ),
    Case(
        "run --prompting guided on cts",
        lambda t: [
            "run",
            "--benchmark",
            "cts",
            "--agent",
            "scripted:ask-first",
            "--prompting",
            "guided",
            "--db",
            str(t / "d.db"),
            "--limit",
            "1",
        ],
        "warning: --prompting changes nothing: it applies to DiscoBench only, not cts",
        warns=True,
    ),
    Case(
        "run --deep-search on discobench",
        lambda t: [
            "run",
            "--benchmark",
            "discobench",
            "--agent",
            "scripted:ask-first",
            "--deep-search",
            "scripted:direct-guess",
            "--db",
            str(t / "d.db"),
            "--limit",
            "1",
        ],
        "warning: --deep-search changes nothing: it applies to CTS only, not discobench",
        warns=True,
    ),
    Case(
        "run --benchmark unknown",
        lambda t: ["run", "--benchmark", "bogus", "--agent", "x"],
        "argument --benchmark: invalid choice: 'bogus'",
        names="--benchmark",
    ),
    Case(
        "run --limit 0",
        lambda t: [*RUN, "--limit", "0", "--db", str(t / "d.db")],
        "argument --limit: must be at least 1, got 0",
        names="--limit",
    ),
    Case(
        "sessions --limit 0",
        lambda t: ["sessions", "--limit", "0", "--db", str(_played(t))],
        "argument --limit: must be at least 1, got 0",
        names="--limit",
    ),
    Case(
        "sessions --limit -1",
        lambda t: ["sessions", "--limit", "-1", "--db", str(_played(t))],
        "argument --limit: must be at least 1, got -1",
        names="--limit",
    ),
    Case(
        "sessions --run TYPO",
        lambda t: ["sessions", "--run", "aa", "--db", str(_played(t))],
        "no run 'aa' in {tmp}/ok.db; runs there: a",
        names="'aa'",
    ),
    Case(
        "export --run TYPO",
        lambda t: ["export", "--run", "aa", "--db", str(_played(t))],
        "no run 'aa' in {tmp}/ok.db; runs there: a",
        names="'aa'",
    ),
    Case(
        "export --format unknown",
        lambda t: ["export", "--format", "xlsx", "--db", str(_played(t))],
        "unknown export format 'xlsx'; choose one of: jsonl, csv",
        names="xlsx",
    ),
    Case(
        "export --format inspect without --out",
        lambda t: ["export", "--format", "inspect", "--db", str(_played(t))],
        "export --format inspect writes one .eval log per run: give --out FOLDER",
        names="--out",
    ),
    Case(
        "report --run TYPO",
        lambda t: ["report", "--run", "aa", "--db", str(_played(t))],
        "no run 'aa' in {tmp}/ok.db; runs there: a",
        names="aa",
    ),
    Case(
        "judge --run TYPO",
        lambda t: ["judge", "--run", "aa", "--judge", "rule", "--db", str(_played(t))],
        "no run 'aa' in {tmp}/ok.db; runs there: a",
        names="aa",
    ),
    Case(
        "judge --judge unknown",
        lambda t: ["judge", "--run", "a", "--judge", "gpt", "--db", str(_played(t))],
        "unknown judge spec 'gpt' (rule, openai:MODEL, py:... or http://...)",
        names="gpt",
    ),
    Case(
        "judge --concurrency 0",
        lambda t: ["judge", "--run", "a", "--judge", "rule", "--concurrency", "0", "--db", str(_played(t))],
        "argument --concurrency: must be at least 1, got 0",
        names="--concurrency",
    ),
    Case(
        "whatif --run TYPO",
        lambda t: ["whatif", "--run", "aa", "--db", str(_played(t))],
        "no sessions in run 'aa' in {tmp}/ok.db; runs there: a",
        names="'aa'",
    ),
    Case(
        "whatif --run ''",
        lambda t: ["whatif", "--run", "", "--db", str(_played(t))],
        "argument --run: a run name cannot be empty",
        names="--run",
    ),
    Case(
        "whatif --concurrency 0",
        lambda t: ["whatif", "--run", "a", "--concurrency", "0"],
        "argument --concurrency: must be at least 1, got 0",
        names="--concurrency",
    ),
    Case(
        "score --from-export missing",
        lambda t: ["score", "--from-export", str(t / "gone.jsonl")],
        "no export file {tmp}/gone.jsonl",
        names="gone.jsonl",
    ),
    Case(
        "score --from-export a directory",
        lambda t: ["score", "--from-export", str(_mkdir(t / "exp"))],
        "--from-export {tmp}/exp is a directory",
        names="exp",
    ),
    Case(
        "score --from-export empty",
        lambda t: ["score", "--from-export", str(_write(t / "e.jsonl", ""))],
        "{tmp}/e.jsonl holds no sessions (an empty file); nothing to score",
        names="e.jsonl",
    ),
    Case(
        "score --from-export not an export",
        lambda t: ["score", "--from-export", str(_write(t / "e.jsonl", '{"x": 1}\n'))],
        "{tmp}/e.jsonl line 1: not a session record of `export --format jsonl`",
        names="e.jsonl",
    ),
    Case(
        "score --from-export with --db",
        lambda t: ["score", "--from-export", str(_write(t / "e.jsonl", '{"x": 1}\n')), "--db", str(_played(t))],
        "give --db or --from-export, not both",
        names="--from-export",
    ),
    Case(
        "replay unknown session",
        lambda t: ["replay", "nosuchid", "--db", str(_played(t))],
        "no session 'nosuchid' in {tmp}/ok.db",
        names="nosuchid",
    ),
    Case(
        "replay ambiguous prefix",
        lambda t: ["replay", "", "--db", str(_played(t))],
        "'' matches 2 sessions; give more of the id",
        names="session",
    ),
    Case(
        "replay --pace -1",
        lambda t: ["replay", "x", "--pace", "-1", "--db", str(_played(t))],
        "argument --pace: must be at least 0 seconds, got -1",
        names="--pace",
    ),
    Case(
        "replay --pace nan",
        lambda t: ["replay", "x", "--pace", "nan", "--db", str(_played(t))],
        "argument --pace: must be at least 0 seconds, got nan",
        names="--pace",
    ),
    Case(
        "play --pace nan",
        lambda t: ["play", "--pace", "nan", "--db", str(t / "d.db")],
        "argument --pace: must be at least 0 seconds, got nan",
        names="--pace",
    ),
    Case(
        "play --pace as agent",
        lambda t: ["play", "--as", "agent", "--pace", "1", "--db", str(t / "d.db")],
        "--pace paces a watched agent; with --as agent you make every step yourself",
        names="--pace",
    ),
    Case(
        "demo ask-vs-guess --pace -1",
        lambda t: ["demo", "ask-vs-guess", "--pace", "-1", "--db", str(t / "d.db")],
        "argument --pace: must be at least 0 seconds, got -1",
        names="--pace",
    ),
    Case(
        "play --task unknown",
        lambda t: ["play", "--task", "nope-99", "--db", str(t / "d.db")],
        "--task nope-99: no such task in demo (it has 30: dg-01, dg-02, dg-03",
        names="nope-99",
    ),
    Case(
        "play --dataset missing",
        lambda t: ["play", "--dataset", str(t / "gone.jsonl"), "--db", str(t / "d.db")],
        "--dataset {tmp}/gone.jsonl: no such file or folder",
    ),
    Case(
        "play --queue as observer",
        lambda t: ["play", "--queue", "q", "--db", str(t / "d.db")],
        "--queue collects a human baseline: add --as agent",
        names="--as agent",
    ),
    Case(
        "play --queue with --task",
        lambda t: [
            "play",
            "--queue",
            "q",
            "--as",
            "agent",
            "--task",
            "ic-01",
            "--annotator",
            "ana",
            "--db",
            str(t / "d.db"),
        ],
        "--queue serves every task of the dataset; drop --task (or use --limit)",
    ),
    Case(
        "play --limit without --queue",
        lambda t: ["play", "--limit", "3", "--db", str(t / "d.db")],
        "--limit and --shuffle go with --queue",
        names="--limit",
    ),
    Case(
        "play --agent-arg for a scripted agent",
        lambda t: ["play", "--agent-arg", "x=1", "--db", str(t / "d.db")],
        "--agent-arg goes to a py: agent's class or factory; --agent scripted:search-then-ask takes none",
    ),
    Case(
        "play --as agent --agent-arg",
        lambda t: [
            "play",
            "--as",
            "agent",
            "--agent",
            f"py:{_agent_file(t, TAKES_X)}:Agent",
            "--agent-arg",
            "x=2",
            "--db",
            str(t / "d.db"),
        ],
        "--agent-arg goes to a py: agent's class or factory; you play the agent",
    ),
    Case(
        "play --agent unknown",
        lambda t: ["play", "--agent", "scripted:nonsense", "--db", str(t / "d.db")],
        "unknown scripted agent 'nonsense'; choose one of: direct-guess",
        names="nonsense",
    ),
    Case(
        "play --user unknown",
        lambda t: ["play", "--user", "oracle", "--db", str(t / "d.db")],
        "unknown user spec 'oracle' (rule, openai:MODEL, human",
        names="oracle",
    ),
    Case(
        "play --search unknown",
        lambda t: ["play", "--search", "bing", "--db", str(t / "d.db")],
        "unknown search spec 'bing' (local, tavily or serper)",
        names="bing",
    ),
    Case(
        "demo unknown",
        lambda t: ["demo", "guess-vs-ask"],
        "argument DEMO: invalid choice: 'guess-vs-ask'",
        names="guess-vs-ask",
    ),
    Case(
        "demo --config a directory",
        lambda t: ["demo", "ask-vs-guess", "--config", str(_mkdir(t / "cfg")), "--db", str(t / "d.db")],
        "cannot read config {tmp}/cfg: it is a directory",
        names="cfg",
    ),
    Case(
        "queue status unknown run",
        lambda t: ["queue", "status", "nope", "--db", str(_played(t))],
        "run 'nope' was not served with `clarify-tui serve` in {tmp}/ok.db",
        names="'nope'",
    ),
    Case(
        "queue status --per-task 0",
        lambda t: ["queue", "status", "a", "--per-task", "0", "--dataset", "demo", "--db", str(_played(t))],
        "argument --per-task: must be at least 1, got 0",
        names="--per-task",
    ),
    Case(
        "datasets validate without a path",
        lambda t: ["datasets", "validate"],
        "datasets validate needs a PATH",
        names="PATH",
    ),
    Case(
        "datasets unknown action",
        lambda t: ["datasets", "check", "x.jsonl"],
        "argument action: invalid choice: 'check' (choose from 'list'",
        names="check",
    ),
]

SERVE = [
    Case(
        "serve --port -1",
        lambda t: ["serve", "--queue", "q", "--port", "-1", "--db", str(t / "d.db")],
        "argument --port: must be at least 0, got -1",
        names="--port",
    ),
    Case(
        "serve --port 70000",
        lambda t: ["serve", "--queue", "q", "--port", "70000", "--db", str(t / "d.db")],
        "argument --port: a port is 0-65535, got 70000",
        names="--port",
    ),
    Case(
        "serve --port abc",
        lambda t: ["serve", "--queue", "q", "--port", "abc", "--db", str(t / "d.db")],
        "argument --port: expected a whole number, got 'abc'",
        names="--port",
    ),
    Case(
        "serve --per-task 0",
        lambda t: ["serve", "--queue", "q", "--per-task", "0", "--db", str(t / "d.db")],
        "argument --per-task: must be at least 1, got 0",
        names="--per-task",
    ),
    Case(
        "serve --claim-timeout -5",
        lambda t: ["serve", "--queue", "q", "--claim-timeout", "-5", "--db", str(t / "d.db")],
        "argument --claim-timeout: must be more than 0 seconds, got -5",
        names="--claim-timeout",
    ),
    Case(
        "serve --limit 0",
        lambda t: ["serve", "--queue", "q", "--limit", "0", "--db", str(t / "d.db")],
        "argument --limit: must be at least 1, got 0",
        names="--limit",
    ),
    Case(
        "serve --token short",
        lambda t: ["serve", "--queue", "q", "--token", "abc", "--db", str(t / "d.db")],
        "--token must be at least 8 characters",
        names="--token",
    ),
    Case(
        "serve --dataset missing",
        lambda t: ["serve", "--queue", "q", "--dataset", str(t / "gone.jsonl"), "--db", str(t / "d.db")],
        "{tmp}/gone.jsonl: no such file or folder",
    ),
    Case(
        "serve on another application's database",
        lambda t: ["serve", "--queue", "q", "--db", str(_foreign(t))],
        "other-app.db is another application's SQLite database",
    ),
    Case(
        "serve --host not an address",
        lambda t: ["serve", "--queue", "q", "--host", "no such host!", "--db", str(t / "d.db")],
        "cannot listen on no such host!:8000: Name or service not known",
        names="--host",
    ),
]

HARNESS = ["--format", "interactcomp-harness", "--dataset", "demo"]
IMPORTS = [
    Case(
        "import: file missing",
        lambda t: ["import", "--db", str(t / "d.db"), *HARNESS, str(t / "gone.csv")],
        "{tmp}/gone.csv: cannot read: No such file or directory",
        lines=3,
    ),
    Case(
        "import: file is a directory",
        lambda t: ["import", "--db", str(t / "d.db"), *HARNESS, str(_mkdir(t / "results"))],
        "{tmp}/results: cannot read: Is a directory",
        lines=3,
    ),
    Case(
        "import: empty CSV",
        lambda t: _csv(t, ""),
        "results.csv:1: not a harness results CSV: missing column(s)",
        lines=3,
    ),
    Case(
        "import: CSV without the harness columns",
        lambda t: _csv(t, "a,b\n1,2\n"),
        "results.csv:1: not a harness results CSV: missing column(s)",
        lines=3,
    ),
    Case(
        "import: CSV row with a question of no task",
        lambda t: _csv(t, HEADER + '"Who?",x,y,50,"[]",1,0.1,"{}"\n'),
        "results.csv:2: field 'question': row 1: no task in the dataset has this question: 'Who?'",
        lines=3,
    ),
    Case(
        "import: CSV action_counts not a dict",
        lambda t: _csv(t, HEADER + ROW1.replace('"{}"', '"nope("')),
        "results.csv:2: field 'action_counts': row 1: not a Python dict literal",
        lines=4,
    ),
    Case(
        "import: CSV score not a number",
        lambda t: _csv(t, HEADER + ROW1.replace(",1,0.1,", ",high,0.1,")),
        "results.csv:2: field 'score': row 1: not a number: 'high'",
        lines=4,
    ),
    Case(
        "import: CSV in UTF-16",
        lambda t: _csv(t, (HEADER + "a,b\n").encode("utf-16")),
        "results.csv:1: not UTF-8: byte 0xff",
        lines=3,
    ),
    Case(
        "import: --dataset missing",
        lambda t: [
            "import",
            "--db",
            str(t / "d.db"),
            "--format",
            "interactcomp-harness",
            "--dataset",
            str(t / "gone.jsonl"),
            str(_write(t / "results.csv", HEADER)),
        ],
        "{tmp}/gone.jsonl: no such file or folder",
        lines=3,
    ),
    Case(
        "import: --max-rounds 0",
        lambda t: [*_csv(t, HEADER), "--max-rounds", "0"],
        "argument --max-rounds: must be at least 1, got 0",
    ),
    Case(
        "import: candidates line not JSON",
        lambda t: _cand(t, '{"id": "cts-01", "answer": \n'),
        "sys__cand.jsonl:1: not JSON",
        lines=3,
    ),
    Case(
        "import: candidates unknown task",
        lambda t: _cand(t, '{"id": "cts-99", "answer": "x"}\n'),
        "sys__cand.jsonl:1: field 'id': no task 'cts-99' in the dataset",
        lines=3,
    ),
    Case(
        "import: candidates without an answer",
        lambda t: _cand(t, '{"id": "cts-01"}\n'),
        "sys__cand.jsonl:1: field 'answer': no deep-search answer",
        lines=3,
    ),
    Case(
        "import: candidates k 4",
        lambda t: _cand(t, json.dumps({"id": "cts-01", "answer": "x", "questions": ["a", "b", "c", "d"]}) + "\n"),
        "sys__cand.jsonl:1: field 'questions': 4 questions; the protocol allows k = 1, 2 or 3",
        lines=3,
    ),
    Case(
        "import: into an existing run",
        lambda t: [
            "import",
            "--db",
            str(_played(t)),
            *HARNESS,
            "--run",
            "a",
            str(_write(t / "results.csv", HEADER + ROW1)),
        ],
        "results.csv: run 'a' already has 2 session(s) in {tmp}/ok.db; pass --run",
        lines=3,
    ),
    Case(
        "import: --user ''",
        lambda t: [*_csv(t, HEADER + ROW1), "--user", ""],
        "argument --user: a spec cannot be empty",
    ),
    Case(
        "cache import: missing file",
        lambda t: ["cache", "import", "--db", str(t / "d.db"), str(t / "gone.jsonl")],
        "cannot read {tmp}/gone.jsonl: No such file or directory",
        names="gone.jsonl",
    ),
    Case(
        "cache import: a directory",
        lambda t: ["cache", "import", "--db", str(t / "d.db"), str(_mkdir(t / "c"))],
        "cannot read {tmp}/c: Is a directory",
        names="c",
    ),
    Case(
        "cache import: entry without a response",
        lambda t: [
            "cache",
            "import",
            "--db",
            str(t / "d.db"),
            str(_write(t / "c.jsonl", '{"kind": "search", "backend": "local", "query": "q", "params": {}}\n')),
        ],
        "{tmp}/c.jsonl:1: not a search cache entry ('response')",
        names="c.jsonl:1",
    ),
    Case(
        "cache import: kind 'browse'",
        lambda t: [
            "cache",
            "import",
            "--db",
            str(t / "d.db"),
            str(
                _write(
                    t / "c.jsonl",
                    '{"kind": "browse", "backend": "local", "query": "q", "params": {}, "response": []}\n',
                )
            ),
        ],
        "{tmp}/c.jsonl:1: not a search cache entry (kind 'browse')",
        names="c.jsonl:1",
    ),
    Case(
        "cache import: into another application's database",
        lambda t: [
            "cache",
            "import",
            "--db",
            str(_foreign(t)),
            str(
                _write(
                    t / "c.jsonl",
                    '{"kind": "search", "backend": "local", "query": "q", "params": {}, "response": []}\n',
                )
            ),
        ],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
]

DATABASES = [
    Case(
        "score on a corrupt database",
        lambda t: ["score", "--db", str(_corrupt(t))],
        "{tmp}/ok.db is a damaged SQLite database",
        names="ok.db",
    ),
    Case(
        "run on a corrupt database",
        lambda t: [*RUN, "--db", str(_corrupt(t))],
        "{tmp}/ok.db is a damaged SQLite database",
        names="ok.db",
    ),
    Case(
        "sessions on a truncated database",
        lambda t: ["sessions", "--db", str(_truncated_db(t))],
        "{tmp}/ok.db is a damaged SQLite database",
        names="ok.db",
    ),
    Case(
        "score on a newer schema",
        lambda t: ["score", "--db", str(_future(t))],
        "{tmp}/ok.db has schema version 99",
        names="schema version 99",
    ),
    Case(
        "export on a newer schema",
        lambda t: ["export", "--db", str(_future(t))],
        "{tmp}/ok.db has schema version 99",
        names="schema version 99",
    ),
    Case(
        "score on a missing database",
        lambda t: ["score", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (run something first, or pass --db)",
        names="gone.db",
    ),
    Case(
        "report on a missing database",
        lambda t: ["report", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (run something first, or pass --db)",
        names="gone.db",
    ),
    Case(
        "whatif on a missing database",
        lambda t: ["whatif", "--run", "a", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (run something first, or pass --db)",
        names="gone.db",
    ),
    Case(
        "judge on a missing database",
        lambda t: ["judge", "--run", "a", "--judge", "rule", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (run something first, or pass --db)",
        names="gone.db",
    ),
    Case(
        "queue status on a missing database",
        lambda t: ["queue", "status", "a", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (pass --db)",
        names="gone.db",
    ),
    Case(
        "cache stats on a missing database",
        lambda t: ["cache", "stats", "--db", str(t / "gone.db")],
        "no database at {tmp}/gone.db (run something first, or pass --db)",
        names="gone.db",
    ),
    Case("--db ''", lambda t: ["score", "--db", ""], "argument --db: a path cannot be empty", names="--db"),
    Case(
        "$CLARIFY_DB is a directory",
        lambda t: [str(_mkdir(t / "dbdir")) and "sessions"],
        "dbdir is a directory, not a database file; pass --db FILE",
        names="dbdir",
        env={"CLARIFY_DB": "dbdir"},
    ),
    Case(
        "run --db in a missing folder of a file",
        lambda t: [*RUN, "--db", str(_write(t / "f", "x") / "d.db")],
        "cannot create {tmp}/f/d.db: {tmp}/f is a file, not a folder",
        names="f/d.db",
    ),
    Case(
        "report on another application's database",
        lambda t: ["report", "--db", str(_foreign(t))],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
    Case(
        "whatif on another application's database",
        lambda t: ["whatif", "--run", "a", "--db", str(_foreign(t))],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
    Case(
        "judge on another application's database",
        lambda t: ["judge", "--run", "a", "--judge", "rule", "--db", str(_foreign(t))],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
    Case(
        "queue status on another application's database",
        lambda t: ["queue", "status", "a", "--dataset", "demo", "--db", str(_foreign(t))],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
    Case(
        "import into another application's database",
        lambda t: [
            "import",
            "--db",
            str(_foreign(t)),
            "--format",
            "interactcomp-harness",
            "--dataset",
            "demo",
            str(_write(t / "results.csv", HEADER + ROW1)),
        ],
        "{tmp}/other-app.db is another application's SQLite database (tables",
        names="other-app.db",
    ),
    Case(
        "merge: an input missing",
        lambda t: ["merge", str(t / "gone.db"), "--out", str(t / "all.db")],
        "no database at {tmp}/gone.db",
        names="gone.db",
    ),
    Case(
        "merge: an input not SQLite",
        lambda t: ["merge", str(_write(t / "notes.db", "my notes\n" * 50)), "--out", str(t / "all.db")],
        "{tmp}/notes.db is not a SQLite database (file is not a database)",
        names="notes.db",
    ),
    Case(
        "merge: an input of another application",
        lambda t: ["merge", str(_foreign(t)), "--out", str(t / "all.db")],
        "{tmp}/other-app.db is not a clarify-tui database (no such table",
        names="other-app.db",
    ),
    Case(
        "merge: --out is an input",
        lambda t: ["merge", str(_played(t)), "--out", str(t / "ok.db")],
        "--out {tmp}/ok.db is also an input; write the merge to a new file",
        names="ok.db",
    ),
    Case(
        "merge: --out a directory",
        lambda t: ["merge", str(_played(t)), "--out", str(_mkdir(t / "outdir"))],
        "--out {tmp}/outdir is a directory; give the merged database's file name",
        names="outdir",
    ),
    Case(
        "merge: --out another application's database",
        lambda t: ["merge", str(_played(t)), "--out", str(_foreign(t))],
        "{tmp}/other-app.db is not a clarify-tui database (no such table",
        names="other-app.db",
    ),
    Case(
        "merge: an input with a newer schema",
        lambda t: ["merge", str(_future(t)), "--out", str(t / "all.db")],
        "{tmp}/ok.db has schema version 99",
        names="schema version 99",
    ),
]

EXPORTS = [
    Case(
        "export --out in a missing folder",
        lambda t: ["export", "--db", str(_played(t)), "--out", str(t / "no" / "x.jsonl")],
        "cannot write {tmp}/no/x.jsonl: folder {tmp}/no does not exist",
        names="does not exist",
    ),
    Case(
        "export --out under a file",
        lambda t: ["export", "--db", str(_played(t)), "--out", str(_write(t / "f", "x") / "x.jsonl")],
        "cannot write {tmp}/f/x.jsonl: {tmp}/f is a file, not a folder",
        names="f/x.jsonl",
    ),
    Case(
        "export --out another SQLite database",
        lambda t: ["export", "--db", str(_played(t)), "--out", str(_foreign(t))],
        "refusing to write {tmp}/other-app.db: it is a SQLite database",
        names="it is a SQLite database",
    ),
    Case(
        "export --format csv --out the database's -wal",
        lambda t: ["export", "--format", "csv", "--db", str(_played(t)), "--out", str(t / "ok.db-wal")],
        "refusing to write {tmp}/ok.db-wal: it is the database {tmp}/ok.db",
        names="it is the database",
    ),
    Case(
        "cache export --out a directory",
        lambda t: ["cache", "export", "--db", str(_played(t)), "--out", str(t)],
        "--out {tmp} is a directory; name a file to write",
        names="is a directory",
    ),
    Case(
        "cache export --out the database",
        lambda t: ["cache", "export", "--db", str(_played(t)), "--out", str(t / "ok.db")],
        "refusing to write {tmp}/ok.db: it is the database {tmp}/ok.db",
        names="it is the database",
    ),
    Case(
        "export --format csv to a full disk",
        lambda t: ["export", "--format", "csv", "--db", str(_played(t)), "--out", "/dev/full"],
        "cannot write /dev/full: disk full; /dev/full was left as it was",
        names="/dev/full",
    ),
    Case(
        "export --format cts-candidates of a database without CTS sessions",
        lambda t: ["export", "--format", "cts-candidates", "--db", str(_played(t)), "--out", str(t / "c.jsonl")],
        "nothing to export: --format cts-candidates writes cts sessions and {tmp}/ok.db holds none",
    ),
    Case(
        "export --format interactcomp-csv of runs without InteractComp sessions",
        lambda t: ["export", "--format", "interactcomp-csv", "--db", str(_with_cts(t)), "--run", "c"],
        "nothing to export: --format interactcomp-csv writes interactcomp sessions and run(s) c of {tmp}/ok.db",
    ),
    Case(
        "export --out newdir/ (a folder that does not exist)",
        lambda t: ["export", "--db", str(_played(t)), "--out", f"{t}/newdir/"],
        "--out {tmp}/newdir/ ends in '/': it names a folder",
        names="newdir/",
    ),
    Case(
        "cache export --out newdir/",
        lambda t: ["cache", "export", "--db", str(_played(t)), "--out", f"{t}/newdir/"],
        "{tmp}/newdir/ ends in '/': it names a folder",
        names="newdir/",
    ),
    Case(
        "merge --out newdir/",
        lambda t: ["merge", str(_played(t)), "--out", f"{t}/newdir/"],
        "{tmp}/newdir/ ends in '/': it names a folder",
        names="newdir/",
    ),
    Case(
        "export --format inspect --out a file",
        lambda t: ["export", "--format", "inspect", "--db", str(_played(t)), "--out", str(_write(t / "f.eval", "x"))],
        "--out {tmp}/f.eval is a file; export --format inspect writes one .eval",
        names="f.eval",
    ),
]

MIXUPS = [
    Case(
        "run --agent openai:MODEL without OPENAI_API_KEY",
        lambda t: [*RUN[:-1], "openai:gpt-4o", "--db", str(t / "d.db")],
        "--agent openai:gpt-4o needs an API key: set OPENAI_API_KEY",
    ),
    Case(
        "run --judge openai:MODEL without a key",
        lambda t: [*RUN, "--judge", "openai:gpt-4o", "--db", str(t / "d.db")],
        "--judge openai:gpt-4o needs an API key: set OPENAI_API_KEY",
    ),
    Case(
        "run --search tavily without TAVILY_API_KEY",
        lambda t: [*RUN, "--search", "tavily", "--db", str(t / "d.db")],
        "--search tavily needs an API key: set TAVILY_API_KEY",
    ),
    Case(
        "run --search serper without SERPER_API_KEY",
        lambda t: [*RUN, "--search", "serper", "--db", str(t / "d.db")],
        "--search serper needs an API key: set SERPER_API_KEY",
    ),
    Case(
        "OPENAI_BASE_URL not a URL",
        lambda t: [*RUN[:-1], "openai:m", "--db", str(t / "d.db")],
        "OPENAI_BASE_URL: openai.base_url: 'notaurl' is not an http:// or https:// URL",
        env={"OPENAI_BASE_URL": "notaurl", "OPENAI_API_KEY": "sk-test"},
    ),
    Case(
        "clarify.toml holding an API key",
        lambda t: _config(t, '[openai]\napi_key = "sk-secret"\n'),
        "{tmp}/clarify.toml: openai.api_key: Extra inputs are not permitted",
    ),
    Case(
        "--config ''",
        lambda t: [*RUN, "--config", "", "--db", str(t / "d.db")],
        "argument --config: a path cannot be empty",
    ),
    Case(
        "--set agent.temperature=nan",
        lambda t: [*RUN, "--set", "agent.temperature=nan", "--db", str(t / "d.db")],
        "--set: agent.temperature: Input should be less than or equal to 2",
        names="agent.temperature",
    ),
    Case(
        "clarify.toml: temperature = nan",
        lambda t: _config(t, "[agent]\ntemperature = nan\n"),
        "{tmp}/clarify.toml: agent.temperature: Input should be less than or equal to 2",
    ),
    Case(
        "--set openai.timeout=0",
        lambda t: [*RUN, "--set", "openai.timeout=0", "--db", str(t / "d.db")],
        "--set: openai.timeout: Input should be greater than 0",
    ),
    Case(
        "run --resume without --run",
        lambda t: [*RUN, "--resume", "--db", str(_played(t))],
        "--resume continues a run: give its --run NAME",
        names="--resume",
    ),
    Case(
        "run --agent human",
        lambda t: ["run", "--benchmark", "interactcomp", "--agent", "human", "--db", str(t / "d.db")],
        "run has no person at the keyboard: --agent human is played in the TUI",
        names="--agent",
    ),
    Case(
        "run --user human",
        lambda t: [*RUN, "--user", "human", "--db", str(t / "d.db")],
        "run has no person at the keyboard: --user human is played in the TUI",
        names="--user",
    ),
    Case(
        "run --search-cache replay on a new database",
        lambda t: [*RUN, "--search-cache", "replay", "--db", str(t / "d.db"), "--limit", "1"],
        "--search-cache replay: {tmp}/d.db does not exist, so it holds no recorded searches",
    ),
    Case(
        "run --search-cache replay with nothing recorded",
        lambda t: [
            *RUN,
            "--search-cache",
            "replay",
            "--search-cache",
            "replay",
            "--db",
            str(_no_searches(t)),
            "--run",
            "b",
            "--limit",
            "1",
        ],
        "--search-cache replay: {tmp}/ok.db holds no recorded local searches",
        names="replay",
    ),
    Case(
        "--dataset is a SQLite database",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_played(t))],
        "{tmp}/ok.db: is a SQLite database, not a dataset (a database goes to --db)",
        lines=3,
    ),
    Case(
        "--dataset is an export",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_export(t))],
        "{tmp}/export.jsonl:1: is an export of sessions (`export --format jsonl`), not a dataset",
        lines=3,
    ),
    Case(
        "--dataset is gzip-compressed",
        lambda t: [
            *RUN,
            "--db",
            str(t / "d.db"),
            "--dataset",
            str(_write(t / "tasks.jsonl", gzip.compress(_jsonl(_ic()).encode()))),
        ],
        "{tmp}/tasks.jsonl: is gzip-compressed (gunzip it); unpack it first",
        lines=3,
    ),
    Case(
        "--dataset is an image",
        lambda t: [
            *RUN,
            "--db",
            str(t / "d.db"),
            "--dataset",
            str(_write(t / "tasks.jsonl", b"\x89PNG\r\n\x1a\n" + bytes(64))),
        ],
        "{tmp}/tasks.jsonl: is a binary file, not JSON text",
        lines=3,
    ),
    Case(
        "--dataset /dev/null",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", "/dev/null"],
        "/dev/null: file is empty",
        names="/dev/null: file is empty",
        lines=3,
    ),
    Case(
        "--dataset a symlink loop",
        lambda t: [*RUN, "--db", str(t / "d.db"), "--dataset", str(_loop(t))],
        "{tmp}/loop.jsonl: no such file or folder",
        lines=3,
    ),
    Case(
        "dataset: a null line",
        lambda t: _data(t, _jsonl(_ic()) + "null\n"),
        "tasks.jsonl:2: expected a JSON object, got null",
        lines=3,
    ),
    Case(
        "dataset: an empty answer",
        lambda t: _data(t, _jsonl(_ic(answer={"text": "", "aliases": []}))),
        "tasks.jsonl:1: field 'answer.text': must not be empty",
        lines=3,
    ),
    Case(
        "dataset: checkpoint type 'maybe'",
        lambda t: _data(
            t,
            _jsonl(
                _disco(
                    discobench={
                        **_disco()["discobench"],
                        "checkpoints": [{**_disco()["discobench"]["checkpoints"][0], "type": "maybe"}],
                    }
                )
            ),
            benchmark="discobench",
        ),
        "tasks.jsonl:1: field 'discobench.checkpoints[0].type': Input should be 'ambi' or 'unambi'",
        lines=3,
    ),
    Case(
        "dataset: cts without nuggets",
        lambda t: _data(t, _jsonl(_cts(cts={**_cts()["cts"], "nuggets": []})), benchmark="cts"),
        "tasks.jsonl:1: field 'cts.nuggets'",
        lines=3,
    ),
    Case(
        "dataset: release record without a context",
        lambda t: _data(t, _jsonl({"id": "x", "question": "q?", "answer": "a", "canary": "c"})),
        "tasks.jsonl:1: field 'context': missing (required)",
        lines=3,
    ),
    Case(
        "score --from-export a database",
        lambda t: ["score", "--from-export", str(_played(t))],
        "{tmp}/ok.db line 1: not UTF-8",
    ),
    Case(
        "import a SQLite database as the CSV",
        lambda t: ["import", "--db", str(t / "d.db"), *HARNESS, str(_played(t))],
        "{tmp}/ok.db:1: not UTF-8: byte 0x",
        names="{tmp}/ok.db:1: not UTF-8",
        lines=3,
    ),
    Case(
        "cache import a harness CSV",
        lambda t: ["cache", "import", "--db", str(t / "d.db"), str(_write(t / "results.csv", HEADER + ROW1))],
        "{tmp}/results.csv:1: not a search cache entry",
    ),
    Case(
        "cache import into a newer schema",
        lambda t: ["cache", "import", "--db", str(_future(t)), str(_write(t / "c.jsonl", CACHE_ROW))],
        "{tmp}/ok.db has schema version 99",
        names="schema version 99",
    ),
    Case(
        "merge a 0-byte input",
        lambda t: ["merge", str(_write(t / "zero.db", b"")), "--out", str(t / "all.db")],
        "{tmp}/zero.db is not a clarify-tui database",
    ),
    Case(
        "merge --out a text file",
        lambda t: ["merge", str(_played(t)), "--out", str(_write(t / "all.db", "notes\n" * 50))],
        "{tmp}/all.db is not a SQLite database",
    ),
    Case(
        "report on a 0-byte file",
        lambda t: ["report", "--db", str(_write(t / "zero.db", b""))],
        "zero.db holds no clarify-tui data",
    ),
    Case(
        "whatif on a 0-byte file",
        lambda t: ["whatif", "--run", "a", "--db", str(_write(t / "zero.db", b""))],
        "zero.db holds no clarify-tui data",
    ),
    Case(
        "judge --judge openai: without a model",
        lambda t: ["judge", "--run", "a", "--judge", "openai:", "--db", str(_played(t))],
        "openai judge needs a model: openai:MODEL",
    ),
    Case(
        "play --task of another benchmark",
        lambda t: ["play", "--benchmark", "cts", "--task", "ic-01", "--db", str(t / "d.db")],
        "--task ic-01: no such task in demo (it has 10: cts-01",
    ),
    Case(
        "play --task not in a JSONL dataset",
        lambda t: [
            "play",
            "--dataset",
            str(_write(t / "tasks.jsonl", _jsonl(_ic()))),
            "--task",
            "ic-02",
            "--db",
            str(t / "d.db"),
        ],
        "--task ic-02: no such task in {tmp}/tasks.jsonl (it has 1: ic-01)",
    ),
    Case(
        "demo on another application's database",
        lambda t: ["demo", "ask-vs-guess", "--db", str(_foreign(t))],
        "{tmp}/other-app.db is another application's SQLite database",
    ),
    Case(
        "queue status --dataset missing",
        lambda t: ["queue", "status", "q", "--dataset", str(t / "gone.jsonl"), "--db", str(_played(t))],
        "{tmp}/gone.jsonl: no such file or folder",
    ),
    Case(
        "cache export --out in a missing folder",
        lambda t: ["cache", "export", "--db", str(_played(t)), "--out", str(t / "no" / "c.jsonl")],
        "cannot write {tmp}/no/c.jsonl: folder {tmp}/no does not exist",
    ),
    Case(
        "serve --dataset with a bad line",
        lambda t: [
            "serve",
            "--queue",
            "q",
            "--db",
            str(t / "d.db"),
            "--dataset",
            str(_write(t / "tasks.jsonl", _jsonl(_ic()) + "{\n")),
        ],
        "{tmp}/tasks.jsonl:2: not JSON",
    ),
    Case(
        "score --profile-k inf",
        lambda t: ["score", "--profile-k", "inf", "--db", str(_played(t))],
        "argument --profile-k: must be a finite number, got inf",
    ),
    Case(
        "score --profile-k 1e400",
        lambda t: ["score", "--profile-k", "1e400", "--db", str(_played(t))],
        "argument --profile-k: must be a finite number, got 1e400",
    ),
    Case(
        "score --by unknown",
        lambda t: ["score", "--by", "model", "--db", str(_played(t))],
        "argument --by: invalid choice: 'model'",
    ),
    Case(
        "sessions --status unknown",
        lambda t: ["sessions", "--status", "done", "--db", str(_played(t))],
        "argument --status: invalid choice: 'done'",
    ),
    Case(
        "an unknown command", lambda t: ["scroe", "--db", str(t / "d.db")], "argument COMMAND: invalid choice: 'scroe'"
    ),
    Case(
        "run without --agent",
        lambda t: ["run", "--benchmark", "cts", "--db", str(t / "d.db")],
        "the following arguments are required: --agent",
    ),
    Case("merge without --out", lambda t: ["merge", str(_played(t))], "the following arguments are required: --out"),
    Case(
        "import without --dataset",
        lambda t: ["import", "--db", str(t / "d.db"), "--format", "cts-candidates", str(_write(t / "c.jsonl", "{}\n"))],
        "the following arguments are required: --dataset",
    ),
    Case(
        "replay without a session id",
        lambda t: ["replay", "--db", str(_played(t))],
        "the following arguments are required: session_id",
    ),
    Case(
        "run --k 5",
        lambda t: ["run", "--benchmark", "cts", "--agent", "scripted:ask-first", "--k", "5"],
        "argument --k: invalid choice: 5",
    ),
]


CASES = [*DATASETS, *CONFIGS, *SPECS, *FLAGS, *SERVE, *IMPORTS, *DATABASES, *EXPORTS, *MIXUPS]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_bad_input_is_one_clean_line_and_changes_nothing(case, tmp_path):
    outcome = attempt(case, tmp_path)
    assert outcome.crashed is None and "Traceback" not in outcome.err, outcome.crashed or outcome.err
    assert outcome.code == (0 if case.warns else case.code), outcome.err
    if case.warns:  # the command goes on after one warning naming the flag
        warnings = [line for line in outcome.lines if line.startswith("warning:")]
        assert len(warnings) == 1 and case.says in warnings[0], outcome.err
        return
    assert len(outcome.lines) == case.lines, outcome.err
    assert case.says.format(tmp=tmp_path) in outcome.err, outcome.err
    assert not outcome.changed, outcome.changed


def test_the_cases_are_distinct():
    assert len({c.name for c in CASES}) == len(CASES)


def test_an_unreadable_dotenv_names_the_file(tmp_path, capsys, monkeypatch):
    """EACCES (tests run as root, so chmod 000 would not stop us: injected)."""
    dotenv = _write(tmp_path / ".env", "OPENAI_API_KEY=sk-x\n")
    real = Path.read_bytes

    def denied(self):
        if self == dotenv:
            raise PermissionError(13, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    monkeypatch.chdir(tmp_path)
    assert main(["datasets"]) == 2
    err = capsys.readouterr().err
    assert f"cannot read {dotenv}: Permission denied" in err and "Traceback" not in err


def test_a_dotenv_saved_with_a_bom_sets_its_first_key(tmp_path, monkeypatch):
    """Notepad's UTF-8 BOM used to become part of the first key's name ('\\ufeffOPENAI_API_KEY'),
    so the key was silently not set."""
    from clarify_tui.cli import load_dotenv

    monkeypatch.delenv("R2B_BOM_KEY", raising=False)
    dotenv = _write(tmp_path / ".env", "\ufeffR2B_BOM_KEY=sk-x\r\nOTHER_R2B=1\r\n".encode("utf-8"))
    monkeypatch.setattr("os.environ", {**__import__("os").environ})  # load_dotenv writes here; undone after
    assert sorted(load_dotenv(dotenv)) == ["OTHER_R2B", "R2B_BOM_KEY"]
    assert __import__("os").environ["R2B_BOM_KEY"] == "sk-x"


def test_a_folder_named_dotenv_is_a_virtualenv_not_bad_input(tmp_path, capsys, monkeypatch):
    (tmp_path / ".env" / "bin").mkdir(parents=True)
    monkeypatch.chdir(tmp_path)
    assert main(["datasets"]) == 0


@pytest.mark.parametrize(
    "argv",
    [
        [
            "run",
            "--benchmark",
            "cts",
            "--agent",
            "scripted:ask-first",
            "--k",
            "2",
            "--deep-search",
            "scripted:direct-guess",
        ],
        [
            "run",
            "--benchmark",
            "interactcomp",
            "--agent",
            "scripted:direct-guess",
            "--mode",
            "answer_only",
            "--actions",
            "lenient",
        ],
        [
            "run",
            "--benchmark",
            "discobench",
            "--agent",
            "scripted:ask-first",
            "--prompting",
            "guided",
            "--ablation",
            "no_search",
            "--checkpoints",
            "strict",
        ],
    ],
)
def test_a_benchmarks_own_flags_get_no_warning(argv, tmp_path, capsys):
    assert main([*argv, "--db", str(tmp_path / "w.db"), "--limit", "1"]) == 0
    assert "warning:" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "extra",
    [
        [
            "--task",
            "ic-01",
            "--agent",
            "scripted:direct-guess",
            "--user",
            "rule",
            "--judge",
            "rule",
            "--search",
            "local",
        ],
        ["--task", "interactcomp:ic-01", "--as", "agent"],
        ["--dataset", str(DEMO / "interactcomp.jsonl"), "--task", "ic-02", "--agent", "openai:gpt-4o"],
    ],
)
def test_play_with_good_arguments_still_opens_the_screen(extra, tmp_path, monkeypatch):
    """The checks before the screen refuse only what is wrong."""
    from clarify_tui.commands import play

    opened = {}
    monkeypatch.setattr("clarify_tui.tui.app.run_app", lambda **kwargs: opened.update(kwargs) or 0)
    assert play.main(build_parser(("play",)).parse_args(["play", *extra, "--db", str(tmp_path / "p.db")])) == 0
    assert opened["task_id"] == extra[extra.index("--task") + 1]


@pytest.mark.parametrize("command", [[], ["play", "--task", "ic-01"], ["replay", "SESSION"], ["demo", "ask-vs-guess"]])
def test_a_screen_without_a_terminal_is_one_line_not_a_hang(command, tmp_path):
    """stdin and stderr not a terminal (a pipe, CI): Textual drew into the pipe and waited
    for keys for ever; now one line and exit 2, at once."""
    import subprocess

    from tests.clitools import cli, finish

    db = _played(tmp_path)
    session = Store(db, readonly=True).sessions()[0].id
    argv = [session if part == "SESSION" else part for part in command]
    code, _out, err = finish(cli("--db", str(db), *argv, stdin=subprocess.DEVNULL), timeout=60)
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1 and "needs a terminal" in lines[0], err
    assert "\x1b[" not in err  # no screen was drawn


def teardown_module() -> None:
    drop_template()
