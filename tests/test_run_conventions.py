"""Conventions researchers bring from Inspect and tau2 (issue 25): --epochs (the epoch is
part of a session's identity: resume counts per task and epoch; score reports mean, std
over epochs and pass^k), --task-ids, openai/MODEL, .env, --version, the progress line off
a terminal, the summary saying where it saved, the Python API."""

from __future__ import annotations

import json
import os

import pytest

from clarify_tui import api
from clarify_tui.backends import normalize
from clarify_tui.cli import load_dotenv, main
from clarify_tui.metrics.epochs import pass_hat_k
from clarify_tui.store import Store
from tests.clitools import cli_env, run_cli


def test_epochs_play_each_task_n_times_and_resume_counts_per_task_and_epoch(tmp_path, capsys):
    db = tmp_path / "e.db"
    base = [
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
        "--run",
        "e",
        "--limit",
        "2",
    ]
    assert main([*base, "--epochs", "2"]) == 0
    sessions = Store(db).sessions(runs=["e"])
    assert sorted((s.task_id, s.epoch) for s in sessions) == sorted(
        (t, e) for t in {s.task_id for s in sessions} for e in (0, 1)
    )
    capsys.readouterr()
    assert main([*base, "--epochs", "3", "--resume"]) == 0  # one more epoch: only that is played
    assert "already done (resumed)" in capsys.readouterr().err
    assert len(Store(db).sessions(runs=["e"])) == 6
    report = api.score(db, runs=["e"])
    ep = report["groups"][0]["metrics"]["epochs"]
    assert ep["n_epochs"] == 3 and set(ep["pass_k"]) == {"1", "2", "3"} and ep["std"] >= 0
    code, out, _ = run_cli("score", "--db", str(db), "--run", "e")
    assert code == 0 and "3 epochs, mean" in out and "pass^3" in out


def test_pass_hat_k_is_tau_benchs_estimator():
    outcomes = {"a": [True, True, False, True], "b": [False, False, False, False]}
    assert pass_hat_k(outcomes, 1) == pytest.approx((3 / 4 + 0) / 2)
    assert pass_hat_k(outcomes, 2) == pytest.approx((3 / 6 + 0) / 2)  # C(3,2)/C(4,2)
    assert pass_hat_k(outcomes, 4) == 0.0 and pass_hat_k(outcomes, 5) is None


def test_task_ids_pick_tasks_in_order_and_name_an_unknown_one(tmp_path, capsys):
    db = tmp_path / "t.db"
    ids = [t.id for t in __import__("clarify_tui.tasks", fromlist=["load_tasks"]).load_tasks("discobench", "demo")]
    pick = [ids[2], ids[0]]
    assert (
        main(
            [
                "run",
                "--benchmark",
                "discobench",
                "--agent",
                "scripted:ask-first",
                "--db",
                str(db),
                "--run",
                "t",
                "--task-ids",
                ",".join(pick),
            ]
        )
        == 0
    )
    assert {s.task_id for s in Store(db).sessions(runs=["t"])} == set(pick)
    assert (
        main(
            [
                "run",
                "--benchmark",
                "discobench",
                "--agent",
                "scripted:ask-first",
                "--db",
                str(db),
                "--run",
                "u",
                "--task-ids",
                f"{ids[0]},nope",
            ]
        )
        == 2
    )
    assert "--task-ids: no task 'nope' in the dataset" in capsys.readouterr().err


def test_openai_slash_model_is_openai_colon_model_and_dotenv_never_overrides(tmp_path, monkeypatch):
    assert normalize("openai/gpt-4o") == "openai:gpt-4o" and normalize("scripted:ask-first") == "scripted:ask-first"
    env = tmp_path / ".env"
    env.write_text("# keys\nI25_NEW=from-file\nexport I25_QUOTED='quoted value'\nI25_SET=from-file\n", encoding="utf-8")
    monkeypatch.setenv("I25_SET", "from-shell")
    monkeypatch.delenv("I25_NEW", raising=False)
    monkeypatch.delenv("I25_QUOTED", raising=False)
    assert sorted(load_dotenv(env)) == ["I25_NEW", "I25_QUOTED"]
    assert os.environ["I25_NEW"] == "from-file" and os.environ["I25_QUOTED"] == "quoted value"
    assert os.environ["I25_SET"] == "from-shell"


def test_dotenv_in_the_working_directory_reaches_an_openai_agent(tmp_path):
    """`openai/MODEL` with the key only in ./.env: the run gets past the key check."""
    (tmp_path / ".env").write_text("OPENAI_API_KEY=sk-from-dotenv\n", encoding="utf-8")
    code, _, err = run_cli(
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "openai/gpt-x",
        "--limit",
        "1",
        "--db",
        str(tmp_path / "x.db"),
        "--set",
        "openai.base_url='http://127.0.0.1:9'",
        "--set",
        "openai.max_retries=0",
        "--set",
        "openai.timeout=2",
        "--task-attempts",
        "1",
        cwd=tmp_path,
    )
    assert code == 1 and "needs an API key" not in err and "1 errored" in err, (
        err
    )  # some session errored: exit 1 (docs/runs.md, exit codes)
    code, _, err = run_cli(
        "run", "--benchmark", "interactcomp", "--agent", "openai/gpt-x", "--limit", "1", "--db", str(tmp_path / "y.db")
    )  # no .env here (cwd is the repo): refused
    assert code == 2 and "needs an API key" in err


def test_version_and_plain_progress_lines_when_not_a_terminal(tmp_path):
    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == "clarify-tui 0.1.0"
    db = tmp_path / "p.db"
    code, _, err = run_cli(
        "run",
        "--benchmark",
        "interactcomp",
        "--agent",
        "scripted:direct-guess",
        "--db",
        str(db),
        "--run",
        "p",
        "--limit",
        "3",
        env=cli_env(CLARIFY_PROGRESS_EVERY="0"),
    )
    assert code == 0, err
    lines = [line for line in err.splitlines() if line.startswith("p: ")]
    assert len(lines) >= 3 and "3/3 sessions, 0 errored" in lines[-1] and "/s, ETA" in lines[-1]
    assert f"saved to {db} (run p)" in err


def test_the_python_api_runs_and_scores_as_the_cli_does(tmp_path):
    db = tmp_path / "a.db"
    result = api.run("discobench", "scripted:search-then-ask", db=db, name="api", limit=3)
    assert result.name == "api" and result.db == db and len(result.completed) == 3
    code, out, err = run_cli("score", "--db", str(db), "--run", "api", "--format", "json")
    assert code == 0, err
    assert api.score(db, runs=["api"]) == json.loads(out)


class NotebookAgent:
    """An agent defined in a notebook cell: given to api.run as an object."""

    def act(self, view):
        from clarify_tui import Action

        return Action.answer("Tokyo Tower", confidence=90) if "answer" in view.allowed else Action.search(view.question)


def test_api_run_takes_an_agent_object_and_records_it_as_a_py_spec(tmp_path):
    db = tmp_path / "o.db"
    result = api.run(
        "interactcomp", NotebookAgent(), db=db, name="nb", limit=2, episode={"interactcomp_mode": "answer_only"}
    )
    assert len(result.completed) == 2
    assert {s.agent for s in result.sessions} == {f"py:{__name__}:NotebookAgent"}
    report = api.score(db, runs=["nb"])
    assert report["groups"][0]["n_sessions"] == 2
    with pytest.raises(ValueError, match="not an agent"):
        api.run("interactcomp", object(), db=db, name="bad", limit=1)


def test_a_fork_keeps_its_parents_epoch(tmp_path):
    from clarify_tui.backends import make_agent, make_judge, make_search, make_user
    from clarify_tui.sessions_ops import fork_session

    db = tmp_path / "f.db"
    api.run("interactcomp", "scripted:search-then-ask", db=db, name="f", limit=1, epochs=2)
    store = Store(db)
    parent = next(s for s in store.sessions(runs=["f"]) if s.epoch == 1)
    episode = fork_session(
        store,
        parent.id,
        0,
        agent=make_agent("scripted:direct-guess"),
        user=make_user("rule"),
        search=make_search("local"),
        judge=make_judge("rule"),
    )
    assert episode.session.epoch == 1 and episode.session.parent_id == parent.id


def test_two_epochs_of_one_task_are_two_sessions_but_a_copy_of_one_counts_once(tmp_path):
    """metrics/once.py's key includes the epoch: epochs are not duplicates; a copy is."""
    from clarify_tui.metrics.once import count_once

    db = tmp_path / "c.db"
    api.run("interactcomp", "scripted:direct-guess", db=db, name="c", limit=1, epochs=2)
    sessions = Store(db).sessions(runs=["c"])
    kept, dropped = count_once(sessions)
    assert len(kept) == 2 and not dropped
    copy = sessions[1].model_copy(update={"id": "copy-of-epoch-1", "created_at": "9999"})
    kept, dropped = count_once([*sessions, copy])
    assert len(kept) == 2 and [d.left_out.id for d in dropped] == ["copy-of-epoch-1"]
    assert "epoch 1: completed twice" in dropped[0].describe()


def test_the_example_of_docs_api_md_runs_as_printed(tmp_path, monkeypatch, capsys):
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parent.parent / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sessions").mkdir()
    exec(compile(code, "docs/api.md", "exec"), {"__name__": "notebook"})
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("nb sessions/nb.db 33 0")  # 11 demo tasks x 3 epochs, none errored
    assert "'n_epochs': 3" in out[1]


def test_seed_reaches_the_scripted_coin_flip_agent_its_epochs_differ_and_a_rerun_repeats_them(tmp_path, capsys):
    """--seed reaches the scripted agents (issue 25): coin-flip's coin is seeded by it, the
    task, the epoch and the move. Same seed: the same trajectories; another seed or another
    epoch: other ones."""

    def moves(seed: int, name: str) -> dict[tuple[str, int], list[str]]:
        db = tmp_path / f"{name}.db"
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    "scripted:coin-flip",
                    "--db",
                    str(db),
                    "--run",
                    "c",
                    "--epochs",
                    "2",
                    "--seed",
                    str(seed),
                ]
            )
            == 0
        )
        store = Store(db)
        return {
            (s.task_id, s.epoch): [step.action.kind.value for step in store.steps(s.id)]
            for s in store.sessions(runs=["c"])
        }

    first, again, other = moves(7, "a"), moves(7, "b"), moves(8, "c")
    capsys.readouterr()
    assert first == again
    assert first != other
    tasks = {task for task, _ in first}
    assert any(first[(t, 0)] != first[(t, 1)] for t in tasks)  # the epochs are not copies
    kinds = [kind for steps in first.values() for kind in steps]
    assert "ask" in kinds and "answer" in kinds  # both sides of the coin came up
    openers = {steps[0] for steps in first.values()}
    assert openers == {"ask", "search"}  # ask-first asks first, direct-guess searches first


def test_dotenv_inline_comments_are_not_part_of_the_value(tmp_path, monkeypatch):
    """`OPENAI_API_KEY=sk-… # work` sent the comment as part of the key."""
    env = tmp_path / ".env"
    env.write_text(
        "R3_KEY=sk-abc123 # work\nR3_HASH='sk-#kept' # quoted keeps its #\nR3_URL=http://h/#frag\n", encoding="utf-8"
    )
    for key in ("R3_KEY", "R3_HASH", "R3_URL"):
        monkeypatch.delenv(key, raising=False)
    assert sorted(load_dotenv(env)) == ["R3_HASH", "R3_KEY", "R3_URL"]
    assert os.environ["R3_KEY"] == "sk-abc123" and os.environ["R3_HASH"] == "sk-#kept"
    assert os.environ["R3_URL"] == "http://h/#frag"


def test_dotenv_is_found_in_a_parent_up_to_the_repository_root_and_verbose_names_it(tmp_path):
    repo = tmp_path / "lab"
    (repo / ".git").mkdir(parents=True)
    (repo / ".env").write_text("R3_PARENT_KEY=from-the-repo-root\n", encoding="utf-8")
    (tmp_path / ".env").write_text("R3_OUTSIDE=never\n", encoding="utf-8")  # above the repository: not read
    deep = repo / "experiments" / "ic"
    deep.mkdir(parents=True)
    from clarify_tui.envfile import find_dotenv

    assert find_dotenv(deep) == repo / ".env"
    assert find_dotenv(tmp_path / "lab" / ".git") == repo / ".env"
    loose = tmp_path / "loose"  # not in a repository: only the working directory
    loose.mkdir()
    assert find_dotenv(loose) is None
    code, _, err = run_cli("--verbose", "datasets", cwd=deep)
    assert code == 0 and f"read {repo / '.env'}: set R3_PARENT_KEY" in err, err


def test_limit_a_to_b_takes_tasks_a_to_b_in_run_queue_and_campaign(tmp_path, capsys):
    """`--limit 2-3`: tasks 2 to 3, 1-based and inclusive, as Inspect's --limit."""
    from clarify_tui.argtypes import TaskRange, task_limit
    from clarify_tui.campaign.visitor import campaign_tasks
    from clarify_tui.store import Store
    from clarify_tui.tasks import load_tasks
    from clarify_tui.tui.screens.play_queue import QueueSpec

    ids = [t.id for t in load_tasks("interactcomp", "demo")]
    db = tmp_path / "l.db"
    assert (
        main(
            [
                "run",
                "--benchmark",
                "interactcomp",
                "--agent",
                "scripted:direct-guess",
                "--db",
                str(db),
                "--limit",
                "2-3",
            ]
        )
        == 0
    )
    store = Store(db, readonly=True)
    assert sorted(s.task_id for s in store.sessions()) == sorted(ids[1:3])
    store.close()
    assert [
        t.id
        for t in QueueSpec(run="q", annotator="ana", limit=task_limit("2-3")).tasks(load_tasks("interactcomp", "demo"))
    ] == ids[1:3]
    campaign, _ = campaign_tasks("c", "demo", "interactcomp", TaskRange(3, 4), None, 1)
    assert campaign.task_ids == ids[2:4]
    assert task_limit("4") == 4
    capsys.readouterr()
    for bad in ("3-1", "0-2", "a-b"):
        with pytest.raises(SystemExit) as exit_:
            main(
                [
                    "run",
                    "--benchmark",
                    "interactcomp",
                    "--agent",
                    "scripted:direct-guess",
                    "--db",
                    str(db),
                    "--limit",
                    bad,
                ]
            )
        assert exit_.value.code == 2 and "argument --limit: expected" in capsys.readouterr().err
