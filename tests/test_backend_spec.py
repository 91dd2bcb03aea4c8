"""One place turns a spec string into a backend (backend_spec.py, backends.build_backends),
and one typed request lies beneath `api.run` (run_request.py) (issue 32)."""

from __future__ import annotations

import inspect
import re
from dataclasses import fields
from pathlib import Path

import pytest

from clarify_tui import api
from clarify_tui.backend_spec import BackendSpec, RoleSpecs
from clarify_tui.backends import SpecError, build_backends
from clarify_tui.run_request import RunRequest
from clarify_tui.store import Store

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "clarify_tui"


@pytest.mark.parametrize(
    ("text", "kind", "arg", "flags"),
    [
        ("scripted:search-then-ask", "scripted", "search-then-ask", {"is_scripted"}),
        ("openai:gpt-4o", "openai", "gpt-4o", {"is_model"}),
        ("openai/gpt-4o", "openai", "gpt-4o", {"is_model"}),  # Inspect's spelling
        ("human", "human", "", {"is_human"}),
        ("rule", "rule", "", set()),
        ("py:examples/my_user.py:MyUser", "py", "examples/my_user.py:MyUser", {"is_custom", "is_py"}),
        ("http://localhost:8000/act", "http", "//localhost:8000/act", {"is_custom", "is_http"}),
        ("local", "local", "", set()),
    ],
)
def test_a_spec_is_parsed_once_into_kind_and_argument(text, kind, arg, flags):
    spec = BackendSpec.parse(text)
    assert (spec.kind, spec.arg) == (kind, arg)
    for flag in ("is_scripted", "is_model", "is_human", "is_custom", "is_py", "is_http"):
        assert getattr(spec, flag) == (flag in flags), flag
    assert spec.model == (arg if kind == "openai" else None)
    assert BackendSpec.parse("openai/gpt-4o") == BackendSpec.parse("openai:gpt-4o")
    assert str(BackendSpec.parse("openai/gpt-4o")) == "openai:gpt-4o"  # as a session records it


def test_a_stored_cache_spec_names_its_backend():
    assert BackendSpec.parse("cache(local)").search_name == "local"
    assert BackendSpec.parse("tavily").search_name == "tavily"


def test_build_backends_makes_each_named_role_and_only_those():
    made = build_backends(
        RoleSpecs.of(agent="scripted:direct-guess", user="rule", judge="rule", search="cache(local)", deep_search="")
    )
    assert made.agent.spec == "scripted:direct-guess"
    assert (made.user.spec, made.judge.spec, made.search.spec) == ("rule", "rule", "local")
    assert made.deep_search is None  # none given: CTS's agent searches itself
    only = build_backends(RoleSpecs.of(judge="rule"))
    assert only.judge is not None and (only.agent, only.user, only.search) == (None, None, None)
    mine = object()
    assert (
        build_backends(RoleSpecs.of(agent="human", user="rule"), agent=mine).agent is mine
    )  # a person's, made by the TUI


@pytest.mark.parametrize(
    ("role", "text", "words"),
    [
        ("agent", "scripted:nope", "unknown scripted agent 'nope'; choose one of: "),
        ("agent", "openai", "openai agent needs a model: openai:MODEL"),
        ("agent", "gpt", "unknown agent spec 'gpt' (scripted:POLICY, openai:MODEL, human, py:FILE.py:NAME, "),
        ("user", "oracle", "unknown user spec 'oracle' (rule, openai:MODEL, human, py:... or http://...)"),
        ("judge", "gpt", "unknown judge spec 'gpt' (rule, openai:MODEL, py:... or http://...)"),
        ("search", "bing", "unknown search spec 'bing' (local, tavily or serper)"),
        ("search", "cache(bing)", "unknown search spec 'bing' (local, tavily or serper)"),
        (
            "deep_search",
            "rule",
            "unknown deep-search spec 'rule' (scripted:POLICY, openai:MODEL, py:... or http://...)",
        ),
    ],
)
def test_a_bad_spec_is_refused_in_the_words_users_know(role, text, words):
    with pytest.raises(SpecError) as refused:
        build_backends(RoleSpecs.of(**{role: text}))
    assert str(refused.value).startswith(words)


def _source_lines() -> list[tuple[str, int, str]]:
    out = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for n, line in enumerate(path.read_text().splitlines(), 1):
            out.append((rel, n, line))
    return out


def test_no_module_but_backends_makes_a_backend_from_a_spec():
    """Every entry point (run, what-if, the TUI, serve, import, judge, demo, provenance)
    goes through build_backends: a new role setting is one change, not seven."""
    maker = re.compile(r"\bmake_(agent|user|judge|search|deep_search)\b")
    found = [f"{f}:{n}" for f, n, line in _source_lines() if maker.search(line) and f != "clarify_tui/backends.py"]
    assert found == []


def test_no_module_splits_a_spec_string_by_hand():
    """`spec.split(":")[0] == "human"`, `startswith("py:")` and the like: BackendSpec's to say."""
    by_hand = re.compile(
        r'split\(":"\)\[0\]|startswith\(\(?"(py:|http://|openai|cache\()|(spec|agent|user) == "human"|'
        r'"openai:" \+ spec\[len\("openai/"\)'
    )
    allowed = {"clarify_tui/backend_spec.py"}
    found = [f"{f}:{n}: {line.strip()}" for f, n, line in _source_lines() if f not in allowed and by_hand.search(line)]
    assert found == []


def _documented_run_keywords() -> list[str]:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text.split("## `api.run(", 1)[1].split("It returns", 1)[0]
    names: list[str] = []
    for row in table.splitlines():
        if row.startswith("| `"):
            names += [m.split("(")[0] for m in re.findall(r"`([a-z_]+(?:\([a-z]*\))?)`", row.split("|")[1])]
    return names


def test_every_documented_run_keyword_reaches_the_run_request():
    documented = _documented_run_keywords()
    assert {"dataset", "user", "epochs", "resume", "episode", "agent_args", "on_start", "argv"} <= set(documented)
    run_params = set(inspect.signature(api.run).parameters)
    request_fields = {f.name for f in fields(RunRequest)}
    callbacks = {"on_start", "on_session_done", "on_banner", "notify"}
    assert set(documented) <= run_params
    assert set(documented) - callbacks <= request_fields
    assert run_params - callbacks == request_fields  # api.run takes what the request holds, no more
    assert RunRequest("interactcomp", "scripted:direct-guess").dataset == "demo"


def test_prepare_run_reads_its_keywords_into_the_request(tmp_path):
    prepared = api.prepare_run(
        "interactcomp", "scripted:direct-guess", db=tmp_path / "p.db", name="p", limit=2, epochs=3, seed=7
    )
    assert (prepared.spec.name, prepared.spec.epochs, prepared.spec.seed, len(prepared.tasks)) == ("p", 3, 7, 2)
    assert not (tmp_path / "p.db").exists()  # prepared, not played
    with pytest.raises(TypeError):
        api.prepare_run("interactcomp", "scripted:direct-guess", epoch=2)  # a misspelt keyword is not dropped


def test_a_request_played_is_the_run_of_its_keywords(tmp_path):
    db = tmp_path / "r.db"
    by_keywords = api.run("interactcomp", "scripted:direct-guess", db=db, name="k", limit=2, epochs=2)
    by_request = api.play(RunRequest("interactcomp", "scripted:direct-guess", db=db, name="q", limit=2, epochs=2))
    assert len(by_keywords.sessions) == len(by_request.sessions) == 4
    assert sorted(s.result.correct for s in by_keywords.sessions) == sorted(
        s.result.correct for s in by_request.sessions
    )


def test_a_sweep_prices_a_model_spelt_the_inspect_way():
    """`--agent openai/gpt-4o` is `openai:gpt-4o` (docs/agents.md): the sweep's plan counts its calls."""
    from types import SimpleNamespace

    from clarify_tui.models import EpisodeConfig
    from clarify_tui.sweep.estimate import model_roles

    spec = SimpleNamespace(agent="openai/gpt-4o", user="openai:gpt-4o-mini", judge="rule", config=EpisodeConfig())
    cell = SimpleNamespace(prepared=SimpleNamespace(spec=spec))
    assert model_roles(cell) == {"agent": "gpt-4o", "user": "gpt-4o-mini"}  # type: ignore[arg-type]


def test_an_import_records_the_settings_of_a_model_spelt_the_inspect_way(tmp_path, monkeypatch):
    """`import --user openai/MODEL` replays with that model: its provenance names the model, as `openai:MODEL`'s does."""
    from clarify_tui.config import load_config
    from clarify_tui.provenance import imported_provenance

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-sent")
    source = tmp_path / "c.jsonl"
    source.write_text("{}\n")
    row = {"agent": "import:cts", "user": "openai/u-model", "judge": "openai:j-model", "search": "local"}
    roles = imported_provenance(benchmark="cts", dataset="demo", source=source, row=row, config_obj=load_config(None))[
        "roles"
    ]
    assert (roles["user"]["model"], roles["judge"]["model"]) == ("u-model", "j-model")
    assert roles["agent"] == {"spec": "import:cts"}


def test_the_run_command_builds_the_request_itself_and_plays_it(tmp_path, monkeypatch, capsys):
    """`clarify-tui run` reads its flags into a `RunRequest` (commands/run.py `run_request`)
    and hands that to `api.play`: not twenty keywords through `api.run`."""
    from clarify_tui.cli import main

    played: list[RunRequest] = []
    real_play = api.play

    def play(request, **callbacks):
        played.append(request)
        assert set(callbacks) == {"on_banner", "on_start", "on_session_done", "notify"}
        return real_play(request, **callbacks)

    def keywords(*args, **kwargs):
        raise AssertionError("the command went through api.run's keywords")

    monkeypatch.setattr(api, "play", play)
    monkeypatch.setattr(api, "run", keywords)
    db = tmp_path / "c.db"
    argv = ["run", "--benchmark", "interactcomp", "--agent", "scripted:direct-guess", "--db", str(db), "--run", "c"]
    code = main([*argv, "--limit", "1", "--epochs", "2", "--seed", "7", "--search-cache", "off", "--concurrency", "1"])
    assert code == 0
    [request] = played
    assert (request.benchmark, request.agent, request.name, request.epochs, request.seed) == (
        "interactcomp",
        "scripted:direct-guess",
        "c",
        2,
        7,
    )
    assert (request.search_cache, request.concurrency, request.resume, request.take_over) == ("off", 1, False, False)
    assert len(Store(db).sessions(runs=["c"])) == 2  # one task, two epochs: played as asked
    assert "saved to" in capsys.readouterr().err


def test_every_request_field_is_read_from_a_run_flag():
    """A new `RunRequest` field without a `run` flag behind it would silently keep its default
    for the command (and every sweep cell)."""
    from clarify_tui.commands.run import episode_config, run_request
    from clarify_tui.commands.sweep import run_parser

    defaults = RunRequest("interactcomp", "scripted:direct-guess")
    args = run_parser().parse_args(
        ["--benchmark", "cts", "--agent", "scripted:ask-first", "--dataset", "demo", "--user", "rule",
         "--judge", "rule", "--search", "local", "--db", "x.db", "--run", "n", "--concurrency", "3",
         "--task-ids", "a,b", "--epochs", "2", "--seed", "5", "--resume", "--retry-errored",
         "--task-attempts", "2", "--search-cache", "off", "--config", "c.toml", "--set", "openai.timeout=3",
         "--agent-arg", "temperature=0", "--take-over"]
    )  # fmt: skip
    request = run_request(args, episode_config(args))
    unread = [
        f.name
        for f in fields(RunRequest)
        if getattr(request, f.name) == getattr(defaults, f.name)
        and f.name not in {"dataset", "user", "judge", "search"}
    ]
    assert unread == ["limit", "argv"]  # --limit not given here; argv is the cli's, not a flag
    assert request.overrides == {"openai": {"timeout": 3}} and request.task_ids == ["a", "b"]
