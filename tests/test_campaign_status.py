"""`clarify-tui queue status RUN`: per annotator done / in progress / skipped / remaining,
active time, accuracy with its interval; with K annotators per task, agreement and
Fleiss' kappa; and `score --by annotator` shows per-annotator confidence intervals."""

from __future__ import annotations

import asyncio
import json

import pytest

from clarify_tui.campaign.claims import Campaign, ClaimBook
from clarify_tui.cli import main as cli_main
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.metrics.intervals import agreement, pairwise_cohen, t_interval, wilson
from clarify_tui.models import Action, Session
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser
from tests.conftest import DOCS, IC, ListAgent

RUN = "camp"
TASKS = {f"t{i}": IC.model_copy(update={"id": f"t{i}"}) for i in range(5)}
RIGHT, WRONG = "Sapporo TV Tower", "Tokyo Tower"


def answer(store, task_id: str, who: str, text: str | None, active_ms: float = 60_000.0) -> Session:
    """A finished session (or, with text None, one left running after a search)."""
    task = TASKS[task_id]
    session = Session(
        run=RUN,
        task_id=task.id,
        protocol=task.protocol,
        agent="human",
        user="rule",
        search="local",
        judge="rule",
        mode="human_agent",
        annotator=who,
    )
    actions = [Action.search("tower")] + ([Action.answer(text, 80)] if text else [])
    episode = build_episode(
        task,
        agent=ListAgent(actions),
        user=RuleUser(),
        search=LocalSearch(DOCS),
        judge=RuleJudge(),
        session=session,
        sink=store,
    )

    async def go():
        for _ in actions:
            await episode.step()

    asyncio.run(go())
    if text:
        session.result.active_ms = active_ms
        store.finish_session(session)
    return session


@pytest.fixture
def campaign_db(tmp_path):
    """Five tasks, two annotators per task. ana: t0 right, t1 wrong, t2 right, t3 skipped,
    t4 claimed. bob: t0 right, t1 right, t2 right, t3 running. cy: t4 wrong."""
    db = tmp_path / "c.db"
    store = Store(db)
    book = ClaimBook(db, Campaign(run=RUN, task_ids=list(TASKS), per_task=2))
    book.register()
    for task, who, text in [
        ("t0", "ana", RIGHT),
        ("t1", "ana", WRONG),
        ("t2", "ana", RIGHT),
        ("t0", "bob", RIGHT),
        ("t1", "bob", RIGHT),
        ("t2", "bob", RIGHT),
        ("t4", "cy", WRONG),
    ]:
        answer(store, task, who, text)
    skipped = answer(store, "t3", "ana", None)
    skipped.status = "abandoned"
    store.update_session(skipped)
    answer(store, "t3", "bob", None)
    assert book.claim_next("ana").task_id == "t4"
    book.close()
    store.close()
    return db


def test_queue_status_per_annotator_and_agreement(campaign_db, capsys):
    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db), "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["tasks"], report["per_task"], report["tasks_complete"]) == (5, 2, 3)
    rows = {a["annotator"]: a for a in report["annotators"]}
    got = {who: (a["done"], a["in_progress"], a["skipped"], a["remaining"]) for who, a in rows.items()}
    # remaining: ana none (t3 skipped, t4 hers); bob none (t4: cy finished it, ana holds it);
    # cy t3 (bob left a running session without a claim, ana skipped it); t0..t2 are full
    assert got == {"ana": (3, 1, 1, 0), "bob": (3, 1, 0, 0), "cy": (1, 0, 0, 1)}
    assert rows["ana"]["active_ms"] == pytest.approx(180_000)
    assert rows["ana"]["accuracy"] == pytest.approx(2 / 3) and rows["ana"]["accuracy_ci95"] == pytest.approx(
        wilson(2, 3)
    )
    lo, hi = rows["bob"]["accuracy_ci95"]
    assert rows["bob"]["accuracy"] == 1.0 and 0.4 < lo < 0.5 and hi == pytest.approx(1.0)  # Wilson at 3/3
    # t0 both right, t1 split, t2 both right: Fleiss' kappa (0.75 - 0.53125) / (1 - 0.53125)
    a = report["agreement"]
    assert a["tasks"] == 3 and a["all_agree"] == pytest.approx(2 / 3)
    table = [[2, 0], [1, 1], [2, 0]]
    p_i = sum((sum(n * n for n in row) - 2) / 2 for row in table) / 3
    p_right = 5 / 6
    p_e = p_right**2 + (1 - p_right) ** 2
    assert a["fleiss_kappa"] == pytest.approx((p_i - p_e) / (1 - p_e))
    # ana and bob rated t0..t2: observed 2/3, chance 2/3 * 1 + 1/3 * 0 = 2/3, so Cohen's kappa 0
    pairs = {tuple(p["annotators"]): p for p in a["pairs"]}
    assert pairs[("ana", "bob")]["tasks"] == 3 and pairs[("ana", "bob")]["cohen_kappa"] == pytest.approx(0.0)

    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db)]) == 0
    out = capsys.readouterr().out
    assert "ana" in out and "[0.21, 0.94]" in out and "Fleiss' kappa" in out and "3 complete" in out
    assert "ana & bob: Cohen's kappa 0.000 over 3 shared task(s)" in out


def test_queue_status_needs_the_dataset_for_a_tui_only_queue(tmp_path, capsys):
    db = tmp_path / "tui.db"
    Store(db).close()
    assert cli_main(["queue", "status", "hb", "--db", str(db)]) == 2
    assert "--dataset" in capsys.readouterr().err
    assert cli_main(["queue", "status", "hb", "--db", str(db), "--dataset", "demo", "--benchmark", "interactcomp"]) == 0
    assert "nobody has played" in capsys.readouterr().out


def test_pairwise_cohen_kappa_by_hand():
    # a / b: both right, a right b wrong, both wrong -> observed 2/3, chance 2/3*1/3 + 1/3*2/3
    got = pairwise_cohen(
        {
            "t0": {"a": True, "b": True},
            "t1": {"a": True, "b": False},
            "t2": {"a": False, "b": False},
            "t3": {"c": True, "a": True},
        }
    )
    assert [(p["annotators"], p["tasks"]) for p in got] == [(["a", "b"], 3), (["a", "c"], 1)]
    assert got[0]["cohen_kappa"] == pytest.approx((2 / 3 - 4 / 9) / (1 - 4 / 9))
    assert got[1]["cohen_kappa"] is None  # one shared task
    assert pairwise_cohen({"t0": {"a": True, "b": True}, "t1": {"a": True, "b": True}})[0]["cohen_kappa"] is None


def test_intervals_and_agreement_edges():
    assert wilson(0, 0) is None and t_interval([50.0]) is None
    lo, hi = wilson(0, 10)
    assert lo == pytest.approx(0.0, abs=1e-12) and 0.2 < hi < 0.35
    assert t_interval([40.0, 40.0, 40.0]) == [40.0, 40.0]
    assert agreement({"a": [True, True], "b": [True, True]}, 2)["fleiss_kappa"] is None  # no variation
    assert agreement({"a": [True]}, 2) == {"tasks": 0, "all_agree": None, "fleiss_kappa": None}


def test_score_by_annotator_shows_confidence_intervals(campaign_db, capsys):
    assert cli_main(["score", "--db", str(campaign_db), "--by", "annotator", "--format", "json"]) == 0
    groups = {g["key"]["annotator"]: g["metrics"] for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups["ana"]["accuracy_ci95"] == pytest.approx(wilson(2, 3))
    assert groups["cy"]["accuracy_ci95"] == pytest.approx(wilson(0, 1))
    assert cli_main(["score", "--db", str(campaign_db), "--by", "annotator"]) == 0
    out = capsys.readouterr().out
    assert "95% CI (Wilson)" in out and "[0.208, 0.939]" in out  # ana: 2 of 3
    assert cli_main(["score", "--db", str(campaign_db), "--by", "run", "--format", "json"]) == 0
    assert "accuracy_ci95" not in capsys.readouterr().out  # only per annotator


async def test_scores_screen_by_annotator_shows_the_intervals(campaign_db, tmp_path):
    from textual.widgets import DataTable

    from clarify_tui.tui.app import ClarifyApp
    from clarify_tui.tui.screens.scores import ScoresScreen

    store = Store(campaign_db)
    app = ClarifyApp(store=store, tasks=[])
    async with app.run_test(size=(160, 50)) as pilot:
        await app.push_screen(ScoresScreen(store, by="annotator"))
        for _ in range(100):
            await pilot.pause(0.05)
            tables = list(app.screen.query(DataTable))
            if tables and tables[0].row_count:
                break
        table = tables[0]
        rows = [[str(c) for c in table.get_row_at(i)] for i in range(table.row_count)]
        ci = next(r for r in rows if "95% CI" in r[0])
        assert "[0.208, 0.939]" in ci  # ana: 2 of 3
        app.save_screenshot(str(tmp_path / "scores-by-annotator.svg"))


def test_a_task_played_twice_by_one_annotator_counts_once_in_queue_status_and_score(campaign_db, capsys):
    """ana plays t0 again (the browser after the TUI, one name): the earliest session counts,
    with a warning, in `queue status` and `score` alike (docs/scoring.md)."""
    store = Store(campaign_db)
    again = answer(store, "t0", "ana", WRONG)
    store.close()
    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db), "--format", "json"]) == 0
    captured = capsys.readouterr()
    ana = next(a for a in json.loads(captured.out)["annotators"] if a["annotator"] == "ana")
    assert (ana["done"], ana["graded"], ana["correct"]) == (3, 3, 2)  # not 4 graded
    assert f"left out {again.id}" in captured.err
    assert cli_main(["score", "--db", str(campaign_db), "--by", "annotator", "--format", "json"]) == 0
    captured = capsys.readouterr()
    group = next(g for g in json.loads(captured.out)["groups"] if g["key"]["annotator"] == "ana")
    assert group["n_sessions"] == 3 and group["metrics"]["accuracy"] == pytest.approx(ana["accuracy"])
    assert f"left out {again.id}" in captured.err


def test_a_visitors_own_progress_counts_as_queue_status_does(campaign_db):
    """`annotator_progress` (what a visitor's status line reads at every task, without
    validating the other annotators' sessions) gives each annotator queue status's counts,
    also after a task played twice, a running session after a completed one, and a claim."""
    from clarify_tui.campaign.status import annotator_progress, campaign_status

    def both_agree() -> None:
        report = campaign_status(campaign_db, RUN, list(TASKS), 2)
        assert {a["annotator"] for a in report["annotators"]} == {"ana", "bob", "cy"}
        for row in report["annotators"]:
            mine = annotator_progress(campaign_db, RUN, list(TASKS), 2, row["annotator"])
            assert (mine.done, mine.skipped, mine.in_progress, mine.remaining) == (
                row["done"],
                row["skipped"],
                row["in_progress"],
                row["remaining"],
            ), row["annotator"]

    both_agree()  # ana: 3 done (t0-t2), 1 skipped, t4 claimed; bob: 3 done, t3 running; cy: t4 done
    store = Store(campaign_db)
    answer(store, "t0", "ana", WRONG)  # completed twice: the later one is left out
    answer(store, "t4", "cy", None)  # running after a completed session of the same task
    answer(store, "t3", "cy", RIGHT)
    store.close()
    both_agree()
    dan = annotator_progress(campaign_db, RUN, list(TASKS), 2, "dan")  # new: only t3 has fewer than 2 others
    assert (dan.done, dan.in_progress, dan.remaining) == (0, 0, 1)


def test_queue_status_says_how_many_more_tasks_narrow_the_baselines_ci(campaign_db, capsys):
    """Campaign planning (issue 33): the pooled human baseline is 5 of 7 graded sessions right
    (ana 2/3, bob 3/3, cy 0/1); the tasks still needed for a 95% Wilson CI 0.3 wide, at the
    same accuracy and two annotators a task, and each annotator's own."""
    from clarify_tui.metrics.stats import wilson_interval

    def needed(p: float, width: float) -> int:  # by brute force, over the interval `score` prints
        n = 1
        while (lambda lo_hi: lo_hi[1] - lo_hi[0])(wilson_interval(p * n, n)) > width:
            n += 1
        return n

    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db), "--format", "json", "--ci-width", "0.3"]) == 0
    status = json.loads(capsys.readouterr().out)
    plan = status["planning"]
    assert plan["ci_width"] == 0.3 and "accuracy stays" in plan["assumption"]
    n = needed(5 / 7, 0.3)
    base = plan["baseline"]
    assert (base["graded"], base["sessions_needed"]) == (7, n) and base["accuracy"] == pytest.approx(5 / 7)
    assert base["more_tasks"] == -(-(n - 7) // 2) > 0
    assert plan["annotators"]["ana"]["more_tasks"] == needed(2 / 3, 0.3) - 3
    assert plan["annotators"]["cy"]["more_tasks"] == needed(0.0, 0.3) - 1

    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db), "--ci-width", "0.3"]) == 0
    out = capsys.readouterr().out
    assert f"for 0.3: about {base['more_tasks']} more tasks at 2 annotator(s) per task ({n} graded sessions" in out
    assert "human baseline: accuracy 0.71 over 7 graded sessions" in out
    ana, bob, cy = (plan["annotators"][w]["more_tasks"] for w in ("ana", "bob", "cy"))
    assert (
        f"each annotator's own CI 0.3 wide, at their accuracy so far: ana {ana}, bob {bob}, cy {cy} more tasks" in out
    )
    # the default width is said, and a width that is no width is refused in one line
    assert cli_main(["queue", "status", RUN, "--db", str(campaign_db)]) == 0
    assert "for 0.2: about" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        cli_main(["queue", "status", RUN, "--db", str(campaign_db), "--ci-width", "2"])
    assert "between 0 and 1" in capsys.readouterr().err
