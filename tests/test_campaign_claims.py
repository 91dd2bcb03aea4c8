"""Campaign queue claims across processes (clarify_tui.campaign.claims): who gets which
task, resuming, the claim timeout, K annotators per task, skips, and 8 simulated
annotator processes writing one database at once (no lost step, no duplicate claim)."""

from __future__ import annotations

import asyncio
import multiprocessing
import sqlite3
import time

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.campaign.claims import Campaign, Claim, ClaimBook, NoTask, OpenElsewhere, live_claims, load_campaign
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import Session
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser
from tests.conftest import DOCS, IC

RUN = "camp"
TASKS = {f"t{i:02d}": IC.model_copy(update={"id": f"t{i:02d}"}) for i in range(24)}


def campaign(n: int = 3, per_task: int = 1) -> Campaign:
    return Campaign(run=RUN, task_ids=list(TASKS)[:n], per_task=per_task)


def book(db, n: int = 3, per_task: int = 1, timeout: float = 300.0) -> ClaimBook:
    Store(db).close()  # the sessions table; closed, so no connection crosses the fork below
    b = ClaimBook(db, campaign(n, per_task), timeout=timeout)
    b.register()
    return b


def play(store: Store, task_id: str, annotator: str, *, finish: bool = True, search=None) -> tuple[str, int]:
    """A scripted stand-in for a person: the session is recorded under `annotator`.
    Returns (session id, steps written). `finish=False` leaves it running after one step."""
    task = TASKS[task_id]
    session = Session(
        run=RUN,
        task_id=task.id,
        protocol=task.protocol,
        agent="scripted:search-then-ask",
        user="rule",
        search="local",
        judge="rule",
        mode="human_agent",
        annotator=annotator,
    )
    episode = build_episode(
        task,
        agent=ScriptedAgent("search-then-ask"),
        user=RuleUser(),
        search=search or LocalSearch(DOCS),
        judge=RuleJudge(),
        session=session,
        sink=store,
    )

    async def go() -> None:
        if finish:
            await episode.run()
        else:
            await episode.step()

    asyncio.run(go())
    return session.id, len(episode.steps)


def test_annotators_get_different_tasks_and_their_own_claim_back(tmp_path):
    db = tmp_path / "c.db"
    b = book(db)
    assert b.claim_next("ana") == Claim("t00")
    assert b.claim_next("bob") == Claim("t01")
    assert b.claim_next("ana") == Claim("t00")  # reloaded page: the same task
    store = Store(db)
    sid, _ = play(store, "t02", "cy", finish=False)  # cy left t02 in the middle
    assert b.claim_next("cy") == Claim("t02", resume_id=sid)
    assert b.claim_next("dan") == NoTask(waiting=3)  # all three held by live claims
    play(store, "t00", "ana")
    assert b.claim_next("ana") == NoTask(waiting=2)  # t01, t02 are others'; t00 done
    assert live_claims(db, RUN) == {"bob": ["t01"], "cy": ["t02"]}
    assert load_campaign(db, RUN).task_ids == ["t00", "t01", "t02"]


def test_a_claim_lapses_after_the_timeout_and_the_lost_session_is_abandoned(tmp_path):
    db = tmp_path / "c.db"
    b = book(db, n=2, timeout=0.3)
    store = Store(db)
    assert b.claim_next("ana") == Claim("t00")
    sid, _ = play(store, "t00", "ana", finish=False)
    b.heartbeat("ana")
    assert b.claim_next("bob") == Claim("t01")
    time.sleep(0.15)
    b.heartbeat("ana")  # ana is still here, bob left
    time.sleep(0.2)
    assert b.claim_next("cy") == Claim("t01")  # bob's claim lapsed; ana's holds
    time.sleep(0.35)  # ana leaves too
    b.heartbeat("cy")
    assert b.claim_next("dan") == Claim("t00")
    assert b.claim_next("ana") == NoTask(waiting=2)  # t00 went to dan while she was away
    lost = store.session(sid)
    assert lost.status == "abandoned" and "claim expired" in lost.note


def test_a_second_tab_of_the_same_annotator_does_not_play_the_task_twice(tmp_path):
    db = tmp_path / "c.db"
    first, second = book(db), book(db)  # one ClaimBook per visitor process (per browser tab)
    store = Store(db)
    assert first.claim_next("ana") == Claim("t00")
    sid, _ = play(store, "t00", "ana", finish=False)
    assert second.claim_next("ana") == OpenElsewhere("t00")  # not t00 again, not t01 either
    assert first.claim_next("ana") == Claim("t00", resume_id=sid)  # the first tab goes on
    assert second.claim_next("bob") == Claim("t01")  # others are unaffected
    first.let_go()  # the first tab closed
    assert second.claim_next("ana") == Claim("t00", resume_id=sid)  # taken over, same session
    assert first.claim_next("ana") == OpenElsewhere("t00")
    assert [s.task_id for s in store.sessions() if s.annotator == "ana"] == ["t00"]


def test_a_tab_whose_process_died_is_taken_over_at_once(tmp_path):
    db = tmp_path / "c.db"
    dead, alive = book(db), book(db)
    gone = multiprocessing.get_context("spawn").Process(target=time.sleep, args=(0,))
    gone.start()
    gone.join()
    dead.holder = dead.holder.replace(f":{__import__('os').getpid()}:", f":{gone.pid}:")
    assert dead.claim_next("ana") == Claim("t00")  # then its process was killed: no let_go
    assert alive.claim_next("ana") == Claim("t00")


def test_claims_written_before_holders_still_work(tmp_path):
    db = tmp_path / "c.db"
    Store(db).close()
    old = sqlite3.connect(db)
    old.executescript(
        "CREATE TABLE claims (run TEXT NOT NULL, task_id TEXT NOT NULL, annotator TEXT NOT NULL,"
        " claimed_at REAL NOT NULL, heartbeat_at REAL NOT NULL, state TEXT NOT NULL,"
        " PRIMARY KEY (run, task_id, annotator));"
    )
    old.execute("INSERT INTO claims VALUES (?, 't00', 'ana', ?, ?, 'live')", [RUN, time.time(), time.time()])
    old.commit()
    old.close()
    b = book(db)
    assert b.claim_next("bob") == Claim("t01")  # ana's old live claim still holds t00
    assert b.claim_next("ana") == Claim("t00")  # and ana gets it back


def test_per_task_k_serves_each_task_to_k_different_annotators(tmp_path):
    db = tmp_path / "c.db"
    b = book(db, n=2, per_task=2)
    store = Store(db)
    assert b.claim_next("ana") == Claim("t00")
    assert b.claim_next("bob") == Claim("t00")
    assert b.claim_next("cy") == Claim("t01")
    play(store, "t00", "ana")
    play(store, "t00", "bob")
    assert b.claim_next("ana") == Claim("t01")
    assert b.claim_next("dan") == NoTask(waiting=1)  # t00 covered twice, t01 held by cy and ana


def test_a_skipped_task_goes_to_someone_else_never_back(tmp_path):
    db = tmp_path / "c.db"
    b = book(db, n=1)
    store = Store(db)
    assert b.claim_next("ana") == Claim("t00")
    sid, _ = play(store, "t00", "ana", finish=False)
    session = store.session(sid)
    session.status, session.note = "abandoned", "skipped by the annotator"
    store.update_session(session)
    assert b.claim_next("ana") == NoTask(waiting=0)
    assert b.claim_next("bob") == Claim("t00")


def test_a_run_is_one_campaign(tmp_path):
    db = tmp_path / "c.db"
    book(db, n=2)
    with pytest.raises(ValueError, match="already a campaign"):
        book(db, n=3)
    with pytest.raises(ValueError, match="already a campaign"):
        book(db, n=2, per_task=2)


# ---- many writers -----------------------------------------------------------------------


def annotate(args: tuple) -> tuple[str, dict[str, int]]:
    """One simulated annotator process: claim, play, repeat until nothing is left."""
    db, name, n, per_task = args
    store = Store(db)
    b = ClaimBook(db, campaign(n, per_task))
    search = LocalSearch(DOCS)
    written: dict[str, int] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        claim = b.claim_next(name)
        if isinstance(claim, NoTask):
            if not claim.waiting:
                break
            time.sleep(0.02)
            continue
        sid, count = play(store, claim.task_id, name, search=search)
        written[sid] = count
        time.sleep(0.02)  # a person between tasks: the others get their turn even on a loaded machine
    return name, written


@pytest.mark.parametrize("per_task", [1, 2])
def test_eight_annotator_processes_on_one_database(tmp_path, per_task):
    db = tmp_path / "c.db"
    n = 24
    book(db, n=n, per_task=per_task).close()
    names = [f"a{i}" for i in range(8)]
    with multiprocessing.get_context("fork").Pool(len(names)) as pool:
        results = dict(pool.map(annotate, [(db, name, n, per_task) for name in names]))
    conn = sqlite3.connect(db)
    rows = conn.execute("SELECT id, task_id, annotator, status FROM sessions").fetchall()
    steps = dict(conn.execute("SELECT session_id, COUNT(*) FROM steps GROUP BY session_id").fetchall())
    gaps = conn.execute("SELECT session_id FROM steps GROUP BY session_id HAVING MAX(idx) + 1 <> COUNT(*)").fetchall()
    claims = conn.execute("SELECT task_id, COUNT(*), COUNT(DISTINCT annotator) FROM claims GROUP BY task_id").fetchall()
    conn.close()
    written = {sid: count for w in results.values() for sid, count in w.items()}
    assert len(rows) == n * per_task == len(written)
    assert all(status == "completed" for _, _, _, status in rows)
    assert {sid: steps.get(sid) for sid in written} == written and not gaps  # no lost step
    by_task: dict[str, list[str]] = {}
    for _, task, who, _ in rows:
        by_task.setdefault(task, []).append(who)
    assert sorted(by_task) == sorted(TASKS)[:n]
    assert all(len(who) == len(set(who)) == per_task for who in by_task.values())  # no duplicate claim
    assert all(count == distinct == per_task for _, count, distinct in claims)
    assert sum(1 for w in results.values() if w) >= 2  # the work was really shared


# ---- the visitor's app -------------------------------------------------------------------


async def test_two_visitors_apps_get_different_tasks_and_no_other_sessions(tmp_path):
    from clarify_tui.tui.campaign import CampaignApp
    from clarify_tui.tui.messages import AgentTurnStarted
    from clarify_tui.tui.screens.play import PlayScreen
    from tests.test_tui import SIZE, Messages, assert_barrier

    db = tmp_path / "c.db"
    store, search = Store(db), LocalSearch(DOCS)
    tasks = [TASKS[i] for i in ("t01", "t00")]  # any order: the campaign's order wins
    served = []
    for name in ("ana", "bob"):
        hook = Messages()
        app = CampaignApp(book(db, n=2), name, tasks, store=store, search=search)
        async with app.run_test(size=SIZE, message_hook=hook) as pilot:
            await hook.next(AgentTurnStarted)
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, PlayScreen) and screen.driver.session.annotator == name
            assert_barrier(screen, screen.task_)
            served.append((screen.task_.id, screen.setup.queue))
            for action in ("sessions", "scores"):
                assert app.check_action(action, ()) is False
            assert not [c for c in app.get_system_commands(screen) if c.title in ("Sessions", "Scores")]
            await pilot.press("f2")
            assert isinstance(app.screen, PlayScreen)
    # each annotator's own progress, not the campaign's position: ana may still get t01, bob only t01
    assert served == [("t00", (1, 2)), ("t01", (1, 1))]
    assert sorted((s.task_id, s.annotator) for s in store.sessions()) == [("t00", "ana"), ("t01", "bob")]


async def test_a_second_tab_says_the_task_is_open_elsewhere_then_takes_it_over(tmp_path):
    from clarify_tui.tui.campaign import CampaignApp
    from clarify_tui.tui.messages import AgentTurnStarted
    from clarify_tui.tui.screens.play import PlayScreen
    from tests.test_tui import SIZE, Messages

    db = tmp_path / "c.db"
    store, search = Store(db), LocalSearch(DOCS)
    other_tab = book(db, n=2)
    assert other_tab.claim_next("ana") == Claim("t00")
    app = CampaignApp(book(db, n=2), "ana", [TASKS["t00"], TASKS["t01"]], store=store, search=search, retry_s=0.2)
    hook = Messages()
    async with app.run_test(size=SIZE, message_hook=hook) as pilot:
        for _ in range(100):
            await pilot.pause(0.05)
            if "open in another tab" in str(app.screen.query_one("#queue-body").render()):
                break
        else:
            raise AssertionError("the second tab never said the task is open elsewhere")
        assert not store.sessions()  # nothing was started twice
        other_tab.let_go()
        await hook.next(AgentTurnStarted)  # the task opened in this tab
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.task_.id == "t00"
        assert [(s.task_id, s.annotator) for s in store.sessions()] == [("t00", "ana")]
