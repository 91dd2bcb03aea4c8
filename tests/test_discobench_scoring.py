"""DiscoBench scoring rules from paper 000: profile K = 3 for all, or one data-driven K for
all groups (appendix E, line 421),
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
THREE = [
    Action.search("Pathea"),
    Action.search("Pathea game"),
    Action.search("Pathea award"),
    Action.answer(SANDROCK),
    Action.answer("Focus Entertainment"),
]


def group(report, run):
    [g] = [g for g in report["groups"] if g["key"] == {"run": run}]
    return g["metrics"]


async def test_profile_k_is_the_papers_3_for_every_group_by_default(tmp_path):
    """Appendix E line 421: "The threshold K=3" — one K for all nine models."""
    store = Store(tmp_path / "k.db")
    for actions in (ONE, THREE):
        await play(store, DISCO, actions, run="a")
    await play(store, DISCO, DISCO_SESSIONS["C"], run="b")  # one checkpoint, 5 searches
    report = score(store, profile_subset="all")  # each group's own checkpoints (the subset: below)
    a, b = group(report, "a"), group(report, "b")
    assert (a["profile_k"], a["profile_k_source"]) == (3, "paper") == (b["profile_k"], b["profile_k_source"])
    assert a["checkpoint_modes"] == {"answer": 2}
    assert a["profiles"]["search_heavy_guess"]["n"] == 0 and a["profiles"]["direct_guess"]["n"] == 2
    assert b["profiles"]["search_heavy_guess"]["n"] == 1


async def test_a_data_driven_k_is_one_value_over_all_groups_scored_together(tmp_path):
    """Appendix E line 421 ("the median search count among successful no-ask trajectories"),
    over every group at once: groups with their own K would not be comparable."""
    store = Store(tmp_path / "k.db")
    for actions in (ONE, THREE):
        await play(store, DISCO, actions, run="a")
    await play(store, DISCO, DISCO_SESSIONS["C"], run="b")  # 5 searches: median of 1, 3, 5 = 3
    await play(store, DISCO, DISCO_SESSIONS["G"], run="c")  # asked: adds nothing to the median
    report = score(store, profile_k="data", profile_subset="all")
    ks = {run: (group(report, run)["profile_k"], group(report, run)["profile_k_source"]) for run in "abc"}
    assert ks == {"a": (3, "data"), "b": (3, "data"), "c": (3, "data")}
    only_a = score(store, runs=["a"], profile_k="data")
    assert (group(only_a, "a")["profile_k"], group(only_a, "a")["profile_k_source"]) == (2, "data")
    assert group(only_a, "a")["profiles"]["search_heavy_guess"]["n"] == 1
    none = score(store, runs=["c"], profile_k="data")  # no successful no-ask checkpoint: the paper's 3
    assert (group(none, "c")["profile_k"], group(none, "c")["profile_k_source"]) == (3, "paper")
    forced = group(score(store, profile_k=2), "a")
    assert (forced["profile_k"], forced["profile_k_source"]) == (2, "override")


def test_score_cli_reports_the_k_it_used_and_profile_k_sets_it(tmp_path, capsys):
    import asyncio

    db = tmp_path / "cli.db"
    store = Store(db)
    for actions in (ONE, THREE):
        asyncio.run(play(store, DISCO, actions, run="a"))
    assert main(["score", "--db", str(db), "--format", "json"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    assert (m["profile_k"], m["profile_k_source"]) == (3, "paper")
    assert main(["score", "--db", str(db), "--format", "json", "--profile-k", "data"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    assert (m["profile_k"], m["profile_k_source"]) == (2, "data")
    assert main(["score", "--db", str(db), "--format", "json", "--profile-k", "4"]) == 0
    m = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]
    assert (m["profile_k"], m["profile_k_source"]) == (4, "override")
    assert m["profiles"]["direct_guess"]["n"] == 2
    assert main(["score", "--db", str(db)]) == 0
    assert "K = a: 3 (paper)" in " ".join(capsys.readouterr().out.split())
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--db", str(db), "--profile-k", "-1"])
    assert exit_.value.code == 2 and "--profile-k" in capsys.readouterr().err


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
    await play(
        store,
        DISCO,
        [Action.search(SANDROCK), Action.answer("Focus Entertainment")],
        run="mixed",
        config=EpisodeConfig(checkpoints="trajectory"),
    )
    m = group(score(store), "mixed")
    assert m["checkpoint_modes"] == {"answer": 1, "trajectory": 1}
    assert m["checkpoint_pass_rate"] == 1.0  # both pass 2/2, each by its own rule


async def test_profiles_default_to_the_papers_common_subset_and_say_so(tmp_path, capsys):
    """Tables 3 and 5 of paper 000 count the "common subset (N=146 ambi-CPs)" reached by
    every compared model (appendix E, line 429). Run b never played task d2: its ambiguous
    checkpoint leaves run a's profiles too, unless --profile-subset all."""
    d2 = DISCO.model_copy(update={"id": "d2"})
    store = Store(tmp_path / "c.db")
    await play(store, DISCO, ONE, run="a")
    await play(store, d2, DISCO_SESSIONS["C"], run="a")  # 5 searches: search-heavy
    await play(store, DISCO, DISCO_SESSIONS["G"], run="b")  # asked first
    common = score(store)
    a, b = group(common, "a"), group(common, "b")
    assert (a["profile_subset"], a["profile_n"]) == ("common", 1) == (b["profile_subset"], b["profile_n"])
    assert a["profiles"]["direct_guess"]["n"] == 1 and a["profiles"]["search_heavy_guess"]["n"] == 0
    own = group(score(store, profile_subset="all"), "a")
    assert (own["profile_subset"], own["profile_n"]) == ("all", 2)
    assert own["profiles"]["search_heavy_guess"]["n"] == 1
    alone = group(score(store, runs=["a"]), "a")  # one group: the subset is all it reached
    assert (alone["profile_subset"], alone["profile_n"]) == ("all", 2)
    store.close()
    assert main(["score", "--db", str(tmp_path / "c.db")]) == 0
    out = capsys.readouterr().out
    assert "the common subset: the 1 reached ambiguous checkpoint(s) every group reached" in " ".join(out.split())
