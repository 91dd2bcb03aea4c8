"""The protocol registry: one list of names, one spec per name (clarify_tui/protocols/)."""

from __future__ import annotations

import pytest

from clarify_tui.commands.common import BENCHMARKS
from clarify_tui.engine import rules_for
from clarify_tui.models import PROTOCOLS, Protocol
from clarify_tui.protocols import registry
from clarify_tui.results import parse_result
from clarify_tui.task_rows import PROTOCOL_NAMES


def test_one_protocol_list_everywhere():
    assert PROTOCOLS == PROTOCOL_NAMES == BENCHMARKS == registry.names() == tuple(p.value for p in Protocol)


@pytest.mark.parametrize("name", registry.names())
def test_each_name_has_a_spec_whose_rules_and_result_are_its_own(name):
    spec = registry.get(name)
    assert spec.name == name
    assert rules_for(Protocol(name)) is spec.rules
    assert type(parse_result(name, {})) is spec.result  # the model its stored results read as


def test_an_unknown_protocol_is_refused_with_the_known_names():
    with pytest.raises(KeyError, match="discobench, interactcomp, cts"):
        registry.get("tau2")


def test_score_and_report_list_the_tables_in_the_papers_order():
    assert registry.in_report_order() == ("interactcomp", "discobench", "cts")


async def test_every_table_row_column_and_input_a_spec_names_is_a_metric_its_scorer_returns(make_episode):
    """A protocol's table rows, wide-table columns and metric inputs name metrics its own
    scorer puts in `score --format json` (a misspelled key would print `-` forever)."""
    from clarify_tui.metrics.records import from_session
    from clarify_tui.metrics.report import score_sessions
    from tests.conftest import CTS, DISCO, IC

    sessions = []
    for task in (IC, DISCO, CTS):
        episode = make_episode(task, "direct-guess")
        await episode.run()
        sessions.append(from_session(episode.session, episode.steps, task=task))
    groups = {g["benchmark"]: g["metrics"] for g in score_sessions(sessions, by="annotator")["groups"]}
    for name in registry.names():
        spec, metrics = registry.get(name), groups[name]
        named = [k for k, _, _ in spec.table_rows + spec.ci_rows] + [*spec.summary_columns, *spec.metric_inputs]
        assert [k for k in named if k not in metrics] == [], name


def test_a_protocol_without_a_panel_of_its_own_shows_rounds_and_the_answer():
    """The generic state panel (clarify_tui/state_panel.py), drawn as the TUI would."""
    from types import SimpleNamespace

    from rich.console import Console

    from clarify_tui.results import EpisodeState
    from clarify_tui.state_panel import generic_panel
    from tests.conftest import IC

    console = Console(width=60, record=True)
    proto = SimpleNamespace(answer="Hornussen", correct=True)
    console.print(generic_panel(IC, EpisodeState(rounds_used=2, max_rounds=10), proto, False, False))
    hidden = console.export_text()
    console.print(generic_panel(IC, EpisodeState(rounds_used=2, max_rounds=10), proto, True, False))
    shown = console.export_text()
    assert "rounds 2 / 10" in hidden and "answer: Hornussen" in hidden and "correct" not in hidden
    assert "correct" in shown


def test_the_engines_rules_table_still_reads_for_code_written_before_the_registry():
    from clarify_tui.engine import RULES

    assert {p.value: cls for p, cls in RULES.items()} == {n: registry.get(n).rules for n in registry.names()}
