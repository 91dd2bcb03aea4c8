"""The four textbook formulas the annotator figures need, in plain Python.

They used to come from statsmodels, which with numpy, scipy and pandas was 262 of the
356 MB an install took (and pandas, once installed, is imported by sqlite-utils on every
`run`). Each function here is a few lines of a published formula, pinned in
tests/test_stats.py against published values:
- `t_quantile`: Student-t quantile, the exact inverse of the t CDF (regularized
  incomplete beta, Numerical Recipes 3rd ed. §6.4 `betacf`; bisection), so that
  t(0.975, 4) = 2.776 and not the normal 1.96;
- `wilson_interval`: Wilson (1927) score interval (Newcombe 1998's method 3, and its
  worked examples 81/263, 15/148, 0/20, 1/29);
- `fleiss_kappa`: Fleiss (1971), kappa = (P - Pe) / (1 - Pe);
- `cohen_kappa`: Cohen (1960), kappa = (po - pe) / (1 - pe).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist


def _betacf(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    tiny, eps = 1e-300, 1e-15
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < eps:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """Regularized incomplete beta I_x(a, b) for a, b > 0 and 0 <= x <= 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1.0) / (a + b + 2.0):  # the fraction converges fast on this side
        return front * _betacf(a, b, x) / a
    return 1.0 - front * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with `df` degrees of freedom."""
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t >= 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p: bisection on the exact CDF (relative error < 1e-10
    against scipy for df up to 1e5)."""
    if not 0.0 < p < 1.0 or df <= 0:
        raise ValueError(f"t_quantile needs 0 < p < 1 and df > 0, got p={p}, df={df}")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
    for _ in range(200):
        mid = (lo + hi) / 2.0
        if mid in (lo, hi):
            break
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


def wilson_interval(successes: int, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval of successes / n at confidence 1 - alpha (n > 0)."""
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0)
    p = successes / n
    denom = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1.0 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, centre - half)  # exactly 0 / 1 at the ends, no rounding
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return lo, hi


def mean_t_interval(values: Sequence[float], alpha: float = 0.05) -> tuple[float, float]:
    """Student-t interval of the mean of two or more values."""
    n = len(values)
    mean = sum(values) / n
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t_quantile(1.0 - alpha / 2.0, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def fleiss_kappa(table: Sequence[Sequence[int]]) -> float:
    """Fleiss' kappa of a subjects x categories table of counts, the same number of raters
    per subject. NaN when chance agreement is already 1 (a single category used)."""
    n_subjects = len(table)
    raters = sum(table[0])
    total = n_subjects * raters
    p_j = [sum(row[j] for row in table) / total for j in range(len(table[0]))]
    p_i = [(sum(c * c for c in row) - raters) / (raters * (raters - 1)) for row in table]
    p_bar = sum(p_i) / n_subjects
    p_e = sum(p * p for p in p_j)
    return math.nan if p_e == 1.0 else (p_bar - p_e) / (1.0 - p_e)


def cohen_kappa(table: Sequence[Sequence[int]]) -> float:
    """Cohen's kappa of a square confusion table (rater A's category by row, B's by
    column). NaN when chance agreement is already 1."""
    n = sum(sum(row) for row in table)
    k = len(table)
    p_o = sum(table[i][i] for i in range(k)) / n
    p_e = sum(sum(table[i]) * sum(row[i] for row in table) for i in range(k)) / (n * n)
    return math.nan if p_e == 1.0 else (p_o - p_e) / (1.0 - p_e)
