"""Issue 33: people answer audit items and label decision points one at a time
(`play --queue NAME` on a work queue, tui/screens/work_queue.py). What is asserted is what
is drawn and what is stored: the answer's JSON linked to its item and annotator, a first
answer never overwritten, resuming at the next item, `q` asking first, a half-typed note
kept, nothing hidden drawn, and the text reachable at 80x24."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from clarify_tui.store import Store
from clarify_tui.tui.work_app import WorkApp
from tests.test_tui_forms import burst, drawn, until

SMALL, LARGE = (80, 24), (200, 50)
CONTEXT = "A red and white lattice tower built in 1958 for television broadcasting."
SECRET_REPLY = "SIMULATOR-SAID-THIS"
SECRET_OUTCOME = "OUTCOME-CORRECT"


def audit_item(ask: str, reply: dict, sees: list[dict] | None = None, before: list | None = None) -> dict:
    return {
        "kind": "audit",
        "protocol": "interactcomp",
        "task_id": "ic-01",
        "language": "en",
        "question": "Which tower is it?",
        "ask": ask,
        "before": before or [],
        "user_sees": sees if sees is not None else [{"label": "context", "text": CONTEXT}],
        "reply": reply,
        "simulator_reply": SECRET_REPLY,  # never in a real payload; drawn it would be a leak
    }


YES_NO = {"type": "choice", "choices": ["yes", "no", "i don't know [idk]"]}


def labels_item(decision_index: int, steps: list[dict]) -> dict:
    return {
        "kind": "labels",
        "protocol": "interactcomp",
        "task_id": "ic-01",
        "language": "en",
        "question": "Which tower is it?",
        "steps": steps,
        "decision": {"index": decision_index, "kind": "answer", "text": "Tokyo Tower"},
        "outcome": SECRET_OUTCOME,  # never in a real payload: the labels are blind to it
        "correct": True,
    }


def make_audit(db, per_item: int = 1):
    store = Store(db)
    store.work.create_queue("aud", "audit", run="r1", per_item=per_item)
    store.work.add_items(
        "aud",
        [
            ("s1", 2, audit_item("Is the tower in Japan?", YES_NO, before=[{"ask": "Is it tall?", "reply": "yes"}])),
            ("s2", 1, audit_item("What will you use it for?", {"type": "text"})),
        ],
    )
    store.close()
    return db


def make_labels(db):
    store = Store(db)
    store.work.create_queue("lab", "labels", run="r1")
    steps = [
        {"index": 0, "actor": "agent", "kind": "search", "text": "red lattice tower 1958"},
        {"index": 1, "actor": "env", "kind": "results", "text": "Tokyo Tower, Sapporo TV Tower"},
    ]
    store.work.add_items("lab", [("s1", 2, labels_item(2, steps)), ("s2", 0, labels_item(0, []))])
    store.close()
    return db


def app_for(db, name: str, annotator: str = "ana") -> WorkApp:
    store = Store(db)
    queue = store.work.queue(name)
    assert queue is not None
    return WorkApp(store, queue, annotator)


@asynccontextmanager
async def opened(db, name: str, first: str, annotator: str = "ana", size=SMALL) -> AsyncIterator[tuple[WorkApp, Any]]:
    """The queue `name` open for `annotator` at `size`, once `first` is drawn: (app, pilot)."""
    app = app_for(db, name, annotator)
    async with app.run_test(size=size) as pilot:
        await until(lambda: first in drawn(app), f"{first!r} drawn")
        yield app, pilot


def stored(db, queue: str) -> list[tuple[str, str, str, dict]]:
    return [(a.item_id, a.annotator, a.source, a.answer) for a in Store(db, readonly=True).work.answers(queue)]


def drafts(db) -> list[tuple]:
    conn = Store(db, readonly=True).conn
    if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'work_drafts'").fetchone():
        return []
    return [(q, i, a, json.loads(d)) for q, i, a, d in conn.execute("SELECT * FROM work_drafts")]


async def test_an_audit_item_shows_what_the_user_knows_and_a_reply_is_stored_on_its_item(tmp_path):
    db = make_audit(tmp_path / "w.db")
    async with opened(db, "aud", "Is the tower in Japan?") as (app, pilot):
        text = drawn(app)
        assert "item 1 of 2 · 1 answer each · you answered 0" in text
        assert "Which tower is it?" in text and "red and white lattice tower" in text
        assert "agent asked: Is it tall?" in text and "user replied: yes" in text  # the earlier exchange
        assert "1 yes" in text and "2 no" in text and "3 i don't know [idk]" in text  # no markup read
        assert SECRET_REPLY not in text
        # the context was on ana's screen: her later play of ic-01 as the agent is informed (seen_hidden)
        assert app.store.work.hidden_shown("ana", "interactcomp", "ic-01") == ("aud", "audit")
        assert app.store.work.hidden_shown("ben", "interactcomp", "ic-01") is None
        await pilot.press("enter")  # nothing picked: said, nothing stored
        await until(lambda: "Pick a reply first" in drawn(app), "the refusal")
        assert stored(db, "aud") == []
        await pilot.press("2")
        await until(lambda: "» 2 no «" in drawn(app), "the pick marked")
        await pilot.press("enter")
        await until(lambda: "What will you use it for?" in drawn(app), "the next item")
        assert "item 2 of 2 · 1 answer each · you answered 1" in drawn(app)
        assert stored(db, "aud") == [("s1:2", "ana", "person", {"reply": "no", "class": "no"})]
        await pilot.press("enter")  # a free-text item: empty is refused
        await until(lambda: "Type the user's reply first" in drawn(app), "the refusal")
        await pilot.press(*"for travel, mostly")
        await pilot.press("enter")
        await until(lambda: "All done." in drawn(app), "the end of the queue")
        assert "you answered 2 items" in drawn(app) and SECRET_REPLY not in drawn(app)
    assert stored(db, "aud")[1] == ("s2:1", "ana", "person", {"reply": "for travel, mostly", "class": None})
    assert drafts(db) == []


async def test_a_labels_item_highlights_the_decision_hides_the_outcome_and_stores_label_and_note(tmp_path):
    db = make_labels(tmp_path / "w.db")
    async with opened(db, "lab", "Decision point") as (app, pilot):
        text = drawn(app)
        assert "step 0 · agent search: red lattice tower 1958" in text  # the trajectory so far
        assert "Decision point · step 2: the agent chose to answer" in text and "Tokyo Tower" in text
        assert "Should the agent have asked the user here instead?" in text
        assert "a ask" in text and "c act" in text and "u unsure" in text
        assert SECRET_OUTCOME not in text and "correct" not in text.lower()
        await pilot.press("enter")
        await until(lambda: "Pick a label first" in drawn(app), "the refusal")
        await pilot.press("a")  # a label: marked whole, the longer label re-measured, not cut
        await until(lambda: "» a ask (should have asked) «" in drawn(app), "the pick marked whole")
        await pilot.press("n")  # then the note box
        await pilot.press(*"vague question")
        await pilot.press("enter")  # from the note: sends
        await until(lambda: "Decision point · step 0" in drawn(app), "the next item")
        await pilot.press("c", "enter")  # no note
        await until(lambda: "All done." in drawn(app), "the end")
    assert stored(db, "lab") == [
        ("s1:2", "ana", "person", {"label": "ask", "note": "vague question"}),
        ("s2:0", "ana", "person", {"label": "act", "note": None}),
    ]
    # both items were shown; neither holds a user's reply (a search and its results): nothing hidden seen
    assert Store(db, readonly=True).work.hidden_shown("ana", "interactcomp", "ic-01") is None


async def test_an_answer_sent_twice_keeps_the_first_and_says_so(tmp_path):
    """The same annotator in two windows: the second answer never overwrites the first."""
    db = make_labels(tmp_path / "w.db")
    async with opened(db, "lab", "Decision point · step 2") as (app, pilot):
        assert Store(db).work.record_answer("lab", "s1:2", "ana", {"label": "ask", "note": None})  # the other window
        await pilot.press("c", "enter")
        await until(lambda: "already answered by you" in drawn(app), "the warning")
        assert "Decision point · step 0" in drawn(app)  # and the next item follows
    assert stored(db, "lab") == [("s1:2", "ana", "person", {"label": "ask", "note": None})]


async def test_reopening_carries_on_at_the_annotators_next_item_and_others_start_at_the_first(tmp_path):
    db = make_audit(tmp_path / "w.db", per_item=2)
    async with opened(db, "aud", "Is the tower in Japan?") as (app, pilot):
        await pilot.press("1", "enter")
        await until(lambda: "What will you use it for?" in drawn(app), "the second item")
    async with opened(db, "aud", "What will you use it for?") as (app, pilot):
        assert "item 2 of 2 · 2 answers each · you answered 1" in drawn(app)
    # K = 2: the first item wants bob's answer too
    async with opened(db, "aud", "Is the tower in Japan?", annotator="bob") as (app, pilot):
        assert "you answered 0" in drawn(app)


async def test_q_asks_first_and_a_half_typed_note_comes_back(tmp_path):
    db = make_labels(tmp_path / "w.db")
    async with opened(db, "lab", "Decision point · step 2") as (app, pilot):
        await pilot.press("u", "n", *"not sure, it")
        await pilot.press("escape")  # out of the note: q is a key again
        await pilot.press("q")
        await until(lambda: "Stop for now?" in drawn(app), "the question")
        assert "kept and comes back" in drawn(app) and "escape / n: no: go on" in drawn(app)
        await pilot.press("escape")  # cancel: back, as it was
        await until(lambda: "Stop for now?" not in drawn(app), "the question gone")
        assert "not sure, it" in drawn(app) and "» u unsure «" in drawn(app)
        await pilot.press("q")
        await until(lambda: "Stop for now?" in drawn(app), "the question again")
        await pilot.press("y")
        await until(lambda: not app.is_running, "the app to end")
    assert stored(db, "lab") == []  # a draft is never an answer
    assert drafts(db) == [("lab", "s1:2", "ana", {"picked": "unsure", "text": "not sure, it"})]

    async with opened(db, "lab", "not sure, it") as (app, pilot):
        assert "» u unsure «" in drawn(app)
        await pilot.press("n", "end", *" was vague", "enter")
        await until(lambda: "Decision point · step 0" in drawn(app), "the next item")
    assert stored(db, "lab") == [("s1:2", "ana", "person", {"label": "unsure", "note": "not sure, it was vague"})]
    assert drafts(db) == []


async def test_a_draft_is_kept_while_typing_without_q(tmp_path):
    """A closed browser tab or a crash: what was typed a moment ago is in the file already."""
    db = make_audit(tmp_path / "w.db")
    store = Store(db)
    store.work.record_answer("aud", "s1:2", "ana", {"reply": "yes", "class": "yes"})
    store.close()
    async with opened(db, "aud", "What will you use it for?") as (app, pilot):
        await pilot.press(*"for work")  # the box has the focus
        await until(lambda: drafts(db), "the draft written")
        assert drafts(db) == [("aud", "s2:1", "ana", {"picked": None, "text": "for work"})]


async def test_at_80x24_the_long_context_scrolls_and_the_ask_stays_in_view(tmp_path):
    db = tmp_path / "w.db"
    store = Store(db)
    store.work.create_queue("aud", "audit", run="r1")
    sees = [{"label": f"clue {n}", "text": f"line {n} of what the user knows"} for n in range(40)]
    sees.append({"label": "last", "text": "THE-END-OF-THE-CONTEXT"})
    store.work.add_items("aud", [("s1", 2, audit_item("Is the tower in Japan?", YES_NO, sees=sees))])
    store.close()
    async with opened(db, "aud", "Is the tower in Japan?") as (app, pilot):
        assert "THE-END-OF-THE-CONTEXT" not in drawn(app) and "1 yes" in drawn(app)
        for _ in range(6):
            if "THE-END-OF-THE-CONTEXT" in drawn(app):
                break
            await pilot.press("pagedown")
            await pilot.pause()
        text = drawn(app)
        assert "THE-END-OF-THE-CONTEXT" in text
        assert "Is the tower in Japan?" in text and "1 yes" in text and "Send" in text  # still in view
    async with opened(db, "aud", "Is the tower in Japan?", size=LARGE) as (app, pilot):
        assert "line 30 of what the user knows" in drawn(app)


async def test_a_burst_after_n_lands_in_the_note_and_picks_no_label(tmp_path):
    """Keys typed faster than the screen redraws (or pasted) right after `n`: every letter
    is the note's, none of them (`a`, `c`, `u`, `q`) a label or the quit key."""
    db = make_labels(tmp_path / "w.db")
    async with opened(db, "lab", "Decision point · step 2") as (app, pilot):
        burst(app, "cna quick cue\r")
        await until(lambda: stored(db, "lab"), "the answer stored")
        await pilot.pause()
        assert "Stop for now?" not in drawn(app)
    assert stored(db, "lab") == [("s1:2", "ana", "person", {"label": "act", "note": "a quick cue"})]


async def test_two_answers_typed_in_one_burst_are_both_stored_whole(tmp_path):
    """`2`, enter, then the next item's free-text reply, all at once: the reply lands in the
    next item's box (the focus moved with the item), nothing lost or mixed."""
    db = make_audit(tmp_path / "w.db")
    async with opened(db, "aud", "Is the tower in Japan?") as (app, pilot):
        burst(app, "2\rfor travel\r")
        await until(lambda: len(stored(db, "aud")) == 2, "both answers stored")
        await pilot.pause()
        assert "All done." in drawn(app)
    assert [a[3] for a in stored(db, "aud")] == [
        {"reply": "no", "class": "no"},
        {"reply": "for travel", "class": None},
    ]


async def test_a_users_reply_is_numbered_as_its_own_step_the_export_gives_it(tmp_path, capsys):
    """A DiscoBench ask is step 0, its judging step 1 and the user's reply step 2 in `export`
    (the numbers `labels import` reads): the labeller sees the reply as step 2 at 80x24, not
    under its ask's number."""
    from clarify_tui.cli import main

    db = tmp_path / "d.db"
    assert main(["run", "--benchmark", "discobench", "--agent", "scripted:ask-first", "--limit", "1",
                 "--run", "d", "--db", str(db)]) == 0  # fmt: skip
    assert main(["labels", "--run", "d", "--queue", "lab", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["export", "--db", str(db), "--run", "d"]) == 0
    exported = json.loads(capsys.readouterr().out.splitlines()[0])["steps"]
    replies = [(s["index"], s["input"]["text"]) for s in exported if s["actor"] == "user"]
    asks = [s["index"] for s in exported if s["actor"] == "agent" and s["action"] == "ask"]
    reply_at, reply = replies[0]
    assert reply_at > asks[0] + 1  # a judge step between: the numbers differ
    async with opened(db, "lab", "Decision point") as (app, _):  # the first item: the search after the ask
        text = drawn(app)
        assert f"step {asks[0]} · agent ask" in text
        assert f"step {reply_at} · user reply: {reply[:20]}" in text
        assert f"step {asks[0]} · user reply" not in text
