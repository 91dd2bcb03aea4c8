"""metrics/agreement.py against published values, and its bootstrap CI."""

from __future__ import annotations

import pytest

from clarify_tui.metrics.agreement import categorical_agreement, fleiss_kappa_varying


def test_fleiss_with_equal_raters_matches_the_published_value(wiki_fleiss_table):
    assert fleiss_kappa_varying(wiki_fleiss_table) == pytest.approx(0.210, abs=5e-4)


def test_two_raters_give_cohens_kappa_and_the_confusion_table():
    # Wikipedia's Cohen example: 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no -> kappa 0.4
    pairs = [("yes", "yes")] * 20 + [("yes", "no")] * 5 + [("no", "yes")] * 10 + [("no", "no")] * 15
    ratings = {f"i{n}": {"sim": a, "person": b} for n, (a, b) in enumerate(pairs)}
    ratings["lonely"] = {"person": "yes"}
    out = categorical_agreement(ratings, ["yes", "no", "i don't know"], resamples=500)
    assert out["method"] == "cohen"
    assert out["kappa"] == pytest.approx(0.4)
    assert out["agreement"] == pytest.approx(35 / 50)
    assert (out["items"], out["single"]) == (50, 1)
    assert out["confusion"]["rows"] == "person" and out["confusion"]["table"][0][:2] == [20, 10]
    lo, hi = out["kappa_ci95"]
    assert lo < 0.4 < hi and hi - lo < 0.6
    assert categorical_agreement(ratings, ["yes", "no"], resamples=500)["kappa_ci95"] == [lo, hi]  # seeded


def test_no_pairs_means_no_numbers_not_zero():
    out = categorical_agreement({"a": {"p": "ask"}}, ["ask", "act", "unsure"])
    assert (out["items"], out["agreement"], out["kappa"], out["kappa_ci95"]) == (0, None, None, None)
