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
