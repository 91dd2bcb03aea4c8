"""Clarify-Then-Search rules as papers 001/004 define them, built through the engine:
a fixed deep-search agent, `orig` for any agent (k = 0), region-only questions, the rule
user on released data (no intent slots), non-answers as `unknown`, invalid clarifier
outputs that cost no deep-search round."""

from __future__ import annotations

import pytest

from clarify_tui.agents.scripted import ScriptedAgent
from clarify_tui.engine import build_episode
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.metrics import score
from clarify_tui.models import Action, ActionKind, CTSPart, EpisodeConfig, Nugget, Task
from clarify_tui.runner import RunSpec, run_batch
from clarify_tui.store import Store
from clarify_tui.users.base import UserReply
from clarify_tui.users.rule import RuleUser
from tests.conftest import CTS, ListAgent
from tests.test_metrics import C1, C2, FULL, NOTHING, PARTIAL, YEAR, play

UNIS = Task(
    id="unis",
    protocol="cts",
    question="best universities for AI",
    cts=CTSPart(
        blurred_query="best universities for AI",
        fused_query="best universities for AI in Europe for master's study",
        nuggets=[Nugget(id="n1", text="ETH Zurich is a top AI university in Europe", weight=3)],
    ),
)


def group(report, run):
    [g] = [g for g in report["groups"] if g["key"] == {"run": run}]
    return g["metrics"]


# ---- (6) a fixed deep-search agent --------------------------------------------------


async def test_a_fixed_deep_search_agent_runs_the_search_phase(make_episode, search):
    clarifier = ListAgent([Action.clarify(["Which year do you mean?"])], spec="test:clarifier")
    deep = ListAgent(
        [Action.search("matcha prices 2023"), Action.answer("Uji matcha prices rose 20 percent in 2023")],
        spec="test:deep",
    )
    config = EpisodeConfig(k=1, deep_search="test:deep")
    ep = build_episode(
        CTS, agent=clarifier, user=RuleUser(), search=search, judge=RuleJudge(), config=config, deep_search=deep
    )
    session = await ep.run()
    assert [v.phase for v in clarifier.views] == ["clarify"]
    assert [v.phase for v in deep.views] == ["search", "search"] and deep.views[0].question == "matcha prices 2023"
    assert session.result.deep_search == "test:deep" and session.result.deep_search_fixed is True
    assert session.agent == "test:clarifier" and session.config.deep_search == "test:deep"


async def test_without_a_deep_search_spec_the_agent_searches_and_the_result_says_so(make_episode):
    session = await make_episode(CTS, "search-then-ask", EpisodeConfig(k=1)).run()
    assert session.result.deep_search == "scripted:search-then-ask"
    assert session.result.deep_search_fixed is False


async def test_the_run_records_its_deep_search_spec(tmp_path, search):
    store = Store(tmp_path / "r.db")
    config = EpisodeConfig(k=1, deep_search="scripted:direct-guess")
    spec = RunSpec(name="r", agent="scripted:search-then-ask", benchmark="cts", config=config)
    summary = await run_batch(store, spec, [CTS])
    [session] = summary.completed
    assert session.result.deep_search == "scripted:direct-guess"
    assert store.db["runs"].get("r")["config"].count("scripted:direct-guess") == 1


def test_the_run_summary_says_when_no_deep_search_agent_was_given(tmp_path, capsys):
    from clarify_tui.cli import main

    db = str(tmp_path / "s.db")
    assert (
        main(
            [
                "run",
                "--benchmark",
                "cts",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                db,
                "--limit",
                "1",
                "--run",
                "a",
            ]
        )
        == 0
    )
    assert "deep search: the agent under test (no --deep-search given" in " ".join(capsys.readouterr().err.split())
    assert (
        main(
            [
                "run",
                "--benchmark",
                "cts",
                "--agent",
                "scripted:search-then-ask",
                "--db",
                db,
                "--limit",
                "1",
                "--run",
                "b",
                "--deep-search",
                "scripted:direct-guess",
            ]
        )
        == 0
    )
    assert "deep search: scripted:direct-guess (fixed)" in " ".join(capsys.readouterr().err.split())


def test_a_model_clarifier_without_a_fixed_deep_search_agent_is_refused_quoting_the_rule(tmp_path, capsys):
    """Paper 001 §5.1, line 203: "we vary only the Clarifier while keeping ... the deep-search
    backend ... fixed". An openai: clarifier with no --deep-search would also search."""
    from clarify_tui.cli import main

    db = tmp_path / "s.db"
    code = main(["run", "--benchmark", "cts", "--agent", "openai:clarifier-m", "--db", str(db), "--limit", "1"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "Traceback" not in err
    assert "--deep-search SPEC" in err and "[deep_search]" in err
    assert "we vary only the Clarifier" in err and "deep-search backend" in err
    assert not db.exists()  # refused before the database is touched


def test_deep_search_spec_in_clarify_toml_fixes_it_for_a_model_clarifier(tmp_path, capsys, monkeypatch):
    from clarify_tui.cli import main
    from tests.servers import FakeOpenAI, Script, chat

    db = tmp_path / "s.db"
    toml = tmp_path / "clarify.toml"
    with FakeOpenAI(Script(chat('["Which year do you mean?"]'))) as server:
        toml.write_text(
            f'[openai]\nbase_url = "{server.base_url}"\nmax_retries = 0\n\n'
            '[deep_search]\nspec = "scripted:direct-guess"\n',
            encoding="utf-8",
        )
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
        assert (
            main(
                [
                    "run",
                    "--benchmark",
                    "cts",
                    "--agent",
                    "openai:clarifier-m",
                    "--db",
                    str(db),
                    "--limit",
                    "1",
                    "--k",
                    "1",
                    "--config",
                    str(toml),
                    "--run",
                    "t",
                ]
            )
            == 0
        )
        assert len(server.chat_requests("clarifier-m")) == 1  # it clarified; it did not search
    assert "deep search: scripted:direct-guess (fixed)" in " ".join(capsys.readouterr().err.split())
    [session] = Store(db).sessions(runs=["t"])
    assert session.result.deep_search == "scripted:direct-guess" and session.result.deep_search_fixed is True
    assert session.result.questions == ["Which year do you mean?"]


async def test_delta_vs_orig_pairs_only_sessions_with_the_same_deep_search_agent(tmp_path):
    """orig by deep search D on c1, c2 (0, 30); clarified by D (100, 100) and by E (100 on c1).
    D pairs both tasks: mean (100-0 + 100-30)/2 = 85; E pairs nothing."""
    store = Store(tmp_path / "d.db")
    d, e = EpisodeConfig(k=0, deep_search="test:D"), EpisodeConfig(k=1, deep_search="test:E")
    deep = lambda answer, spec: ListAgent([Action.answer(answer)], spec=spec)  # noqa: E731
    for task, answer in ((C1, NOTHING), (C2, PARTIAL)):
        await play_with(store, task, [], "orig", d, deep(answer, "test:D"))
        await play_with(
            store, task, [Action.clarify([YEAR])], "withD", d.model_copy(update={"k": 1}), deep(FULL, "test:D")
        )
    await play_with(store, C1, [Action.clarify([YEAR])], "withE", e, deep(FULL, "test:E"))
    report = score(store, bootstrap=200)
    with_d, with_e = group(report, "withD"), group(report, "withE")
    assert with_d["delta_vs_orig"]["mean"] == pytest.approx(85.0)
    assert with_d["delta_vs_orig"]["deep_search"] == ["test:D"] and with_d["delta_vs_orig"]["n_tasks"] == 2
    assert with_e["delta_vs_orig"] is None


async def play_with(store, task, clarifier_actions, run, config, deep):
    from clarify_tui.models import Session

    agent = ListAgent(clarifier_actions, spec="test:clarifier")
    session = Session(
        run=run, task_id=task.id, protocol=task.protocol, agent=agent.spec, user="rule", search="local", config=config
    )
    from tests.test_metrics import SEARCH

    ep = build_episode(
        task,
        agent=agent,
        user=RuleUser(),
        search=SEARCH,
        judge=RuleJudge(),
        config=config,
        session=session,
        sink=store,
        deep_search=deep,
    )
    return await ep.run()


# ---- (7) orig for any agent ----------------------------------------------------------


async def test_k0_is_orig_for_any_agent_the_clarifier_is_never_asked(make_episode):
    ep = make_episode(CTS, [Action.search("matcha prices"), Action.answer("matcha is a drink")], EpisodeConfig(k=0))
    session = await ep.run()
    assert [v.phase for v in ep.agent.views] == ["search", "search"]
    assert ep.agent.views[0].question == CTS.cts.blurred_query
    assert session.result.orig is True and session.result.questions == [] and session.result.k == 0
    asking = make_episode(CTS, "search-then-ask", EpisodeConfig(k=0))
    assert (await asking.run()).result.orig is True
    assert not any(s.action.kind == ActionKind.clarify for s in asking.steps)


# ---- (8) region-only -----------------------------------------------------------------


async def test_a_question_is_region_only_when_region_is_its_only_aspect(tmp_path):
    store = Store(tmp_path / "g.db")
    await play(store, C1, [Action.clarify(["Which country and which year?"]), Action.answer(FULL)], run="g")
    await play(store, C2, [Action.clarify(["Which city do you mean?"]), Action.answer(FULL)], run="g")
    await play(store, C1, [Action.clarify([YEAR]), Action.answer(FULL)], run="g")
    m = group(score(store, bootstrap=200), "g")
    assert m["cq_region_rate"] == pytest.approx(2 / 3)  # two questions ask about region
    assert m["region_only_n"] == 1  # only "Which city?" asks about nothing else
    assert m["region_only_unknown_rate"] == 1.0  # C2 states no region
    [both] = [s for s in store.sessions(runs=["g"]) if s.result.questions == ["Which country and which year?"]]
    assert both.result.aspect_sets == [["region", "time"]] and both.result.answers == ["2023"]


# ---- (9) the rule user on released data ------------------------------------------------


async def test_the_rule_user_answers_from_what_the_fused_query_adds(make_episode):
    ep = make_episode(
        UNIS,
        [
            Action.clarify(["Which region are you asking about?", "What level of study?", "Which year do you mean?"]),
            Action.answer("ETH Zurich"),
        ],
        EpisodeConfig(k=3),
    )
    session = await ep.run()
    assert session.result.answers == ["Europe", "master's study", "unknown"]
    assert session.result.rewritten == "best universities for AI Europe master's study"


async def test_the_rule_user_answers_chinese_released_data_too():
    task = Task(
        id="zh",
        protocol="cts",
        question="大学排名",
        language="zh",
        cts=CTSPart(
            blurred_query="大学排名",
            fused_query="北京的大学2024年排名",
            nuggets=[Nugget(id="n1", text="清华大学排名第一", weight=1)],
        ),
    )
    user = RuleUser()
    assert (await user.answer_clarification(task, "你问的是哪个城市？")).text == "北京"
    assert (await user.answer_clarification(task, "你指的是哪一年？")).text == "2024年"
    assert (await user.answer_clarification(task, "你最看重什么标准？")).text == "unknown"


FUSED_CASES = [
    # (blurred, fused, question, answer)
    (
        "best universities for AI",
        "best universities for AI in Europe for master's study",
        "Which country or region are you asking about?",
        "Europe",
    ),
    (
        "best universities for AI",
        "best universities for AI in Europe for master's study",
        "What criterion matters most to you?",
        "unknown",
    ),
    ("matcha prices", "Why did Uji matcha prices rise in 2023?", "Which year do you mean?", "2023"),
    ("matcha prices", "Why did Uji matcha prices rise in 2023?", "Which country do you mean?", "unknown"),
    (
        "What did the telescope's first images show?",
        "What did the James Webb Space Telescope's first full-color images, released in July 2022, show?",
        "Which specific one do you mean?",
        "James Webb Space",
    ),
    (
        "When did the wall come down?",
        "When did the Berlin Wall in Germany come down in 1989?",
        "Which country and which year?",
        "Berlin, Germany, 1989",
    ),
    ("新能源汽车补贴政策", "2024年上海新能源汽车补贴政策", "你问的是哪个地区？", "上海"),
    ("新能源汽车补贴政策", "2024年上海新能源汽车补贴政策", "你指的是哪一年？", "2024年"),
    ("iPhone价格", "iPhone 15 Pro在香港的价格", "你具体指的是哪一个？", "15 Pro"),
    ("手机推荐", "现在性价比最高的国产手机推荐", "你最看重的标准是什么？", "性价比最高"),
    ("手机推荐", "现在性价比最高的国产手机推荐", "你的预算是多少？", "性价比最高"),
    ("流感症状", "儿童甲型流感症状和用药", "你问的是哪个城市？", "unknown"),
]


@pytest.mark.parametrize(("blurred", "fused", "question", "answer"), FUSED_CASES)
async def test_the_rule_user_reads_only_what_the_fused_query_adds(blurred, fused, question, answer):
    task = Task(
        id="t",
        protocol="cts",
        question=blurred,
        cts=CTSPart(blurred_query=blurred, fused_query=fused, nuggets=[Nugget(id="n", text="x", weight=1)]),
    )
    assert (await RuleUser().answer_clarification(task, question)).text == answer


# ---- (10) non-answers and invalid clarifier outputs ----------------------------------


class WordyUser(RuleUser):
    spec = "test:wordy"

    async def answer_clarification(self, task, question):
        if "country" in question:
            return UserReply(text="The query does not specify a country.")
        if "year" in question:
            return UserReply(text="查询中没有提到具体年份。")
        return UserReply(text="2023")


async def test_a_reply_that_is_not_an_answer_is_unknown(make_episode):
    ep = make_episode(
        C1,
        [
            Action.clarify(["Which country do you mean?", "Which year do you mean?", "Which one?"]),
            Action.answer(NOTHING),
        ],
        EpisodeConfig(k=3),
        user=WordyUser(),
    )
    session = await ep.run()
    assert session.result.answers == ["unknown", "unknown", "2023"]
    assert session.result.rewritten == "matcha prices 2023"
    m = group(score_one(session), "x")
    assert m["ua_unknown_rate"] == pytest.approx(2 / 3)


def score_one(session):
    from clarify_tui.metrics.records import from_session
    from clarify_tui.metrics.report import score_sessions

    session.run = "x"
    return score_sessions([from_session(session, [])], bootstrap=200)


async def test_an_invalid_clarifier_output_does_not_use_a_deep_search_round(make_episode):
    ep = make_episode(
        CTS,
        [
            Action(kind=ActionKind.invalid, text="not a JSON array"),
            Action.clarify(["Which year do you mean?"]),
            Action.search("matcha prices 2023"),
            Action.answer("Uji matcha prices rose 20 percent in 2023"),
        ],
        EpisodeConfig(k=1, max_rounds=2),
    )
    session = await ep.run()
    assert session.status == "completed" and session.result.answer.startswith("Uji")
    assert ep.steps[0].error and ep.rounds_used == 2


async def test_three_invalid_clarifier_outputs_are_a_zero_score_never_an_errored_session(make_episode):
    """The clarifier's own failure (paper 001 line 221: "strict output formatting as a JSON
    array") is scored, restore 0, like any wrong answer; only infrastructure failures are
    excluded (issue 22). The same holds for three invalid outputs in the search phase."""
    bad = [Action(kind=ActionKind.invalid, text="not a JSON array", raw=f"garbage {i}") for i in range(3)]
    session = await make_episode(CTS, bad, EpisodeConfig(k=1)).run()
    assert session.status == "completed" and session.error is None
    assert session.result.invalid_skip is True and session.result.orig is False
    assert session.result.restore_score == 0.0 and {c.coverage for c in session.result.coverage} == {"none"}
    m = group(score_one(session), "x")
    assert m["errored"] == 0 and m["restore_score_mean"] == 0.0
    in_search = await make_episode(CTS, [Action.clarify(["Which year do you mean?"])] + bad, EpisodeConfig(k=1)).run()
    assert in_search.status == "completed" and in_search.result.restore_score == 0.0
    assert in_search.result.invalid_skip is True and in_search.result.questions == ["Which year do you mean?"]


async def test_scripted_deep_search_is_the_same_whoever_clarified(search):
    """Same deep-search spec, same q-hat -> same answer: what the paired delta relies on."""
    outs = []
    for clarifier in ("ask-first", "search-then-ask"):
        ep = build_episode(
            CTS,
            agent=ScriptedAgent(clarifier),
            user=RuleUser(),
            search=search,
            judge=RuleJudge(),
            config=EpisodeConfig(k=0, deep_search="scripted:direct-guess"),
            deep_search=ScriptedAgent("direct-guess"),
        )
        outs.append((await ep.run()).result.answer)
    assert outs[0] == outs[1]


async def test_a_fork_searches_with_the_sessions_fixed_deep_search_agent(tmp_path, search):
    """A fork of a CTS session (replay `f`) keeps its fixed deep-search agent: its search
    phase is run by that agent again, not by the agent the fork continues with."""
    from clarify_tui.judges.rule import RuleJudge
    from clarify_tui.sessions_ops import ForkError, fork_session

    store = Store(tmp_path / "f.db")
    config = EpisodeConfig(k=1, deep_search="scripted:direct-guess")
    parent = await build_episode(
        CTS,
        agent=ScriptedAgent("ask-first"),
        user=RuleUser(),
        search=search,
        judge=RuleJudge(),
        config=config,
        sink=store,
        deep_search=ScriptedAgent("direct-guess"),
    ).run()
    clarify = next(s.index for s in store.steps(parent.id) if s.action.kind == ActionKind.clarify)
    clarifier = ListAgent([Action.answer("a guess of the clarifier's own")], spec="test:clarifier")
    fork = fork_session(store, parent.id, clarify, agent=clarifier, user=RuleUser(), search=search, judge=RuleJudge())
    session = await fork.run()
    assert clarifier.views == []  # the search phase is not the clarifier's
    acted = [(s.action.kind, s.action.text) for s in fork.steps[clarify + 1 :] if s.actor == "agent"]
    assert acted == [
        (s.action.kind, s.action.text) for s in store.steps(parent.id)[clarify + 1 :] if s.actor == "agent"
    ]
    assert session.result.deep_search == "scripted:direct-guess" and session.result.deep_search_fixed is True

    store.db["sessions"].update(
        parent.id, {"config": parent.config.model_copy(update={"deep_search": "stored"}).model_dump_json()}
    )
    with pytest.raises(ForkError, match="stored deep-search output"):
        fork_session(
            store,
            parent.id,
            clarify,
            agent=ScriptedAgent("search-then-ask"),
            user=RuleUser(),
            search=search,
            judge=RuleJudge(),
        )
