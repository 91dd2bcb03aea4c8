"""The bundled demo data: task files, the offline corpus, and the properties the scripted
agents rely on (see the brief in data/demo: asking must pay off over guessing offline).

Offline and fast: reads the JSONL files, builds the in-memory FTS5 index once.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from clarify_tui.models import Protocol, Task
from clarify_tui.text import content_words, mentions, overlap

DATA = Path(__file__).resolve().parents[1] / "data"
DEMO = DATA / "demo"
CORPUS = DATA / "corpus"
ASPECTS = {"time", "region", "entity", "scope", "criteria"}
DOC_KEYS = {"id", "title", "url", "content", "language"}
# Abbreviations whose full stop does not end a sentence.
_ABBREVIATIONS = ("U.S.", "St.", "No.", "Dr.", "Inc.", "info.cern.ch")


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _tasks(name: str) -> list[Task]:
    return [Task.model_validate_json(line) for line in _lines(DEMO / f"{name}.jsonl")]


@pytest.fixture(scope="module")
def disco() -> list[Task]:
    return _tasks("discobench")


@pytest.fixture(scope="module")
def interactcomp() -> list[Task]:
    return _tasks("interactcomp")


@pytest.fixture(scope="module")
def cts() -> list[Task]:
    return _tasks("cts")


@pytest.fixture(scope="module")
def docs() -> list[dict]:
    out = []
    for path in sorted(CORPUS.glob("*.jsonl")):
        out += [json.loads(line) for line in _lines(path)]
    return out


@pytest.fixture(scope="module")
def titles(docs) -> list[str]:
    return [d["title"] for d in docs]


@pytest.fixture(scope="module")
def search(docs):
    from clarify_tui.search.local import LocalSearch

    return LocalSearch(docs)


def _in_some_title(name: str, titles: list[str]) -> bool:
    return any(mentions(t, name) for t in titles)


def _sentences(text: str) -> list[str]:
    for abbr in _ABBREVIATIONS:
        text = text.replace(abbr, abbr.replace(".", "\u00a7"))
    return [s for s in re.split(r"(?<=[.!?。！？])\s*", text) if s.strip()]


# ---- formats ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["discobench", "interactcomp", "cts"])
def test_every_task_line_validates_with_its_protocol(name):
    lines = _lines(DEMO / f"{name}.jsonl")
    assert lines
    for line in lines:
        task = Task.model_validate_json(line)
        assert task.protocol == Protocol(name)


def test_task_ids_are_unique_and_stable(disco, interactcomp, cts):
    ids = [t.id for t in [*disco, *interactcomp, *cts]]
    assert len(ids) == len(set(ids))
    prefixes = {"discobench": "dg-", "interactcomp": "ic-", "cts": "cts-"}
    for task in [*disco, *interactcomp, *cts]:
        assert task.id.startswith(prefixes[task.protocol.value])


def test_corpus_documents_are_well_formed(docs):
    for doc in docs:
        assert set(doc) == DOC_KEYS, doc.get("id")
        assert all(isinstance(doc[k], str) and doc[k].strip() for k in DOC_KEYS), doc["id"]
        assert doc["language"] in ("en", "zh")
        assert doc["url"].startswith("https://demo.clarify/")
        assert 2 <= len(_sentences(doc["content"])) <= 6, doc["title"]
        has_cjk = bool(re.search(r"[\u4e00-\u9fff]", doc["content"]))
        assert has_cjk == (doc["language"] == "zh"), doc["title"]


def test_corpus_ids_titles_and_urls_are_unique(docs):
    for key in ("id", "title", "url"):
        dupes = [k for k, n in Counter(d[key] for d in docs).items() if n > 1]
        assert not dupes, f"duplicate {key}: {dupes}"


# ---- counts ----------------------------------------------------------------------------


def test_minimum_counts(disco, interactcomp, cts, docs):
    assert len(disco) >= 8
    assert len(interactcomp) >= 10
    assert len(cts) >= 8
    assert len(docs) >= 150


# ---- DiscoBench ------------------------------------------------------------------------


def test_discobench_covers_all_ambiguity_types(disco):
    kinds = {cp.ambiguity_type.value for t in disco for cp in t.discobench.checkpoints if cp.type == "ambi"}
    assert kinds == {"entity", "version", "criteria", "factual_inaccuracy"}


def test_discobench_checkpoint_shape(disco):
    two_ambi = 0
    for task in disco:
        cps = task.discobench.checkpoints
        assert 2 <= len(cps) <= 3, task.id
        ambi = [cp for cp in cps if cp.type == "ambi"]
        assert ambi, task.id
        two_ambi += len(ambi) >= 2
        assert task.answer.text == cps[-1].target, task.id
        for cp in cps:
            assert cp.description, task.id
            if cp.type == "ambi":
                assert cp.distractors and cp.ambiguity_logic and cp.clue, task.id
                # The clue is a distinguishing fact, never the target's name.
                assert not any(mentions(cp.clue, f) for f in cp.target_forms()), (task.id, cp.clue)
            else:
                assert cp.ambiguity_type is None and cp.clue is None, task.id
    assert two_ambi >= 2


def test_discobench_question_names_no_target_or_distractor(disco):
    for task in disco:
        for cp in task.discobench.checkpoints:
            for name in [*cp.target_forms(), *cp.distractors]:
                assert not mentions(task.question, name), (task.id, name)


def test_discobench_targets_and_distractors_are_corpus_titles(disco, titles):
    for task in disco:
        for cp in task.discobench.checkpoints:
            assert _in_some_title(cp.target, titles), (task.id, cp.target)
            for d in cp.distractors:
                assert _in_some_title(d, titles), (task.id, d)


def _doc_for(cp, docs) -> dict:
    for form in cp.target_forms():
        for doc in docs:
            if doc["title"] == form:
                return doc
    raise AssertionError(f"no document titled {cp.target}")


def test_discobench_hops_are_linked_by_exact_titles(disco, docs):
    """Each hop's document names the previous hop's title; nothing else names the answer."""
    for task in disco:
        chain = [_doc_for(cp, docs) for cp in task.discobench.checkpoints]
        for prev, nxt in zip(chain, chain[1:]):
            assert mentions(nxt["content"], prev["title"]), (task.id, prev["title"], nxt["title"])
        final = chain[-1]
        chain_ids = {d["id"] for d in chain}
        others = [d["title"] for d in docs if d["id"] not in chain_ids and mentions(d["content"], final["title"])]
        assert not others, (task.id, others)


def test_discobench_first_search_needs_an_ask(disco, search):
    """Searching the question ranks a distractor first with a competitor close behind; the
    clue then ranks the target first."""
    for task in disco:
        cp = task.discobench.checkpoints[0]
        hits = search.search_sync(task.question, 5)
        assert hits[0].title in cp.distractors, (task.id, hits[0].title)
        assert hits[1].score >= 0.7 * hits[0].score, task.id
        top = search.search_sync(f"{cp.clue} {task.question}", 5)[0].title
        assert top in cp.target_forms(), (task.id, top)


# ---- InteractComp ----------------------------------------------------------------------


def test_interactcomp_has_chinese_tasks(interactcomp):
    zh = [t for t in interactcomp if t.language == "zh"]
    assert len(zh) >= 3
    for task in zh:
        assert re.search(r"[\u4e00-\u9fff]", task.question)


def test_interactcomp_answers_and_distractors_are_corpus_titles(interactcomp, titles):
    for task in interactcomp:
        assert _in_some_title(task.answer.text, titles), task.id
        assert task.interactcomp.distractors, task.id
        for d in task.interactcomp.distractors:
            assert _in_some_title(d, titles), (task.id, d)


def test_interactcomp_question_hides_the_answer(interactcomp):
    for task in interactcomp:
        for form in task.answer.forms():
            assert not mentions(task.question, form), task.id
        assert len(_sentences(task.interactcomp.context)) >= 3, task.id


def test_interactcomp_search_ranks_the_popular_distractor_first(interactcomp, search):
    for task in interactcomp:
        hits = search.search_sync(task.question, 5)
        top3 = [h.title for h in hits[:3]]
        assert any(mentions(hits[0].title, d) for d in task.interactcomp.distractors), (task.id, top3)
        assert any(mentions(t, f) for t in top3 for f in task.answer.forms()), (task.id, top3)


# ---- CTS -------------------------------------------------------------------------------


def test_cts_shape(cts, docs):
    ids = {d["id"] for d in docs}
    without_region = 0
    for task in cts:
        part = task.cts
        assert task.answer is None
        assert task.question == part.blurred_query
        assert set(part.intent_slots) <= ASPECTS, task.id
        assert "entity" in part.intent_slots, task.id
        without_region += "region" not in part.intent_slots
        for value in part.intent_slots.values():
            assert value.casefold() in part.fused_query.casefold(), (task.id, value)
            assert value.casefold() not in part.blurred_query.casefold(), (task.id, value)
        assert 3 <= len(part.nuggets) <= 6, task.id
        assert len({n.id for n in part.nuggets}) == len(part.nuggets)
        for nugget in part.nuggets:
            assert nugget.source_ids, (task.id, nugget.id)
            assert set(nugget.source_ids) <= ids, (task.id, nugget.source_ids)
    assert without_region >= 2


def test_cts_nuggets_are_found_in_their_sources(cts, docs):
    by_id = {d["id"]: d for d in docs}
    for task in cts:
        for nugget in task.cts.nuggets:
            text = " ".join(by_id[s]["content"] for s in nugget.source_ids)
            assert overlap(content_words(nugget.text), text) >= 0.75, (task.id, nugget.text)


def _restore(task, search, query) -> float:
    answer = " ".join(h.content for h in search.search_sync(query, 5)[:3])
    total = got = 0.0
    for nugget in task.cts.nuggets:
        share = overlap(content_words(nugget.text), answer)
        got += nugget.weight * (1.0 if share >= 0.75 else 0.5 if share >= 0.4 else 0.0)
        total += nugget.weight
    return 100 * got / total


def test_cts_clarified_query_restores_more_than_the_blurred_one(cts, search):
    blurred, clarified = [], []
    for task in cts:
        slots = task.cts.intent_slots
        known = [slots[a] for a in ("entity", "scope") if a in slots]
        blurred.append(_restore(task, search, task.cts.blurred_query))
        clarified.append(_restore(task, search, " ".join([task.cts.blurred_query, *known])))
        assert clarified[-1] >= blurred[-1], task.id
    assert sum(clarified) / len(cts) >= sum(blurred) / len(cts) + 40


# ---- end to end: the scripted policies on the bundled data -----------------------------


async def _run_all(tasks, docs, policy: str, k: int = 1) -> list[dict]:
    from clarify_tui.backends import make_agent, make_judge, make_user
    from clarify_tui.engine import build_episode
    from clarify_tui.models import EpisodeConfig
    from clarify_tui.search.local import LocalSearch

    search = LocalSearch(docs)
    results = []
    for task in tasks:
        episode = build_episode(
            task,
            agent=make_agent(f"scripted:{policy}"),
            user=make_user("rule"),
            search=search,
            judge=make_judge("rule"),
            config=EpisodeConfig(k=k),
        )
        session = await episode.run()
        assert session.status == "completed", (task.id, session.error)
        results.append(session.result)
    return results


@pytest.mark.parametrize("name", ["discobench", "interactcomp"])
async def test_search_then_ask_beats_direct_guess(name, docs):
    tasks = _tasks(name)
    guess = await _run_all(tasks, docs, "direct-guess")
    ask = await _run_all(tasks, docs, "search-then-ask")
    guess_acc = sum(bool(r.correct) for r in guess) / len(tasks)
    ask_acc = sum(bool(r.correct) for r in ask) / len(tasks)
    assert ask_acc >= guess_acc + 0.5, (guess_acc, ask_acc)


async def test_cts_clarifying_beats_the_orig_baseline(docs):
    tasks = _tasks("cts")
    orig = await _run_all(tasks, docs, "direct-guess", k=2)
    asked = await _run_all(tasks, docs, "search-then-ask", k=2)
    mean = lambda rs: sum(r.restore_score for r in rs) / len(rs)  # noqa: E731
    assert all(r.orig for r in orig)
    assert mean(asked) >= mean(orig) + 40, (mean(orig), mean(asked))


async def test_cts_clarifying_beats_orig_with_one_fixed_deep_search_agent(docs, tmp_path):
    """The paper's comparison: the same deep-search agent on q-hat (clarified, k = 2) and
    on the blurred query (orig, k = 0); score pairs them per task (delta_vs_orig)."""
    from clarify_tui.metrics import score
    from clarify_tui.models import EpisodeConfig
    from clarify_tui.runner import RunSpec, run_batch
    from clarify_tui.store import Store

    store = Store(tmp_path / "demo.db")
    tasks = _tasks("cts")
    for name, k in (("orig", 0), ("asked", 2)):
        config = EpisodeConfig(k=k, deep_search="scripted:direct-guess")
        await run_batch(
            store, RunSpec(name=name, agent="scripted:search-then-ask", benchmark="cts", config=config), tasks
        )
    [asked] = [g for g in score(store, bootstrap=500)["groups"] if g["key"] == {"run": "asked"}]
    delta = asked["metrics"]["delta_vs_orig"]
    assert delta["n_tasks"] == len(tasks) and delta["deep_search"] == ["scripted:direct-guess"]
    assert delta["mean"] >= 40 and delta["ci95"][0] > 0, delta
