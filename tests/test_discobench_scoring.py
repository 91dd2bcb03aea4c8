"""DiscoBench scoring rules from paper 000: data-driven profile K (appendix E, line 421),
no detection on the original-question ablation (§5.5), the DiscoBench equivalence prompt
(B.1, line 293). Sessions are played through the engine into a real database."""

from __future__ import annotations

import json

import pytest

from clarify_tui.cli import main
from clarify_tui.llm.prompts import template
from clarify_tui.metrics import score
from clarify_tui.models import Action, EpisodeConfig
from clarify_tui.paths import prompts_dir
from clarify_tui.store import Store
from tests.test_metrics import DISCO, DISCO_SESSIONS, SANDROCK, play

# Two successful no-ask ambiguous checkpoints with 1 and 3 searches -> K = median = 2.
ONE = [Action.search("Pathea"), Action.answer(SANDROCK), Action.answer("Focus Entertainment")]
THREE = [Action.search("Pathea"), Action.search("Pathea game"), Action.search("Pathea award"),
         Action.answer(SANDROCK), Action.answer("Focus Entertainment")]


def group(report, run):
    [g] = [g for g in report["groups"] if g["key"] == {"run": run}]
    return g["metrics"]


async def test_profile_k_is_the_median_of_the_groups_successful_no_ask_ambiguous_checkpoints(tmp_path):
    store = Store(tmp_path / "k.db")
    for actions in (ONE, THREE):
        await play(store, DISCO, actions, run="a")
    await play(store, DISCO, DISCO_SESSIONS["C"], run="b")  # one checkpoint, 5 searches -> K = 5
    await play(store, DISCO, DISCO_SESSIONS["G"], run="c")  # asked: no successful no-ask checkpoint
    report = score(store)
    a, b, c = group(report, "a"), group(report, "b"), group(report, "c")
    assert (a["profile_k"], a["profile_k_source"]) == (2, "data")
    assert a["checkpoint_modes"] == {"answer": 2}
    # K = 2: the 3-search checkpoint is search-heavy, the 1-search one a direct guess
    assert a["profiles"]["search_heavy_guess"]["n"] == 1 and a["profiles"]["direct_guess"]["n"] == 1
    assert (b["profile_k"], b["profiles"]["direct_guess"]["n"]) == (5, 1)
    assert (c["profile_k"], c["profile_k_source"]) == (3, "paper_default")
    forced = group(score(store, profile_k=3), "a")
    assert (forced["profile_k"], forced["profile_k_source"]) == (3, "override")
    assert forced["profiles"]["search_heavy_guess"]["n"] == 0 and forced["profiles"]["direct_guess"]["n"] == 2


def test_score_cli_reports_the_k_it_used_and_profile_k_overrides(tmp_path, capsys):
    import asyncio

    db = tmp_path / "cli.db"
    store = Store(db)
    for actions in (ONE, THREE):
        asyncio.run(play(store, DISCO, actions, run="a"))
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    assert (m["profile_k"], m["profile_k_source"]) == (2, "data")
    assert main(["score", "--db", str(db), "--format", "json", "--profile-k", "4"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    assert (m["profile_k"], m["profile_k_source"]) == (4, "override")
    assert m["profiles"]["direct_guess"]["n"] == 2
    assert main(["score", "--db", str(db)]) == 0
    assert "K = a: 2 (data)" in " ".join(capsys.readouterr().out.split())


async def test_the_original_question_ablation_has_null_detection_metrics(tmp_path):
    store = Store(tmp_path / "o.db")
    original = EpisodeConfig(ablation="original_question")
    for name in ("A", "D", "H"):
        await play(store, DISCO, DISCO_SESSIONS[name], run="orig", config=original)
        await play(store, DISCO, DISCO_SESSIONS[name], run="ambiguous")
    orig, amb = group(score(store), "orig"), group(score(store), "ambiguous")
    for key in ("detection_accuracy", "detection_precision", "detection_recall", "detection_f1", "ce_a", "ce_b"):
        assert orig[key] is None, key
        assert amb[key] is not None, key
    assert all(p["share"] is None for p in orig["profiles"].values())
    assert orig["detection_excluded"] == 3 and amb["detection_excluded"] == 0
    assert orig["accuracy"] == amb["accuracy"] == pytest.approx(2 / 3)  # utility is still scored


def test_the_discobench_equivalence_prompt_covers_b1_and_says_the_paper_does_not_publish_it():
    header = (prompts_dir() / "discobench_equivalence_judge.txt").read_text(encoding="utf-8")
    assert "does NOT publish" in header and "line 293" in header
    body = template("discobench_equivalence_judge")
    for form in ("Transliterations", "Date and number formats", "order of items in a list"):
        assert form in body
    assert "impartial grader" not in body


async def test_score_says_which_checkpoint_protocol_its_sessions_used(tmp_path):
    store = Store(tmp_path / "m.db")
    await play(store, DISCO, ONE, run="mixed")
    await play(store, DISCO, [Action.search(SANDROCK), Action.answer("Focus Entertainment")], run="mixed",
               config=EpisodeConfig(checkpoints="trajectory"))
    m = group(score(store), "mixed")
    assert m["checkpoint_modes"] == {"answer": 1, "trajectory": 1}
    assert m["checkpoint_pass_rate"] == 1.0  # both pass 2/2, each by its own rule
