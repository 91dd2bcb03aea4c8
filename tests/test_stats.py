"""The annotator statistics (metrics/stats.py) against published values: they replaced
statsmodels, so each formula is pinned to a table or worked example a reader can check."""

import math

import pytest

from clarify_tui.metrics.intervals import t_interval, wilson
from clarify_tui.metrics.stats import (
    betainc,
    cohen_kappa,
    fleiss_kappa,
    mean_t_interval,
    t_cdf,
    t_quantile,
    wilson_interval,
)

# Two-sided 95 % critical values t(0.975, df), df 1-30, then 40, 60, 120: any printed
# t table (e.g. NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.2).
T_975 = {
    1: 12.706,
    2: 4.303,
    3: 3.182,
    4: 2.776,
    5: 2.571,
    6: 2.447,
    7: 2.365,
    8: 2.306,
    9: 2.262,
    10: 2.228,
    11: 2.201,
    12: 2.179,
    13: 2.160,
    14: 2.145,
    15: 2.131,
    16: 2.120,
    17: 2.110,
    18: 2.101,
    19: 2.093,
    20: 2.086,
    21: 2.080,
    22: 2.074,
    23: 2.069,
    24: 2.064,
    25: 2.060,
    26: 2.056,
    27: 2.052,
    28: 2.048,
    29: 2.045,
    30: 2.042,
    40: 2.021,
    60: 2.000,
    120: 1.980,
}


@pytest.mark.parametrize("df,value", sorted(T_975.items()))
def test_t_quantile_matches_the_published_table(df, value):
    assert round(t_quantile(0.975, df), 3) == value


def test_t_quantile_other_levels_symmetry_and_the_normal_limit():
    assert round(t_quantile(0.995, 4), 3) == 4.604 and round(t_quantile(0.95, 10), 3) == 1.812
    assert round(t_quantile(0.995, 1), 3) == 63.657
    assert t_quantile(0.025, 4) == pytest.approx(-t_quantile(0.975, 4))
    assert t_quantile(0.5, 7) == pytest.approx(0.0, abs=1e-12)
    assert t_quantile(0.975, 100_000) == pytest.approx(1.959988, abs=1e-6)  # z + (z^3 + z) / 4df; z = 1.959964
    assert t_cdf(2.776445105, 4) == pytest.approx(0.975, abs=1e-9)
    with pytest.raises(ValueError):
        t_quantile(1.0, 3)


def test_incomplete_beta_closed_forms():
    assert betainc(1, 1, 0.3) == pytest.approx(0.3)  # uniform
    assert betainc(2, 3, 0.4) == pytest.approx(0.5248)  # 1 - sum_{k<2} C(4,k) .4^k .6^(4-k)
    assert betainc(0.5, 0.5, 0.5) == pytest.approx(0.5)
    assert (betainc(2, 2, 0.0), betainc(2, 2, 1.0)) == (0.0, 1.0)


def test_t_interval_of_a_mean_uses_t_not_the_normal():
    # 1..5: mean 3, sd sqrt(2.5), t(0.975, 4) = 2.7764: 3 -+ 2.7764 * 1.5811 / sqrt(5)
    lo, hi = mean_t_interval([1, 2, 3, 4, 5])
    assert (round(lo, 4), round(hi, 4)) == (1.0368, 4.9632)
    assert t_interval([1.0, 2.0, 3.0, 4.0, 5.0]) == pytest.approx([1.0368, 4.9632], abs=1e-4)
    assert t_interval([40.0, 40.0, 40.0]) == [40.0, 40.0]


# Newcombe (1998), "Two-sided confidence intervals for the single proportion: comparison
# of seven methods", Statistics in Medicine 17:857-872: its worked examples, method 3 (Wilson score).
@pytest.mark.parametrize(
    "k,n,lo,hi",
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)
def test_wilson_matches_newcombe_1998(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert (round(got[0], 4), round(got[1], 4)) == (lo, hi)
    assert wilson(k, n) == pytest.approx(list(got))


def test_wilson_stays_inside_0_1():
    assert wilson_interval(29, 29)[1] == 1.0 and wilson_interval(0, 5)[0] == 0.0
    assert wilson(0, 0) is None


def test_fleiss_kappa_worked_example(wiki_fleiss_table):
    assert round(fleiss_kappa(wiki_fleiss_table), 3) == 0.210
    assert math.isnan(fleiss_kappa([[3, 0], [3, 0]]))  # one category only: undefined


def test_cohen_kappa_textbook_examples():
    # Wikipedia, "Cohen's kappa": 50 grant proposals, yes/yes 20, yes/no 5, no/yes 10,
    # no/no 15: po 0.7, pe 0.5, kappa 0.4; and the two tables with the same agreement
    # (0.60) but different kappas, 0.1304 and 0.2593.
    assert cohen_kappa([[20, 5], [10, 15]]) == pytest.approx(0.4)
    assert round(cohen_kappa([[45, 15], [25, 15]]), 4) == 0.1304
    assert round(cohen_kappa([[25, 35], [5, 35]]), 4) == 0.2593
    assert math.isnan(cohen_kappa([[4, 0], [0, 0]]))
