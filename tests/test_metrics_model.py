"""Typed metrics (metrics/model.py, issue 32): a protocol's model gives back today's JSON, and
a plug-in's scorer that returns a plain dict keeps working, its numbers untouched."""

from __future__ import annotations

import pytest

from clarify_tui.metrics.model import Epochs, Exclusions, Group, OwnMetrics, RoleTokens, Scores, Usage
from clarify_tui.protocols.cts.metric_model import DeltaVsOrig


def usage() -> Usage:
    return Usage(
        tokens_in=10,
        tokens_out=5,
        cost_usd=None,
        agent_cost_usd=0.25,
        unpriced_models=["m"],
        tokens_by_role={"agent": RoleTokens(tokens_in=10, tokens_out=5, cost_usd=0.25)},
        tokens_in_total=12,
        tokens_out_total=6,
        cost_usd_total=None,
    )


def plugin_dict() -> dict:
    """What a plug-in's scorer returns today (examples/riddle): its numbers, usage, exclusions."""
    return {
        "ask_rate": 0.5,
        "accuracy": 1,  # an int stays an int: the JSON must not turn 1 into 1.0
        "nested": {"b": 1, "a": [1, 2]},
        **usage().to_json(),
        **Exclusions(errored=1, abandoned=0, running=0, unjudged=2).to_json(),
    }


def test_a_plugins_dict_reads_back_as_the_same_json_in_the_same_order():
    data = plugin_dict()
    metrics = OwnMetrics.from_json(data)
    assert metrics.usage.tokens_by_role["agent"].cost_usd == 0.25
    assert metrics.excluded.unjudged == 2
    out = metrics.to_json()
    assert out == data and list(out) == list(data)
    assert type(out["accuracy"]) is int


def test_the_reports_additions_follow_the_protocols_numbers():
    """Intervals (by annotator), epochs and the active time come after usage and exclusions,
    as `score` always added them; a CTS group's epochs carry no pass^k."""
    metrics = OwnMetrics.from_json(plugin_dict())
    metrics.intervals["accuracy_ci95"] = [0.1, 0.9]
    metrics.epochs = Epochs(n_epochs=2, mean=0.5, std=0.0, per_epoch={"1": 0.5, "2": 0.5})
    metrics.active_ms_mean = 1500.0
    keys = list(metrics.to_json())
    assert keys[-4:] == ["unjudged", "accuracy_ci95", "epochs", "active_ms_mean"]
    assert list(metrics.to_json()["epochs"]) == ["n_epochs", "mean", "std", "per_epoch"]
    metrics.epochs.pass_k = {"1": 0.5, "2": None}
    assert metrics.numbers()["pass^1"] == 0.5 and "pass^2" not in metrics.numbers()
    assert "ask_rate" in metrics.numbers() and "nested" not in metrics.numbers()


def test_a_dict_without_the_usage_every_protocol_reports_is_refused_by_name():
    data = plugin_dict()
    del data["tokens_by_role"], data["running"]
    with pytest.raises(ValueError, match="tokens_by_role, running: add metrics.common's usage_totals"):
        OwnMetrics.from_json(data)


def test_a_report_round_trips_through_its_json():
    group = {
        "key": {"run": "r", "role": "human_agent"},
        "benchmark": "riddle",
        "n_sessions": 3,
        "comparable": False,
        "deviations": ["user: rule"],
        "metrics": plugin_dict(),
    }
    scores = Scores.from_json({"groups": [group]})
    assert scores.groups[0].role == "human_agent"
    assert scores.to_json() == {"groups": [group]}
    assert isinstance(scores.groups[0], Group)


def test_nested_models_print_as_their_fields_in_order():
    delta = DeltaVsOrig(
        mean=1.0, ci95=[0.5, 1.5], n_tasks=3, unpaired=0, deep_search=["d"], orig_mean=2.0, resamples=10, seed=0
    )
    assert list(delta.to_json()) == [
        "mean",
        "ci95",
        "n_tasks",
        "unpaired",
        "deep_search",
        "orig_mean",
        "resamples",
        "seed",
    ]


def test_a_metric_by_name_is_the_value_its_json_prints():
    """The score tables read rows by name (a spec's table_rows): the same value as the JSON,
    for a typed model and for a plug-in's dict alike."""
    from clarify_tui.protocols.cts.metric_model import CTSMetrics, Turn

    cts = CTSMetrics(
        usage=usage(),
        excluded=Exclusions(errored=0, abandoned=1, running=0, unjudged=0),
        restore_score_mean=50.0,
        restore_score_p50=None,
        restore_score_p90=None,
        restore_score_min=None,
        restore_score_max=None,
        ua_unknown_rate=None,
        cq_region_rate=None,
        region_only_n=0,
        region_only_unknown_rate=None,
        all_unknown_rate=None,
        known_cnt={"0": 1.0},
        n_questions=2,
        n_clarified=1,
        n_orig=0,
        per_turn=[
            Turn(
                turn=1,
                n_questions=1,
                ua_unknown_rate=0.0,
                cq_region_rate=None,
                region_only_n=0,
                region_only_unknown_rate=None,
            )
        ],
        delta_vs_orig=None,
        intervals={"restore_score_ci95": [40.0, 60.0]},
    )
    own = OwnMetrics.from_json(plugin_dict())
    for metrics in (cts, own):
        data = metrics.to_json()
        for name in [*data, "values", "usage", "nope"]:
            assert metrics.value(name) == data.get(name), name
            assert metrics.has(name) == (name in data), name
