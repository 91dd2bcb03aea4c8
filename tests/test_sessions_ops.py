"""Fork, resume and the human-baseline queue over stored sessions."""

from __future__ import annotations

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.models import Action
from clarify_tui.sessions_ops import (
    ForkError,
    abandon,
    family,
    fork_session,
    left_running,
    next_in_queue,
    queue_progress,
    resume_session,
)
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser
from tests.conftest import DISCO, IC, ListAgent


async def test_fork_where_the_agent_guessed_and_ask_instead(make_episode, search, tmp_path):
    """The classic use: direct-guess answered the distractor at step 1; fork after the
    search (step 0) and let search-then-ask continue: it asks and gets it right."""
    store = Store(tmp_path / "f.db")
    parent = make_episode(DISCO, "direct-guess", sink=store)
    await parent.run()
    assert parent.session.result.correct is False
    fork = fork_session(
        store,
        parent.session.id,
        0,
        agent=ScriptedAgent("search-then-ask"),
        user=RuleUser(),
        search=search,
        judge=RuleJudge(),
    )
    session = await fork.run()
    stored = store.session(session.id)
    assert stored.parent_id == parent.session.id and stored.fork_step == 0
    assert stored.result.correct is True
    copied, original = store.steps(session.id)[0], store.steps(parent.session.id)[0]
    assert copied.action == original.action and copied.observation == original.observation
    kinds = [s.action.kind.value for s in store.steps(session.id) if s.actor == "agent"]
    assert kinds[:2] == ["search", "ask"]
    assert [s.id for s in family(store, session.id)] == [parent.session.id, session.id]


async def test_fork_at_an_ask_keeps_its_reply_and_refuses_after_the_end(make_episode, search, tmp_path):
    store = Store(tmp_path / "f.db")
    parent = make_episode(IC, [Action.ask("Is it Tokyo Tower?"), Action.answer("Tokyo Tower", 80)], sink=store)
    await parent.run()
    fork = fork_session(
        store,
        parent.session.id,
        0,
        agent=ListAgent([Action.answer("Sapporo TV Tower", 70)]),
        user=RuleUser(),
        search=search,
        judge=RuleJudge(),
    )
    assert [s.actor for s in fork.steps] == ["agent", "user"]  # the reply came along with the ask
    assert fork.rules.state.asks == 1
    session = await fork.run()
    assert session.result.correct is True and session.result.asks == 1
    with pytest.raises(ForkError, match="ended"):
        fork_session(
            store, parent.session.id, 2, agent=ListAgent([]), user=RuleUser(), search=search, judge=RuleJudge()
        )


async def test_an_interrupted_session_resumes_at_its_last_step(make_episode, search, tmp_path):
    store = Store(tmp_path / "r.db")
    ep = make_episode(IC, [Action.search("red lattice tower Japan"), Action.ask("Is it Tokyo Tower?")], sink=store)
    await ep.step()
    await ep.step()
    resumed = resume_session(
        store,
        ep.session.id,
        agent=ListAgent([Action.answer("Sapporo TV Tower", 60)]),
        user=RuleUser(),
        search=search,
        judge=RuleJudge(),
    )
    session = await resumed.run()
    assert session.id == ep.session.id
    stored = store.steps(session.id)
    assert [s.action.kind.value for s in stored if s.actor == "agent"] == ["search", "ask", "answer"]
    assert store.session(session.id).result.rounds == 3


async def test_queue_serves_unfinished_tasks_in_a_seeded_order(make_episode, tmp_path):
    store = Store(tmp_path / "q.db")
    tasks = [IC.model_copy(update={"id": f"i{n}"}) for n in range(5)]
    first = next_in_queue(store, "hb", "ann", tasks, shuffle_seed=7)
    assert first is not None and first[1] is None
    assert next_in_queue(store, "hb", "ann", tasks, shuffle_seed=7)[0].id == first[0].id
    ep = make_episode(first[0], [Action.answer("x", 10)], sink=store)
    ep.session.run, ep.session.annotator, ep.session.mode = "hb", "ann", "human_agent"
    await ep.run()
    second = next_in_queue(store, "hb", "ann", tasks, shuffle_seed=7)
    assert second[0].id != first[0].id
    other_annotator = next_in_queue(store, "hb", "bob", tasks, shuffle_seed=7)
    assert other_annotator[0].id == first[0].id
    assert queue_progress(store, "hb", "ann", tasks) == {"completed": 1}
    assert queue_progress(store, "hb", "bob", tasks) == {}
    assert queue_progress(store, "hb", "ann", tasks[:0]) == {}  # only the queue's own tasks count
    interrupted = make_episode(second[0], [Action.answer("x", 10)], sink=store)
    interrupted.session.run, interrupted.session.annotator = "hb", "ann"
    interrupted.start()  # left running: not finished, not counted
    assert queue_progress(store, "hb", "ann", tasks) == {"completed": 1}


async def test_sessions_left_running_are_found_per_person_and_abandoned_with_a_note(make_episode, tmp_path):
    store = Store(tmp_path / "left.db")
    mine = make_episode(IC, [Action.answer("x", 10)], sink=store)
    mine.session.run, mine.session.annotator, mine.session.mode = "tui", "ann", "human_agent"
    mine.start()  # a closed terminal: left running
    other = make_episode(IC, [Action.answer("x", 10)], sink=store)
    other.session.run, other.session.annotator, other.session.mode = "tui", "bob", "human_agent"
    other.start()
    finished = make_episode(IC, [Action.answer("x", 10)], sink=store)
    finished.session.run, finished.session.annotator, finished.session.mode = "tui", "ann", "human_agent"
    await finished.run()
    left = left_running(store, IC, "human_agent", "ann")
    assert [s.id for s in left] == [mine.session.id]
    assert left_running(store, IC, "human_user", "ann") == []  # another role's sessions are not offered
    assert left_running(store, DISCO, "human_agent", "ann") == []
    abandon(store, left, "abandoned: left running, not resumed")
    stored = store.session(mine.session.id)
    assert stored.status == "abandoned" and stored.finished_at
    assert stored.note == "abandoned: left running, not resumed"
    assert left_running(store, IC, "human_agent", "ann") == []
    assert store.session(other.session.id).status == "running"
