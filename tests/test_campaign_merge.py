"""`clarify-tui merge`: two annotators' databases merged score exactly like the one shared
database that holds the same sessions; merging twice changes nothing; a session that
differs between files is reported and left out; different task releases are refused."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.cli import main as cli_main
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.metrics import score
from clarify_tui.models import Session
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser
from tests.conftest import CTS, DISCO, DOCS, IC

RUN = "camp"
POLICIES = {"ana": "search-then-ask", "bob": "direct-guess"}


class Tee:
    """A StepSink writing every session to several stores (the same rows in each)."""

    def __init__(self, *stores: Store) -> None:
        self.stores = stores

    def start_session(self, session, task):
        for s in self.stores:
            s.start_session(session, task)

    def add_step(self, session, step):
        for s in self.stores:
            s.add_step(session, step)

    def finish_session(self, session):
        for s in self.stores:
            s.finish_session(session)


def play(sink, task, annotator: str, search) -> Session:
    session = Session(
        run=RUN,
        task_id=task.id,
        protocol=task.protocol,
        agent="scripted:" + POLICIES[annotator],
        user="rule",
        search="local",
        judge="rule",
        mode="human_agent",
        annotator=annotator,
    )
    episode = build_episode(
        task,
        agent=ScriptedAgent(POLICIES[annotator]),
        user=RuleUser(),
        search=search,
        judge=RuleJudge(),
        session=session,
        sink=sink,
    )
    return asyncio.run(episode.run())


@pytest.fixture
def campaign(tmp_path):
    """ana.db and bob.db, and shared.db holding both annotators' sessions."""
    search = LocalSearch(DOCS)
    paths = {name: tmp_path / f"{name}.db" for name in ("ana", "bob", "shared")}
    stores = {name: Store(path) for name, path in paths.items()}
    for task in (IC, DISCO, CTS):
        for annotator in ("ana", "bob"):
            session = play(Tee(stores[annotator], stores["shared"]), task, annotator, search)
    verdict = {"correct": True, "note": "re-judged by hand"}  # a later judgment, in both files
    for name in ("bob", "shared"):
        stores[name].add_judgment(session.id, "human:lead", "answer", verdict)
    for store in stores.values():
        store.close()
    return paths


def dump(path) -> dict:
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    out = {t: sorted(map(repr, conn.execute(f"SELECT * FROM {t}").fetchall())) for t in names}
    conn.close()
    return out


def scores(path) -> dict:
    store = Store(path)
    try:
        return {by: score(store, by=by) for by in ("annotator", "run", "agent")}
    finally:
        store.close()


def test_merged_annotators_score_exactly_like_the_shared_database(campaign, tmp_path, capsys):
    out = tmp_path / "all.db"
    assert cli_main(["merge", str(campaign["ana"]), str(campaign["bob"]), "--out", str(out)]) == 0
    assert "added 1 judgments" in capsys.readouterr().out.replace("judgment(s)", "judgments")
    merged, shared = scores(out), scores(campaign["shared"])
    assert merged == shared
    groups = {g["benchmark"]: g for g in merged["annotator"]["groups"] if g["key"]["annotator"] == "bob"}
    assert groups["interactcomp"]["n_sessions"] == 1  # really scored, not two empty reports
    for table in ("sessions", "steps", "judgments"):
        assert len(dump(out)[table]) == len(dump(campaign["shared"])[table]), table

    before = dump(out)
    assert cli_main(["merge", str(campaign["ana"]), str(campaign["bob"]), "--out", str(out)]) == 0
    assert dump(out) == before  # idempotent
    assert "nothing new; 6 session(s) already there" in capsys.readouterr().out


def test_a_conflicting_session_is_reported_and_left_out(campaign, tmp_path, capsys):
    conn = sqlite3.connect(campaign["bob"])
    sid = conn.execute("SELECT id FROM sessions WHERE annotator='bob' ORDER BY id LIMIT 1").fetchone()[0]
    conn.close()
    copy = tmp_path / "bob-copy.db"
    src, dst = sqlite3.connect(campaign["bob"]), sqlite3.connect(copy)
    src.backup(dst)
    dst.execute("UPDATE steps SET input = input || ' (edited)' WHERE session_id=? AND idx=0", [sid])
    dst.commit()
    src.close(), dst.close()
    out = tmp_path / "all.db"
    code = cli_main(["merge", str(campaign["ana"]), str(campaign["bob"]), str(copy), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 1 and sid in err and "bob-copy.db" in err and "NOT merged" in err
    conn = sqlite3.connect(out)
    ids = {r[0] for r in conn.execute("SELECT id FROM sessions")}
    assert sid not in ids and len(ids) == 5
    assert conn.execute("SELECT COUNT(*) FROM steps WHERE session_id=?", [sid]).fetchone()[0] == 0
    conn.close()


def test_different_task_releases_are_refused_and_nothing_is_written(campaign, tmp_path, capsys):
    other = tmp_path / "other.db"
    store = Store(other)
    changed = IC.model_copy(update={"question": IC.question + " (revised)"})
    store.save_task(changed)
    store.close()
    out = tmp_path / "all.db"
    code = cli_main(["merge", str(campaign["ana"]), str(other), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "not the same release" in err and "interactcomp task i1" in err
    assert not out.exists()
    assert cli_main(["merge", str(campaign["ana"]), "--out", str(campaign["ana"])]) == 2
    assert "also an input" in capsys.readouterr().err
    assert cli_main(["merge", str(tmp_path / "missing.db"), "--out", str(out)]) == 2


def test_merge_json_score_through_the_cli_matches(campaign, tmp_path, capsys):
    out = tmp_path / "all.db"
    cli_main(["merge", str(campaign["ana"]), str(campaign["bob"]), "--out", str(out)])
    capsys.readouterr()
    texts = []
    for db in (out, campaign["shared"]):
        assert cli_main(["score", "--db", str(db), "--by", "annotator", "--format", "json"]) == 0
        texts.append(json.loads(capsys.readouterr().out))
    assert texts[0] == texts[1] and texts[0]["groups"]


def test_the_same_session_in_several_files_is_taken_once(campaign, tmp_path):
    out = tmp_path / "all.db"
    assert (
        cli_main(["merge", str(campaign["shared"]), str(campaign["ana"]), str(campaign["bob"]), "--out", str(out)]) == 0
    )
    conn = sqlite3.connect(out)
    assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT id) FROM sessions").fetchone() == (6, 6)
    assert (
        conn.execute("SELECT COUNT(*) FROM steps").fetchone()
        == sqlite3.connect(campaign["shared"]).execute("SELECT COUNT(*) FROM steps").fetchone()
    )
    conn.close()
    assert scores(out) == scores(campaign["shared"])
