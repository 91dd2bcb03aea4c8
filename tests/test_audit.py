"""`audit`: the simulator audit (docs/audit.md). A researcher audits a run's user simulator:
every ask is shown blind (the user's side, never the simulator's reply), answered by another
simulator or by people; the report says how often they agree, with kappa and its CI, and how
much the simulator's mistakes move the score, without moving the baseline."""

from __future__ import annotations

import asyncio
import dataclasses
import json

import pytest
from clitools import run_cli
from servers import FakeOpenAI, Reply, chat, llm_config

from clarify_tui.audit import audit_summary
from clarify_tui.audit.items import AuditError, asks
from clarify_tui.audit.run import audit
from clarify_tui.campaign.merge import merge
from clarify_tui.models import EpisodeConfig
from clarify_tui.protocols import registry
from clarify_tui.runner import RunSpec, run_batch
from clarify_tui.store import Store
from clarify_tui.tasks import load_tasks
from clarify_tui.whatif_results import RUN_SUFFIX

ALWAYS_NO = """
class AlwaysNo:
    def reply_interactcomp(self, task, question):
        return "no"
"""

CRASHY = '''
from pathlib import Path

HERE = Path(__file__).parent


class Crashy:
    """Says "i don't know"; dies on its third call while HERE/crash exists."""

    def reply_interactcomp(self, task, question):
        log = HERE / "calls.log"
        calls = log.read_text().count("\\n") if log.exists() else 0
        if (HERE / "crash").exists() and calls >= 2:
            raise RuntimeError("the auditor's machine went down")
        with log.open("a") as f:
            f.write(question + "\\n")
        return "i don't know"
'''


def play_run(db, benchmark: str, agent: str, name: str, **config) -> None:
    store = Store(db)
    spec = RunSpec(
        name=name,
        agent=agent,
        user="rule",
        search="local",
        judge="rule",
        benchmark=benchmark,
        dataset="demo",
        config=EpisodeConfig(**config),
        concurrency=2,
    )
    asyncio.run(run_batch(store, spec, load_tasks(benchmark, "demo")))
    store.close()


def user_file(tmp_path, name: str, source: str) -> str:
    path = tmp_path / f"{name.lower()}.py"
    path.write_text(source)
    return f"py:{path}:{name}"


def score_json(db) -> dict:
    code, out, err = run_cli("score", "--db", str(db), "--format", "json")
    assert code == 0, err
    return json.loads(out)


def test_items_show_the_users_side_and_never_the_simulators_reply(tmp_path):
    db = tmp_path / "a.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    play_run(db, "discobench", "scripted:search-then-ask", "dg")
    play_run(db, "cts", "scripted:ask-first", "cts", k=2)
    store = Store(db)
    for run, sees in (
        ("ic", ["context"]),
        ("dg", ["checkpoint target", "clue", "clue rule"]),
        ("cts", ["intent query"]),
    ):
        summary = asyncio.run(audit(store, run, queue=f"people-{run}"))
        items = store.work.items(f"people-{run}")
        assert summary["asks_in_run"] == len(items) > 0 and summary["asks"] == 0  # none audited yet
        for item in items:
            p = item.payload
            assert set(p) == {
                "kind",
                "protocol",
                "task_id",
                "language",
                "question",
                "ask",
                "before",
                "user_sees",
                "reply",
            }
            assert [s["label"] for s in p["user_sees"]] == sees or run == "dg"
            steps = store.steps(item.session_id)
            reply_step = steps[item.step_idx]
            assert reply_step.actor == "user"
            # the asks before this one are there with their replies, this one's reply is not
            assert all(b["ask"] != p["ask"] or b["reply"] != reply_step.action.text for b in p["before"])
            assert "asked_right" not in json.dumps(p) and "released_clue" not in json.dumps(p)
        task = store.task_for(items[0].session_id)
        if run == "ic":
            assert items[0].payload["user_sees"][0]["text"] == task.interactcomp.context
            assert items[0].payload["reply"] == {"type": "choice", "choices": ["yes", "no", "i don't know"]}
            assert items[0].payload["before"] == [] and len(items[1].payload["before"]) == 1
        if run == "dg":
            assert items[0].payload["reply"]["choices"] == ["clue released", "no clue"]
            assert items[0].payload["user_sees"][0]["text"] in [c.target for c in task.discobench.checkpoints]
        if run == "cts":
            assert items[0].payload["user_sees"][0]["text"] == task.cts.fused_query
            assert items[0].payload["reply"] == {"type": "text"}


def test_agreement_kappa_and_confusion_on_a_known_case(tmp_path):
    db = tmp_path / "k.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    store = Store(db)
    asyncio.run(audit(store, "ic", queue="people", n=6, seed=3))
    asyncio.run(audit(store, "ic", queue="people"))  # reopened without --sample: its own sample stays
    items = store.work.items("people")
    assert len(items) == 6  # a seeded sample
    found = {f.item_id: f for f in asks(store, "ic")}
    sim = [found[i.item_id].ask.simulator_class for i in items]
    other = {"yes": "no", "no": "i don't know", "i don't know": "yes"}
    mine = sim[:4] + [other[c] for c in sim[4:]]  # agree on 4 of 6
    for item, cls in zip(items, mine):
        assert store.work.record_answer("people", item.item_id, "ana", {"reply": cls, "class": cls})
    s = audit_summary(store, "ic")
    assert (s["asks"], s["agreement"], s["disagreements"]) == (6, pytest.approx(4 / 6), 2)
    cats = ["yes", "no", "i don't know"]
    table = [[sum(1 for a, b in zip(sim, mine) if (a, b) == (x, y)) for y in cats] for x in cats]
    assert s["confusion"]["rows"] == "simulator" and s["confusion"]["table"] == table
    # Cohen's kappa by hand: (po - pe) / (1 - pe)
    pe = sum(sum(table[i]) * sum(r[i] for r in table) for i in range(3)) / 36
    assert s["kappa"] == pytest.approx((4 / 6 - pe) / (1 - pe))
    lo, hi = s["kappa_ci95"]
    assert lo <= s["kappa"] <= hi
    assert s["by_class"]["yes"]["asks"] == sim.count("yes")
    # two more people on the same items: Fleiss' kappa among the three of them
    for person in ("bo", "cy"):
        for item, cls in zip(items, sim):
            store.work.record_answer("people", item.item_id, person, {"reply": cls, "class": cls})
    s = audit_summary(store, "ic")
    among = s["audits"][0]["benchmarks"]["interactcomp"]["among_auditors"]
    assert among["method"] == "fleiss" and among["agreement"] == pytest.approx((4 * 3 + 2 * 1) / 18)
    assert s["agreement"] == 1.0 and s["disagreements"] == 0  # the majority now says what the simulator said


def test_an_interrupted_audit_resumes_where_it_stopped(tmp_path):
    db = tmp_path / "r.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    store = Store(db)
    spec = user_file(tmp_path, "Crashy", CRASHY)
    (tmp_path / "crash").touch()
    with pytest.raises(Exception, match="went down"):
        asyncio.run(audit(store, "ic", with_spec=spec))
    queue = f"audit:ic:{spec}"
    assert len(store.work.answers(queue=queue)) == 2  # the answers before the crash are kept
    (tmp_path / "crash").unlink()
    summary = asyncio.run(audit(store, "ic", with_spec=spec))
    total = len(store.work.items(queue))
    calls = (tmp_path / "calls.log").read_text().splitlines()
    assert len(calls) == total  # nothing answered twice
    assert summary["asks"] == total == summary["asks_in_run"]


def test_disagreements_are_forked_with_the_auditors_reply_and_flip_outcomes(tmp_path):
    db = tmp_path / "f.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    before = score_json(db)
    spec = user_file(tmp_path, "AlwaysNo", ALWAYS_NO)
    code, out, err = run_cli("audit", "--run", "ic", "--db", str(db), "--with", spec, "--format", "json")
    assert code == 0, err
    s = json.loads(out)
    table = s["confusion"]["table"]  # yes, no, i don't know: every reply became "no"
    assert [sum(r[0] for r in table), sum(r[2] for r in table)] == [0, 0]
    assert s["disagreements"] == table[0][1] + table[2][1] and table[0][1] > 0
    assert s["forks"] == s["disagreements"]
    assert s["flips"]["right_to_wrong"] > 0 and s["flips"]["wrong_to_right"] == 0
    assert s["accuracy_shift"]["delta"] < 0 and s["accuracy_shift"]["ci95"][0] <= s["accuracy_shift"]["delta"]
    assert score_json(db) == before  # the forks never reach the baseline
    store = Store(db)
    forks = store.sessions(runs=["ic" + RUN_SUFFIX])
    assert len(forks) == s["forks"] and all(f.counterfactual["intervention"] == "reply" for f in forks)
    for fork in forks:
        reply_step = fork.counterfactual["reply_step"]
        assert store.steps(fork.id)[reply_step].action.text == "no"  # the auditor's reply in place
        assert store.steps(fork.parent_id)[reply_step].action.text in ("yes", "i don't know")
    # later asks in a fork are answered by the run's own simulator (the rule user), not the auditor
    later = [
        st.action.text
        for f in forks
        for st in store.steps(f.id)
        if st.actor == "user" and st.index > f.counterfactual["reply_step"]
    ]
    assert "yes" in later
    # rerunning answers nothing again and plays no fork again
    said: list[str] = []
    again = asyncio.run(audit(store, "ic", with_spec=spec, say=said.append))
    assert f"{spec} answered 0 item(s) ({s['asks']} already answered)" in said and not any(
        "played" in line for line in said
    )
    assert len(store.sessions(runs=["ic" + RUN_SUFFIX])) == len(forks) and again["flips"] == s["flips"]


def test_a_protocol_without_audit_hooks_is_refused_in_words(tmp_path, monkeypatch):
    db = tmp_path / "u.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    spec = registry.get("interactcomp")
    monkeypatch.setattr(registry, "get", lambda name: dataclasses.replace(spec, audit=None))
    with pytest.raises(AuditError, match="cannot audit protocol 'interactcomp'"):
        asyncio.run(audit(Store(db), "ic", queue="people"))
    assert audit_summary(Store(db), "ic")["unauditable"] == ["interactcomp"]


CONTRARY = """
from clarify_tui.users.base import UserReply


class Contrary:
    def reply_discobench(self, task, checkpoint, question, asked_right):
        return UserReply(text="I can't say more.", released_clue=False)

    def answer_clarification(self, task, question):
        return "unknown"
"""


def test_discobench_and_cts_disagreements_fork_with_the_auditors_reply(tmp_path):
    db = tmp_path / "dc.db"
    play_run(db, "discobench", "scripted:search-then-ask", "dg")
    play_run(db, "cts", "scripted:ask-first", "cts", k=2)
    before = score_json(db)
    spec = user_file(tmp_path, "Contrary", CONTRARY)
    store = Store(db)
    dg = asyncio.run(audit(store, "dg", with_spec=spec))
    # the rule user released the clue at every targeted ask; the auditor never did
    assert dg["confusion"]["table"][0][1] == dg["disagreements"] > 0 and dg["agreement"] < 1
    assert dg["flips"]["right_to_wrong"] > 0 and dg["accuracy_shift"]["delta"] < 0
    cts = asyncio.run(audit(store, "cts", with_spec=spec))
    assert cts["kappa"] is None and cts["comparison"] == "free text: equivalent by the run's judge (rule)"
    found = {f.item_id: f for f in asks(store, "cts")}
    known = [f for f in found.values() if f.ask.simulator_reply.casefold() != "unknown"]
    assert cts["disagreements"] == len(known) > 0  # "unknown" disagrees with every real answer
    assert cts["flips"]["worsened"] > 0 and cts["flips"]["improved"] == 0 and cts["accuracy_shift"]["delta"] < 0
    # a CTS fork keeps the simulator's earlier answers of the clarify step, the auditor's in place
    for fork in [f for f in store.sessions(runs=["cts" + RUN_SUFFIX]) if f.counterfactual["reply_step"] == 2]:
        fork_steps, parent_steps = store.steps(fork.id), store.steps(fork.parent_id)
        assert fork_steps[1].observation.text == parent_steps[1].observation.text
        assert fork_steps[2].observation.text == "unknown" != parent_steps[2].observation.text
    assert score_json(db) == before


def test_peoples_answers_are_reported_and_their_disagreements_forked(tmp_path):
    db = tmp_path / "p.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    code, out, err = run_cli("audit", "--run", "ic", "--db", str(db), "--queue", "lab", "--per-item", "2")
    assert code == 0, err
    assert f"play it: clarify-tui play --queue lab --db {db}" in err and "serve --queue lab" in err
    store = Store(db)
    items = store.work.items("lab")
    found = {f.item_id: f for f in asks(store, "ic")}
    yes = [i for i in items if found[i.item_id].ask.simulator_class == "yes"][:2]
    for item in yes:  # both people hear "no" where the simulator said "yes"
        for person in ("ana", "bo"):
            store.work.record_answer("lab", item.item_id, person, {"reply": "no", "class": "no"})
    store.close()
    code, out, err = run_cli("audit", "--run", "ic", "--db", str(db))
    assert code == 0, err
    lines = [line for line in out.splitlines() if "│" in line]
    drawn = {line.split("│")[1].strip(): line.split("│")[2].strip() for line in lines if line.count("│") >= 3}
    assert drawn["asks audited / in the run"] == f"2 / {len(items)}"
    assert drawn["agreement"] == "0.0%" and drawn["disagreements"] == "2" and drawn["forks (errored)"] == "2 (0)"
    assert "people: ana, bo" in out
    run_cli("audit", "--run", "ic", "--db", str(db), "--with", user_file(tmp_path, "AlwaysNo", ALWAYS_NO))
    code, out, err = run_cli("report", "--db", str(db), "--run", "ic", "--audit", "--bootstrap", "200")
    s = json.loads(run_cli("audit", "--run", "ic", "--db", str(db), "--format", "json")[1])
    row = next(line for line in out.splitlines() if line.startswith("| ic |"))  # the audit covering most asks
    assert f"| {len(items)} | {100 * s['agreement']:.1f} | {s['kappa']:.3f} | " in row and s["asks"] == len(items)
    assert "Simulator audit: ic: auditor py:" in out and "AlwaysNo, queue audit:ic:py:" in out
    assert "the one of its 2 audits covering most asks (clarify-tui audit --run ic shows each)." in out


def test_a_person_cannot_be_the_with_auditor(tmp_path):
    db = tmp_path / "h.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    with pytest.raises(AuditError, match="--queue NAME"):
        asyncio.run(audit(Store(db), "ic", with_spec="human"))


def test_the_summary_calls_no_model_and_the_report_compares_free_text_once(tmp_path):
    db = tmp_path / "c.db"
    play_run(db, "cts", "scripted:ask-first", "cts", k=2)
    store = Store(db)
    asyncio.run(audit(store, "cts", queue="people"))
    items = store.work.items("people")[:3]
    found = {f.item_id: f for f in asks(store, "cts")}
    for item in items:  # a person types the simulator's own answer
        reply = found[item.item_id].ask.simulator_reply
        store.work.record_answer("people", item.item_id, "ana", {"reply": reply, "class": None})
    s = audit_summary(store, "cts")  # nothing compared yet: said, not guessed
    assert s["asks"] == 3 and s["uncompared"] == 3 and s["agreement"] is None
    s = asyncio.run(audit(store, "cts"))  # the report compares through the run's judge, once
    assert s["uncompared"] == 0 and s["agreement"] == 1.0 and s["disagreements"] == 0
    assert audit_summary(store, "no-such-run")["note"].startswith("no sessions in run 'no-such-run'")
    store.close()
    merged = tmp_path / "merged.db"  # merge carries the verdicts: a model judged again may not say the same
    merge([db], merged)
    s = audit_summary(Store(merged), "cts")
    assert s["asks"] == 3 and s["uncompared"] == 0 and s["agreement"] == 1.0


def test_a_model_auditor_is_asked_as_the_runs_user_and_read_as_the_run_reads_it(tmp_path, monkeypatch):
    """`--with openai:MODEL` builds the user `run --user openai:MODEL` would: its responder prompt
    holds the task's context and the agent's question; "I don't know." is read as the reference
    harness reads it under the paper's setting (*no*)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-audit")
    db = tmp_path / "m.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")

    def world(request) -> Reply:
        return chat("I don't know.", 40, 2)

    with FakeOpenAI(world) as models:
        store = Store(db)
        s = asyncio.run(audit(store, "ic", with_spec="openai:auditor-m", config_obj=llm_config(models.base_url)))
        prompts = [r.prompt for r in models.chat_requests("auditor-m")]
    answers = store.work.answers(queue="audit:ic:openai:auditor-m")
    assert len(prompts) == len(answers) == s["asks"] == s["asks_in_run"]
    assert {a.answer["class"] for a in answers} == {"no"} and {a.source for a in answers} == {"simulator"}
    for f in asks(store, "ic"):  # each ask reached the auditor with its own task's context
        assert any(f.ask.ask in p and f.task.interactcomp.context in p for p in prompts)


def test_the_discobench_fork_says_what_the_rule_user_says():
    """A person's "no clue" becomes the rule user's own words in the fork."""
    from clarify_tui.protocols.discobench import audit as disco
    from clarify_tui.users import rule

    assert (disco.NOTHING_TO_ADD, disco.NOTHING_TO_ADD_ZH) == (rule.NOTHING_TO_ADD, rule.NOTHING_TO_ADD_ZH)


def test_a_session_a_person_played_is_audited_but_not_forked(tmp_path):
    db = tmp_path / "hp.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    store = Store(db)
    asyncio.run(audit(store, "ic", queue="lab"))
    found = {f.item_id: f for f in asks(store, "ic")}
    item = next(i for i in store.work.items("lab") if found[i.item_id].ask.simulator_class == "yes")
    session = store.session(item.session_id)
    session.user = "human"  # a person replied as the user in this session
    store.update_session(session)
    store.work.record_answer("lab", item.item_id, "ana", {"reply": "no", "class": "no"})
    said: list[str] = []
    s = asyncio.run(audit(store, "ic", say=said.append))
    assert s["disagreements"] == 1 and s["forks"] == 0 and s["accuracy_shift"]["delta"] is None
    assert "1 disagreement(s) not forked: a person played that session" in said[0]
    assert store.sessions(runs=["ic" + RUN_SUFFIX]) == []


def test_one_dissenting_person_in_an_agreeing_majority_forks_nothing(tmp_path):
    db = tmp_path / "dm.db"
    play_run(db, "cts", "scripted:ask-first", "cts", k=2)
    store = Store(db)
    asyncio.run(audit(store, "cts", queue="lab", per_item=3))
    found = {f.item_id: f for f in asks(store, "cts")}
    item = next(i for i in store.work.items("lab") if found[i.item_id].ask.simulator_reply != "unknown")
    reply = found[item.item_id].ask.simulator_reply
    for person, said in (("ana", reply), ("bo", reply), ("cy", "unknown")):
        store.work.record_answer("lab", item.item_id, person, {"reply": said, "class": None})
    s = asyncio.run(audit(store, "cts"))
    assert s["asks"] == 1 and s["agreement"] == 1.0 and s["disagreements"] == 0 and s["forks"] == 0
    assert store.sessions(runs=["cts" + RUN_SUFFIX]) == []


def test_the_whatif_screen_lists_an_audit_fork_with_the_auditors_reply(tmp_path):
    from clarify_tui.tui.browse import BrowseApp
    from clarify_tui.tui.screens.whatif import WhatIfScreen

    db = tmp_path / "t.db"
    play_run(db, "interactcomp", "scripted:ask-first", "ic")
    spec = user_file(tmp_path, "AlwaysNo", ALWAYS_NO)
    store = Store(db)
    asyncio.run(audit(store, "ic", with_spec=spec))
    fork = store.sessions(runs=["ic" + RUN_SUFFIX])[0]

    async def scenario() -> str:
        app = BrowseApp(store, start="replay", session_id=fork.parent_id)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.app.workers.wait_for_complete()
            await pilot.press("i")
            await pilot.pause()
            assert isinstance(app.screen, WhatIfScreen)
            return "\n".join(strip.text for strip in app.screen._compositor.render_strips())

    text = asyncio.run(scenario())
    assert "reply 'no'" in text and "right" in text and "wrong" in text
    store.close()


def test_a_shift_over_one_task_says_why_it_has_no_ci(tmp_path):
    """The bootstrap resamples tasks: over one task there is no CI, and the JSON, the table
    and `report --audit` say so rather than leave a blank."""
    from clitools import cli_env

    db = tmp_path / "one.db"
    store = Store(db)
    spec = RunSpec(name="cts", agent="scripted:ask-first", user="rule", search="local", judge="rule",
                   benchmark="cts", dataset="demo", config=EpisodeConfig(k=2))  # fmt: skip
    asyncio.run(run_batch(store, spec, load_tasks("cts", "demo")[:1]))
    store.close()
    contrary = user_file(tmp_path, "Contrary", CONTRARY)
    code, out, err = run_cli("audit", "--run", "cts", "--db", str(db), "--with", contrary, "--format", "json")
    assert code == 0, err
    shift = json.loads(out)["accuracy_shift"]
    assert shift["tasks"] == 1 and shift["delta"] < 0 and shift["ci95"] is None
    assert shift["note"] == "no CI: a CI needs at least 2 tasks (1 here)"
    wide = cli_env(COLUMNS="200")
    code, out, err = run_cli("audit", "--run", "cts", "--db", str(db), "--with", contrary, env=wide)
    assert code == 0, err
    row = next(line for line in out.splitlines() if "accuracy_shift over 1 task(s)" in line)
    assert "(no CI: a CI needs at least 2 tasks (1 here))" in row
    code, out, err = run_cli("report", "--run", "cts", "--db", str(db), "--audit", "--format", "csv", env=wide)
    assert code == 0, err
    assert "no CI: 1 task" in out
