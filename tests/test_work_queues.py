"""Audit and labelling queues (store/work.py): items in order, K answers per item, a person's
first answer never overwritten, resumable, apart from the sessions a score reads."""

from __future__ import annotations

import pytest

from clarify_tui.errors import UsageError
from clarify_tui.store import Store


def test_k_answers_per_item_in_queue_order_and_resume(tmp_path):
    db = tmp_path / "w.db"
    store = Store(db)
    store.work.create_queue("aud", "audit", run="r1", per_item=2)
    assert store.work.add_items("aud", [("s1", 2, {"ask": "is it red?"}), ("s1", 5, {"ask": "big?"})]) == 2
    assert store.work.next_item("aud", "ann").item_id == "s1:2"
    assert store.work.record_answer("aud", "s1:2", "ann", {"reply": "yes"})
    assert store.work.next_item("aud", "ann").item_id == "s1:5"  # ann answered the first
    assert store.work.next_item("aud", "bob").item_id == "s1:2"  # the first still wants a second answer
    assert store.work.record_answer("aud", "s1:2", "bob", {"reply": "no"})
    assert store.work.next_item("aud", "cat").item_id == "s1:5"  # two answers: the first is complete
    store.close()

    again = Store(db)  # a crash or a new day: the queue resumes where it was
    q = again.work.create_queue("aud", "audit", run="r1", per_item=2)
    assert q.per_item == 2
    assert again.work.add_items("aud", [("s1", 2, {"ask": "is it red?"})]) == 0  # nothing twice
    assert [a.answer["reply"] for a in again.work.answers("aud")] == ["yes", "no"]
    assert again.work.progress("aud") == {"items": 2, "answers": 2, "complete": 1}


def test_a_persons_first_answer_is_never_overwritten(tmp_path):
    store = Store(tmp_path / "w.db")
    store.work.create_queue("lab", "labels", run="r1")
    store.work.add_items("lab", [("s9", 3, {})])
    assert store.work.record_answer("lab", "s9:3", "ann", {"label": "ask", "note": "vague"})
    assert not store.work.record_answer("lab", "s9:3", "ann", {"label": "act"})
    [answer] = store.work.answers(run="r1", kind="labels")
    assert answer.answer == {"label": "ask", "note": "vague"}
    assert (answer.session_id, answer.step_idx) == ("s9", 3)


def test_a_queue_name_of_another_kind_or_run_is_refused(tmp_path):
    store = Store(tmp_path / "w.db")
    store.work.create_queue("q", "audit", run="r1")
    with pytest.raises(UsageError, match=r"already exists \(audit queue of run 'r1'\)"):
        store.work.create_queue("q", "labels", run="r1")
    with pytest.raises(UsageError, match="no work queue named 'nope'"):
        store.work.next_item("nope", "ann")


def test_a_file_from_before_work_queues_reads_as_none(tmp_path):
    db = tmp_path / "old.db"
    Store(db).close()  # sessions tables only
    assert Store(db, readonly=True).work.queues() == []
