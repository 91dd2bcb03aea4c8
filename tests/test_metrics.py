"""Metrics over sessions played THROUGH THE ENGINE, with every expected number worked out by hand.

The world: a tiny corpus, one InteractComp task, one two-checkpoint DiscoBench task and
three CTS tasks, played by list agents (fixed Actions) against the rule user and rule
judge, recorded into a real Store, then scored from the database.
"""

from __future__ import annotations

import asyncio

import pytest

from clarify_tui.agents.human import HumanAgent
from clarify_tui.engine import build_episode
from clarify_tui.errors import BackendError
from clarify_tui.judges.base import NuggetJudgement, Verdict
from clarify_tui.judges.rule import RuleJudge
from clarify_tui.metrics import (
    cts_metrics,
    discobench_metrics,
    from_session,
    interactcomp_metrics,
    load_sessions,
    score,
)
from clarify_tui.metrics.common import bootstrap_mean_ci, percentile
from clarify_tui.models import (
    Action,
    Answer,
    Checkpoint,
    CTSPart,
    DiscoBenchPart,
    EpisodeConfig,
    InteractCompPart,
    Nugget,
    Session,
    Task,
    Usage,
)
from clarify_tui.protocols.interactcomp.metrics import calibration_bin
from clarify_tui.rejudge import rejudge
from clarify_tui.search.local import LocalSearch
from clarify_tui.store import Store
from clarify_tui.users.rule import RuleUser

DOCS = [
    {
        "id": "portia",
        "title": "My Time at Portia",
        "url": "https://t/portia",
        "content": "My Time at Portia is a life simulation game by Pathea Games that won an award.",
    },
    {
        "id": "sandrock",
        "title": "My Time at Sandrock",
        "url": "https://t/sandrock",
        "content": "My Time at Sandrock by Pathea Games won the GWB Indie Game Awards Bronze Prize.",
    },
    {
        "id": "tower",
        "title": "Sapporo TV Tower",
        "url": "https://t/sapporo",
        "content": "Sapporo TV Tower is a red and white lattice tower in Japan with a clock.",
    },
    {
        "id": "tea",
        "title": "Uji matcha harvest",
        "url": "https://t/uji",
        "content": "In 2023 Uji matcha prices rose 20 percent after a poor harvest in Kyoto prefecture.",
    },
]

IC = Task(
    id="ic1",
    protocol="interactcomp",
    question="Which red and white lattice tower in Japan am I thinking of?",
    answer=Answer(text="Sapporo TV Tower"),
    interactcomp=InteractCompPart(context="The tower opened in 1957. It has a clock.", distractors=["Tokyo Tower"]),
)

DISCO = Task(
    id="d1",
    protocol="discobench",
    question="Which company published the Pathea Games life simulation game that won an award?",
    answer=Answer(text="Focus Entertainment"),
    discobench=DiscoBenchPart(
        original_question="Which company published the Pathea game that won the GWB Bronze Prize?",
        difficulty="hard",
        checkpoints=[
            Checkpoint(
                type="ambi",
                ambiguity_type="entity",
                target="My Time at Sandrock",
                distractors=["My Time at Portia"],
                clue="It won the GWB Indie Game Awards Bronze Prize.",
                ambiguity_logic="several Pathea games won awards",
            ),
            Checkpoint(type="unambi", target="Focus Entertainment"),
        ],
    ),
)

NUGGETS = [
    Nugget(id="n1", text="Uji matcha prices rose 20 percent in 2023", weight=3),
    Nugget(id="n2", text="a poor harvest in Kyoto prefecture", weight=2),
]


def cts_task(task_id: str, slots: dict[str, str]) -> Task:
    return Task(
        id=task_id,
        protocol="cts",
        question="matcha prices",
        cts=CTSPart(
            blurred_query="matcha prices",
            fused_query="Why did Uji matcha prices rise in 2023 in Kyoto?",
            intent_slots=slots,
            nuggets=NUGGETS,
        ),
    )


C1 = cts_task("c1", {"time": "2023", "entity": "Uji matcha"})
C2 = cts_task("c2", {"time": "2023"})
C3 = cts_task("c3", {"region": "Kyoto"})

FULL = "Uji matcha prices rose 20 percent in 2023 after a poor harvest in Kyoto prefecture"  # 100
PARTIAL = "Uji matcha prices rose in 2023"  # n1 partial (w3), n2 none: 100 * 1.5 / 5 = 30
HARVEST = "a poor harvest in Kyoto prefecture"  # n1 none, n2 full (w2): 100 * 2 / 5 = 40
NOTHING = "matcha is a drink"  # 0
YEAR, REGION, WHICH = "Which year do you mean?", "Which country or region?", "Which specific one do you mean?"

AGENT_USAGE = {"tokens_in": 10, "tokens_out": 2, "cost_usd": 0.001}


class ListAgent:
    """Plays a fixed list of actions; each action costs AGENT_USAGE when `priced`."""

    def __init__(self, actions, priced=False, spec="test:list"):
        self.actions, self.priced, self.spec = list(actions), priced, spec

    async def act(self, view):
        action = self.actions.pop(0).model_copy(deep=True)
        if self.priced:
            action.usage = Usage(**AGENT_USAGE)
        return action


class BrokenAgent:
    spec = "test:broken"

    async def act(self, view):
        raise BackendError("the model endpoint returned 503 three times")


class PricedUser(RuleUser):
    """The rule user, each reply costing 5 in / 1 out / $0.0005."""

    spec = "test:priced-user"

    async def reply_interactcomp(self, task, question):
        reply = await super().reply_interactcomp(task, question)
        reply.usage = Usage(tokens_in=5, tokens_out=1, cost_usd=0.0005)
        return reply


class PricedJudge(RuleJudge):
    """The rule judge, each equivalence verdict costing 7 in / 3 out / $0.002."""

    async def equivalent(self, question, answer, gold, benchmark="interactcomp"):
        verdict = await super().equivalent(question, answer, gold)
        verdict.usage = Usage(tokens_in=7, tokens_out=3, cost_usd=0.002)
        return verdict


class StrictJudge:
    """A judge that accepts nothing: every answer wrong, every nugget missing."""

    spec = "test:strict"

    async def equivalent(self, question, answer, gold, benchmark="interactcomp"):
        return Verdict(correct=False, reason="strict", usage=Usage(tokens_in=100, tokens_out=1, cost_usd=0.01))

    async def nuggets(self, answer, nuggets, query=""):
        return NuggetJudgement(coverage=["none"] * len(nuggets))


SEARCH = LocalSearch(DOCS)


def _another_task(store, task, run, agent, annotator):
    """The n-th play of one task by one player of one run is of task `ID#n`: one task
    counts once per run, agent or annotator (metrics/once.py), and these fixtures play
    one task several times to exercise the arithmetic over sessions."""
    n = sum(
        1
        for s in store.sessions(runs=[run])
        if s.task_id.split("#")[0] == task.id and s.agent == agent and (s.annotator or "") == (annotator or "")
    )
    return task.model_copy(update={"id": f"{task.id}#{n + 1}"}) if n else task


async def play(
    store,
    task,
    actions,
    *,
    run,
    config=None,
    agent=None,
    user=None,
    judge=None,
    mode="automated",
    annotator=None,
    priced=False,
):
    agent = agent or ListAgent(actions, priced=priced)
    user, judge = user or RuleUser(), judge or RuleJudge()
    task = _another_task(store, task, run, agent.spec, annotator)
    session = Session(
        run=run,
        task_id=task.id,
        protocol=task.protocol,
        agent=agent.spec,
        user=user.spec,
        search="local",
        judge=judge.spec,
        mode=mode,
        annotator=annotator,
    )
    ep = build_episode(
        task,
        agent=agent,
        user=user,
        search=SEARCH,
        judge=judge,
        config=config or EpisodeConfig(),
        session=session,
        sink=store,
    )
    return await ep.run()


IC_SESSIONS = {
    # name: (actions, correct, rounds, asks, confidence)
    "s1": [
        Action.search("red lattice tower Japan"),
        Action.ask("Is it Sapporo TV Tower?"),
        Action.answer("Sapporo TV Tower", 90),
    ],  # right, 3 rounds, 1 ask, conf 90
    "s2": [Action.answer("Tokyo Tower", 30)],  # wrong, 1 round, conf 30
    "s3": [Action.ask("Does it have a clock?"), Action.answer("Tokyo Tower", 100)],  # wrong, 2 rounds, 1 ask, conf 100
    "s4": [Action.search("lattice tower"), Action.answer("Sapporo TV Tower")],  # right, 2 rounds, no confidence
}

SANDROCK = "My Time at Sandrock"
DISCO_SESSIONS = {
    # Per-checkpoint answering (the default): an `answer` commits the current checkpoint.
    # A: search, right ask, search, answers both checkpoints -> [correct_answer, correct_answer]
    "A": [
        Action.search("Pathea Games award game"),
        Action.ask("Do you mean My Time at Portia or another game?"),
        Action.search("My Time at Sandrock publisher"),
        Action.answer(SANDROCK),
        Action.answer("Focus Entertainment"),
    ],
    # B (played under --checkpoints strict): one search, commits to the distractor at
    # checkpoint 1 -> [failed, unreached]
    "B": [Action.search("Pathea Games award game"), Action.answer("My Time at Portia")],
    # C: five searches, no ask, then right twice -> [missed_ambiguity_correct, correct_answer]
    "C": [
        Action.search("Pathea Games award"),
        Action.search("Pathea Games life simulation"),
        Action.search("Pathea award winner"),
        Action.search("Pathea Games prize"),
        Action.search("My Time at Sandrock"),
        Action.answer(SANDROCK),
        Action.answer("Focus Entertainment"),
    ],
    # D: untargeted ask first, search, answer; ask on the unambiguous checkpoint, right answer
    "D": [
        Action.ask("Can you say more?"),
        Action.search("My Time at Sandrock"),
        Action.answer(SANDROCK),
        Action.ask("Is it Focus Entertainment?"),
        Action.answer("Focus Entertainment"),
    ],
    # G: right ask first, then commits to the distractor; checkpoint 2 becomes current
    # unannounced (paper 000 appendix I case 1) and gets a wrong final answer -> [failed, failed]
    "G": [Action.ask("Do you mean My Time at Portia?"), Action.answer("My Time at Portia"), Action.answer("Team17")],
    # H: one search, checkpoint 1 right unasked, wrong final answer -> [missed_ambiguity_correct, failed]
    "H": [Action.search("My Time at Sandrock"), Action.answer(SANDROCK), Action.answer("Team17")],
}


async def build_world(store: Store) -> None:
    for actions in IC_SESSIONS.values():
        await play(store, IC, actions, run="ic", user=PricedUser(), judge=PricedJudge(), priced=True)
    await play(store, IC, [], run="ic", agent=BrokenAgent())
    for name, actions in DISCO_SESSIONS.items():
        config = EpisodeConfig(checkpoints="strict") if name == "B" else None
        await play(store, DISCO, actions, run="disco", config=config)
    await play(store, DISCO, [], run="disco", agent=BrokenAgent())
    orig = [(C1, NOTHING), (C2, PARTIAL), (C3, HARVEST)]
    for task, answer in orig:
        await play(store, task, [Action.clarify([]), Action.answer(answer)], run="orig")
    k1 = [(C1, REGION, FULL), (C2, YEAR, PARTIAL), (C3, REGION, HARVEST)]
    for task, question, answer in k1:
        await play(store, task, [Action.clarify([question]), Action.answer(answer)], run="k1")
    k3 = [(C1, FULL), (C2, NOTHING), (C3, PARTIAL)]
    for task, answer in k3:
        await play(
            store,
            task,
            [Action.clarify([YEAR, REGION, WHICH]), Action.answer(answer)],
            run="k3",
            config=EpisodeConfig(k=3),
        )


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("metrics") / "world.db")
    asyncio.run(build_world(store))
    return store


def group(report, run):
    [g] = [g for g in report["groups"] if g["key"] == {"run": run}]
    return g


# ---- InteractComp ----------------------------------------------------------------------


def test_interactcomp_hand_computed(world):
    """Four completed sessions and one errored one.

    correct: s1 yes, s2 no, s3 no, s4 yes             -> accuracy 2/4 = 0.5
    rounds: 3, 1, 2, 2                                -> mean 8/4 = 2.0
    asks: 1, 0, 1, 0                                  -> interaction_rate 2/8 = 0.25 (pooled)
    confidence: s1 90 right, s2 30 wrong, s3 100 wrong, s4 none (left out, counted)
      bin [20,40): s2 -> acc 0, conf 0.30, weight 1/3 -> 0.1
      bin [80,100]: s1, s3 (100 falls in the last bin) -> acc 0.5, conf 0.95, weight 2/3 -> 0.3
      calibration_error = 0.4 (had 100 opened a sixth bin it would be 1/3*0.1 + 1/3*1.0 = 0.3667)
    tokens: agent 8 actions x (10 in, 2 out, $0.001) = 80 / 16 / $0.008
            user 2 replies x (5, 1, $0.0005) = 10 / 2 / $0.001
            judge 4 verdicts x (7, 3, $0.002) = 28 / 12 / $0.008
            total 118 in, 30 out, $0.017; the errored session is left out and counted.
    """
    g = group(score(world, runs=["ic"]), "ic")
    m = g["metrics"]
    assert g["benchmark"] == "interactcomp" and g["n_sessions"] == 4
    assert m["accuracy"] == 0.5
    assert m["rounds"] == 2.0
    assert m["interaction_rate"] == 0.25
    assert m["calibration_error"] == pytest.approx(0.4)
    assert (m["calibration_n"], m["calibration_missing"]) == (3, 1)
    assert m["errored"] == 1
    assert m["interact_rounds"] == 0.5  # IRound: 2 asks over 4 sessions
    assert m["accuracy_std"] is None  # one run: no spread across runs
    assert m["tokens_by_role"]["agent"] == {"tokens_in": 80, "tokens_out": 16, "cost_usd": pytest.approx(0.008)}
    assert m["tokens_by_role"]["user"] == {"tokens_in": 10, "tokens_out": 2, "cost_usd": pytest.approx(0.001)}
    assert m["tokens_by_role"]["judge"] == {"tokens_in": 28, "tokens_out": 12, "cost_usd": pytest.approx(0.008)}
    assert (m["tokens_in"], m["tokens_out"], m["cost_usd"]) == (118, 30, pytest.approx(0.017))


def test_accuracy_std_over_runs(world):
    """Split the four scored sessions into two runs: x = s1, s4 (both right: 1.0), y = s2, s3
    (both wrong: 0.0) -> sample std of [1.0, 0.0] = sqrt(0.5) = 0.7071."""
    scored = [s for s in load_sessions(world, runs=["ic"]) if s.status == "completed"]
    for s in scored:
        s.run = "x" if s.result.correct else "y"
    assert interactcomp_metrics(scored).to_json()["accuracy_std"] == pytest.approx(0.5**0.5)


def test_calibration_bins_edges():
    """0-19.99 -> 0, 20 -> 1, 79.9 -> 3, 80 -> 4 and 100 -> 4 (exactly 1 is in the last bin)."""
    assert [calibration_bin(c) for c in (0, 19.99, 20, 79.9, 80, 100)] == [0, 0, 1, 3, 4, 4]


def test_a_group_of_only_errored_sessions_has_null_metrics_not_zero(world):
    """The errored session alone: no denominators anywhere -> every metric null, errored = 1."""
    errored = [s for s in load_sessions(world, runs=["ic"]) if s.status == "errored"]
    m = interactcomp_metrics(errored).to_json()
    assert m["accuracy"] is None and m["rounds"] is None
    assert m["interaction_rate"] is None and m["calibration_error"] is None
    assert m["errored"] == 1


# ---- DiscoBench ------------------------------------------------------------------------


def test_discobench_hand_computed(world):
    """Six completed sessions (A B C D G H) and one errored.

    outcomes: A [correct, correct]  B [failed, unreached] (strict)  C [missed, correct]
              D [missed, correct]   G [failed, failed]  H [missed, failed]
    accuracy: A, C, D right -> 3/6 = 0.5
    checkpoint pass: 1, 0, 1, 1, 0, 0.5 -> 3.5/6 = 0.58333
    detection over reached checkpoints (B reaches only checkpoint 1):
      A: TP, TN  B: FN  C: FN, TN  D: FN (untargeted ask), FP (ask on unambi)  G: TP, TN  H: FN, TN
      TP 2, FN 4, FP 1, TN 4 -> accuracy 6/11, precision 2/3, recall 2/6, F1 2(2/3)(1/3)/(1) = 4/9
    asked checkpoints: A.1 right advanced, D.1 wrong, D.2 wrong, G.1 right not advanced
      ce_a = 2/4 = 0.5, ce_b = 1/4 = 0.25
    ask turns 1, 0, 0, 2, 1, 0 -> 4/6; tool turns 2, 1, 5, 1, 0, 1 -> 10/6
    profiles of the six reached ambiguous checkpoints (K = 3):
      A search_then_ask pass, B direct_guess fail, C search_heavy_guess (5 searches) pass,
      D direct_ask pass, G direct_ask fail, H direct_guess pass
      shares DG 2/6, SHG 1/6, DA 2/6, STA 1/6; pass rates DG 1/2, SHG 1, DA 1/2, STA 1
    """
    g = group(score(world, runs=["disco"]), "disco")
    m = g["metrics"]
    assert g["n_sessions"] == 6 and m["errored"] == 1
    assert m["accuracy"] == 0.5
    assert m["checkpoint_pass_rate"] == pytest.approx(3.5 / 6)
    assert m["detection"] == {"tp": 2, "fn": 4, "fp": 1, "tn": 4}
    assert m["detection_accuracy"] == pytest.approx(6 / 11)
    assert m["detection_precision"] == pytest.approx(2 / 3)
    assert m["detection_recall"] == pytest.approx(1 / 3)
    assert m["detection_f1"] == pytest.approx(4 / 9)
    assert (m["ce_a"], m["ce_b"]) == (0.5, 0.25)
    assert m["ask_turns"] == pytest.approx(4 / 6) and m["tool_turns"] == pytest.approx(10 / 6)
    p = m["profiles"]
    assert {k: v["share"] for k, v in p.items()} == pytest.approx(
        {"direct_guess": 2 / 6, "search_heavy_guess": 1 / 6, "direct_ask": 2 / 6, "search_then_ask": 1 / 6}
    )
    assert {k: v["pass_rate"] for k, v in p.items()} == pytest.approx(
        {"direct_guess": 0.5, "search_heavy_guess": 1.0, "direct_ask": 0.5, "search_then_ask": 1.0}
    )
    assert set(m["tokens_by_role"]) >= {"agent", "user", "judge"}
    # breakdowns: all six reached ambiguous checkpoints are 'entity'; A and G asked right,
    # A, C, D, H passed; the task is 'hard'
    assert m["by_ambiguity_type"] == {
        "entity": {"n": 6, "detection_recall": pytest.approx(2 / 6), "pass_rate": pytest.approx(4 / 6)}
    }
    assert m["by_difficulty"] == {
        "hard": {"n_sessions": 6, "accuracy": 0.5, "checkpoint_pass_rate": pytest.approx(3.5 / 6)}
    }


def test_profile_threshold_is_configurable_and_an_empty_profile_has_null_pass_rate(world):
    """K = 5: C's five searches are no longer 'heavy' -> DG 3/6 with pass 2/3; SHG share 0, pass null."""
    m = group(score(world, runs=["disco"], profile_k=5), "disco")["metrics"]
    assert m["profiles"]["direct_guess"]["share"] == 0.5
    assert m["profiles"]["direct_guess"]["pass_rate"] == pytest.approx(2 / 3)
    assert m["profiles"]["search_heavy_guess"] == {"share": 0.0, "pass_rate": None, "n": 0}


def test_discobench_zero_denominators_are_null(world):
    """B alone never asks: TP+FP = 0 -> precision null; recall 0/1 = 0; F1 = 2TP/(2TP+FP+FN) =
    0/1 = 0 (the count form: a missed ambiguity is a real miss, not a missing number); ce_a/ce_b
    null (no asked checkpoint); the unreached checkpoint 2 is in no denominator: detection accuracy 0/1."""
    sessions = [
        s
        for s in load_sessions(world, runs=["disco"])
        if s.result.checkpoints
        and s.result.checkpoints[0].answer == "My Time at Portia"
        and not s.result.checkpoints[0].asked
    ]
    m = discobench_metrics(sessions).to_json()
    assert m["detection_precision"] is None and m["detection_f1"] == 0.0
    assert m["detection_recall"] == 0.0 and m["detection_accuracy"] == 0.0
    assert m["ce_a"] is None and m["ce_b"] is None
    assert m["profiles"]["direct_ask"]["pass_rate"] is None


# ---- Clarify-Then-Search ---------------------------------------------------------------


def test_cts_k1_diagnostics_and_delta_with_a_bootstrap_ci(world):
    """k1: c1 region q -> unknown, FULL (100); c2 year q -> 2023, PARTIAL (30); c3 region q -> Kyoto, HARVEST (40)
    orig: c1 NOTHING 0, c2 PARTIAL 30, c3 HARVEST 40

    restore: mean 170/3 = 56.667, p50 40, p90 (rank 1.8) 40 + 0.8*60 = 88, min 30, max 100
    ua_unknown_rate 1/3; cq_region_rate 2/3; region-only unknown 1/2
    all_unknown_rate 1/3; known_cnt {0: 1/3, 1: 2/3}
    delta vs orig: per-task differences 100, 0, 0 -> mean 33.333. Bootstrap means take
    values 0, 33.3, 66.7, 100 with P(0) = (2/3)^3 = 0.30 > 0.025 and P(100) = 1/27 = 0.037 > 0.025,
    so the 95% CI is [0, 100]: it brackets 33.333.
    """
    report = score(world, benchmark="cts")
    m = group(report, "k1")["metrics"]
    assert m["restore_score_mean"] == pytest.approx(170 / 3)
    assert (m["restore_score_p50"], m["restore_score_p90"]) == (40, pytest.approx(88))
    assert (m["restore_score_min"], m["restore_score_max"]) == (30, 100)
    assert m["ua_unknown_rate"] == pytest.approx(1 / 3)
    assert m["cq_region_rate"] == pytest.approx(2 / 3)
    assert m["region_only_unknown_rate"] == 0.5
    assert m["all_unknown_rate"] == pytest.approx(1 / 3)
    assert m["known_cnt"] == pytest.approx({"0": 1 / 3, "1": 2 / 3})
    assert m["per_turn"] == []
    d = m["delta_vs_orig"]
    assert d["mean"] == pytest.approx(100 / 3) and d["n_tasks"] == 3
    assert d["ci95"] == [0.0, 100.0]
    assert group(report, "orig")["metrics"]["delta_vs_orig"] is None
    assert group(report, "orig")["metrics"]["ua_unknown_rate"] is None  # orig asks nothing


def test_cts_k3_per_turn_and_known_cnt(world):
    """k3 questions (year, region, which one): c1 -> 2023, unknown, Uji matcha (known 2);
    c2 -> 2023, unknown, unknown (1); c3 -> unknown, Kyoto, unknown (1).
    scores: c1 FULL 100, c2 NOTHING 0, c3 PARTIAL 30 -> mean 43.333, p50 30, p90 30 + 0.8*70 = 86
    ua_unknown_rate 5/9; cq_region_rate 3/9; region-only unknown 2/3; all_unknown 0
    known_cnt {0: 0, 1: 2/3, 2: 1/3, 3: 0}
    per turn: 1 (year) unknown 1/3, region 0, region-only unknown null (no region question)
              2 (region) unknown 2/3, region 1, region-only unknown 2/3
              3 (which) unknown 2/3, region 0, region-only unknown null
    delta vs orig: 100 - 0, 0 - 30, 30 - 40 -> 100, -30, -10 -> mean 20
    """
    m = group(score(world, benchmark="cts", bootstrap=2000), "k3")["metrics"]
    assert m["restore_score_mean"] == pytest.approx(130 / 3)
    assert m["restore_score_p50"] == 30 and m["restore_score_p90"] == pytest.approx(86)
    assert m["ua_unknown_rate"] == pytest.approx(5 / 9)
    assert m["cq_region_rate"] == pytest.approx(1 / 3)
    assert m["region_only_unknown_rate"] == pytest.approx(2 / 3)
    assert m["all_unknown_rate"] == 0.0
    assert m["known_cnt"] == pytest.approx({"0": 0.0, "1": 2 / 3, "2": 1 / 3, "3": 0.0})
    turns = {t["turn"]: t for t in m["per_turn"]}
    assert turns[1]["ua_unknown_rate"] == pytest.approx(1 / 3) and turns[1]["cq_region_rate"] == 0.0
    assert turns[1]["region_only_unknown_rate"] is None
    assert turns[2]["ua_unknown_rate"] == pytest.approx(2 / 3) and turns[2]["cq_region_rate"] == 1.0
    assert turns[2]["region_only_unknown_rate"] == pytest.approx(2 / 3)
    assert turns[3]["region_only_unknown_rate"] is None
    d = m["delta_vs_orig"]
    assert d["mean"] == pytest.approx(20)
    lo, hi = d["ci95"]
    assert lo <= 20 <= hi and lo >= -30 and hi <= 100


def test_bootstrap_is_seeded_and_brackets_the_mean():
    """Paired differences 1..20 minus 5: mean 5.5; the CI must contain it, be reproducible with
    the same seed and tighter than the range."""
    diffs = [float(i) - 5 for i in range(1, 21)]
    a = bootstrap_mean_ci(diffs, resamples=3000, seed=7)
    assert a == bootstrap_mean_ci(diffs, resamples=3000, seed=7)
    assert a[0] < 5.5 < a[1] and a[0] > -4 and a[1] < 15
    assert bootstrap_mean_ci([], resamples=10) is None


def test_percentile_interpolates_between_order_statistics():
    """[0, 30, 100]: p50 = 30; p90 at rank 1.8 = 30 + 0.8 * 70 = 86; one value is every percentile."""
    assert percentile([0, 30, 100], 50) == 30
    assert percentile([0, 30, 100], 90) == pytest.approx(86)
    assert percentile([7], 90) == 7 and percentile([], 50) is None


# ---- humans, exclusions, grouping ------------------------------------------------------


async def test_a_human_played_session_scores_like_the_automated_one(tmp_path):
    """The same DiscoBench and InteractComp actions, once by a list agent and once submitted
    through HumanAgent (mode human_agent): per-mode groups get identical metrics."""
    store = Store(tmp_path / "h.db")
    for task, actions in ((DISCO, DISCO_SESSIONS["A"]), (DISCO, DISCO_SESSIONS["H"]), (IC, IC_SESSIONS["s1"])):
        await play(store, task, actions, run="r")
        human = HumanAgent()
        for a in actions:
            human.submit(a.model_copy(deep=True))
        await play(store, task, [], run="r", agent=human, mode="human_agent", annotator="ann")
    report = score(store, by="mode")
    for benchmark in ("discobench", "interactcomp"):
        auto, human = [g for g in report["groups"] if g["benchmark"] == benchmark]
        assert auto["key"] == {"mode": "automated"} and human["key"] == {"mode": "human_agent"}
        assert auto["metrics"] == human["metrics"] and auto["n_sessions"] == human["n_sessions"]
    by_annotator = score(store, by="annotator", benchmark="interactcomp")
    assert [g["key"] for g in by_annotator["groups"]] == [{"annotator": None}, {"annotator": "ann"}]


async def test_abandoned_human_sessions_are_excluded_and_counted(tmp_path):
    """One finished session (right) and one abandoned after a search: accuracy 1/1, errored 0,
    abandoned 1 (an abandoned session is not an infrastructure failure); the person's session
    is counted in its role's group, never in the automated one's numbers."""
    store = Store(tmp_path / "a.db")
    await play(store, IC, IC_SESSIONS["s4"], run="r")
    human = HumanAgent()
    session = Session(
        run="r",
        task_id=IC.id,
        protocol=IC.protocol,
        agent="human",
        user="rule",
        search="local",
        mode="human_agent",
        annotator="ann",
    )
    ep = build_episode(IC, agent=human, user=RuleUser(), search=SEARCH, judge=RuleJudge(), session=session, sink=store)
    await ep.apply(Action.search("lattice tower"))
    ep.abandon()
    # the run mixes roles: the person's session is counted in a group of its own (metrics/roles.py)
    auto, person = score(store)["groups"]
    assert (auto["key"], person["key"]) == ({"run": "r", "role": "automated"}, {"run": "r", "role": "human_agent"})
    assert auto["metrics"]["accuracy"] == 1.0 and auto["metrics"]["abandoned"] == 0
    m = person["metrics"]
    assert person["n_sessions"] == 0 and m["errored"] == 0 and m["abandoned"] == 1


def test_from_session_matches_load_sessions(world):
    """Scoring from pydantic models gives the numbers scoring from the database gives."""
    sessions = world.sessions(runs=["ic"])
    steps = world.steps_by_session()
    built = [from_session(s, steps.get(s.id, [])) for s in sessions]
    assert interactcomp_metrics(built) == interactcomp_metrics(load_sessions(world, runs=["ic"]))


# ---- re-judging ------------------------------------------------------------------------


async def test_rejudging_stores_verdicts_beside_the_old_and_score_picks_the_judge(tmp_path):
    """Rejudge with a judge that accepts nothing.

    DiscoBench A (right): the answer was judged on checkpoint 2, so the strict verdict fails it:
      outcomes [correct_answer, failed] -> accuracy 0, checkpoint pass 1/2.
    CTS c1 FULL (100) -> every nugget none -> 0.
    --judge rule (the engine's judge) still gives the original numbers; default = latest (strict).
    Strict verdicts carry usage: 100 tokens in per answer verdict on the judge role.
    """
    store = Store(tmp_path / "j.db")
    await play(store, DISCO, DISCO_SESSIONS["A"], run="d")
    await play(store, C1, [Action.clarify([YEAR]), Action.answer(FULL)], run="c")
    summary = await rejudge(store, StrictJudge(), runs=["d", "c"])
    assert (summary.judged, summary.changed, summary.failed) == (2, 2, [])
    [sid] = [s.id for s in store.sessions(runs=["d"])]
    assert [j["judge"] for j in store.judgments(sid)] == ["test:strict"]

    latest = score(store)
    d = group(latest, "d")["metrics"]
    assert d["accuracy"] == 0.0 and d["checkpoint_pass_rate"] == 0.5
    assert d["tokens_by_role"]["judge"]["tokens_in"] == 100
    assert group(latest, "c")["metrics"]["restore_score_mean"] == 0.0

    original = score(store, judge="rule")
    assert group(original, "d")["metrics"]["accuracy"] == 1.0
    assert group(original, "d")["metrics"]["checkpoint_pass_rate"] == 1.0
    assert group(original, "c")["metrics"]["restore_score_mean"] == 100.0

    unknown = score(store, judge="openai:nobody")
    assert group(unknown, "d")["n_sessions"] == 0 and group(unknown, "d")["metrics"]["unjudged"] == 1


def test_cts_metrics_with_no_orig_has_null_delta(world):
    sessions = load_sessions(world, runs=["k1"])
    assert cts_metrics(sessions).to_json()["delta_vs_orig"] is None


def test_bootstrap_does_not_depend_on_the_executor(monkeypatch):
    """Chunks are seeded by (seed, chunk index): a pool running them gives the serial numbers."""
    from concurrent.futures import ProcessPoolExecutor

    from clarify_tui.metrics import common

    monkeypatch.setattr(common, "PARALLEL_MIN_DRAWS", 0)
    diffs = [float(i % 7) - 2.5 for i in range(40)]
    serial = bootstrap_mean_ci(diffs, resamples=6000, seed=3)
    with ProcessPoolExecutor(2) as pool:
        assert bootstrap_mean_ci(diffs, resamples=6000, seed=3, executor=pool) == serial
