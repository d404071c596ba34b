"""The verdict rule and its statistics, interval first: our difference with its 95 % confidence
interval, its p-value against 0 and against the paper's value, the minimum detectable effect
(80 % power, two-sided α = 0.05), an equivalence test (TOST) for claims of no difference, Holm's
adjustment over the ledger, and one fixed rule from the interval to a verdict.

The tests (each returns :func:`_stats`: a difference ``ours`` with standard error ``se`` on
``df`` degrees of freedom and its interval):

- :func:`two_sample`: seeds against seeds, Welch's t (:func:`scipy.stats.ttest_ind` with
  ``equal_var=False``): with three seeds a side a test of equal variances has no power, so the
  variances are never assumed equal;
- :func:`one_sample`: seeds against one exact number (a deterministic score, such as a
  silhouette in the embedding space): :func:`scipy.stats.ttest_1samp`;
- :func:`noisy_reference`: seeds against one model scored once through a noisy probe or
  classifier (the untrained backbone): the reference is one more draw of the seeds' spread, so
  ``se = std * sqrt(1/n + 1)`` on ``n - 1`` dof (its noise enters the standard error);
- :func:`single_vs_noise`: single models against the seed std of another recipe;
- :func:`deterministic`: no noise model at all (NaN interval).

The rule (:func:`verdict`) for ``kind="effect"`` reads the interval against 0 and the paper's
value ``paper`` (its like-for-like value where one is computed): orient it so that the paper's
effect is positive, ``[L, H]``, ``P = |paper|``:

=====================================  ==================================================
``H < 0``                              *not reproduced* (the other side of 0)
``L > 0`` and ``H >= P``               *reproduced*; *direction only* when our estimate
                                       is below half the paper's size
``L > 0`` and ``H < P``                *direction only, smaller* (excludes 0 and the paper)
``L <= 0 <= H`` and ``H >= P``         *inconclusive* (holds both 0 and the paper's value)
``L <= 0 <= H`` and ``H < P``          *not reproduced* (the paper's size excluded, no effect)
=====================================  ==================================================

``kind="direction"`` (the paper gives a sign ``direction``, no size) and ``kind="all"`` (every
part moves in ``direction``; the interval is that of the least favourable part, so the test is
an intersection-union test): *reproduced* when the interval excludes 0 on that side, *not
reproduced* on the other, else *inconclusive*. ``kind="no difference"``: TOST with the stated
``margin`` (the paper's printed gap unless the ledger says otherwise): *reproduced* when TOST's
p < α (the 90 % interval inside ``±margin``), *not reproduced* when the 95 % interval lies
wholly outside ``±margin``, else *inconclusive*. ``kind="value"``: *reproduced* within ``tol``.

A claim with no noise model (NaN interval) is judged on its one comparison only: *reproduced* /
*direction only* / *not reproduced* by sign and half-size (a direction claim: *direction only*
or *not reproduced*); the report says so in its reason. Verdicts read the unadjusted 95 %
interval; :func:`holm` gives the adjusted p beside it.

What it leaves out: which numbers are compared (:mod:`.ours`).

>>> round(mde(1.0, 4), 2)   # se 1, 4 dof: the difference a t-test finds 80 % of the time
3.76
>>> verdict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4)   # both 0 and the paper inside
'inconclusive'
"""
from __future__ import annotations

import math

import numpy as np

ALPHA = 0.05
POWER = 0.8
VERDICTS = ("reproduced", "direction only", "direction only, smaller", "not reproduced", "inconclusive",
            "not testable here")
KINDS = ("effect", "no difference", "direction", "all", "value")


def p_value(diff: float, se: float, df: float, against: float = 0.0) -> float:
    """Two-sided p of the t statistic ``(diff - against) / se`` on ``df`` dof (NaN without noise)."""
    from scipy import stats

    if not (se > 0 and df > 0) or against != against:
        return math.nan
    return float(2 * stats.t.sf(abs(diff - against) / se, df))


def interval(diff: float, se: float, df: float, level: float = 0.95) -> tuple[float, float]:
    """The two-sided t interval ``diff ± t(df) * se`` at ``level`` (NaN, NaN without noise)."""
    from scipy import stats

    if not (se > 0 and df > 0):
        return math.nan, math.nan
    half = float(stats.t.ppf(0.5 + level / 2, df)) * se
    return float(diff - half), float(diff + half)


def tost(diff: float, se: float, df: float, margin: float) -> float:
    """p of the two one-sided tests of ``|true difference| >= margin`` (small: equivalent within ``margin``)."""
    from scipy import stats

    if not (se > 0 and df > 0 and margin > 0):
        return math.nan
    return float(max(stats.t.sf((diff + margin) / se, df), stats.t.cdf((diff - margin) / se, df)))


def holm(p) -> np.ndarray:
    """Holm's step-down adjustment of the p-values ``p`` (NaN left out of the family and kept NaN)."""
    p = np.asarray(p, float)
    out = np.full(p.shape, np.nan)
    idx = np.flatnonzero(~np.isnan(p))
    order = idx[np.argsort(p[idx], kind="stable")]
    m, running = len(order), 0.0
    for i, j in enumerate(order):
        running = max(running, min(1.0, (m - i) * p[j]))
        out[j] = running
    return out


def power(d: float, se: float, df: float, alpha: float = ALPHA) -> float:
    """Probability that a two-sided t-test at ``alpha`` rejects when the true difference is ``d``."""
    from scipy import stats

    crit = stats.t.ppf(1 - alpha / 2, df)
    ncp = d / se
    # the lower tail as the upper tail of -T (nct.cdf far in its tail gives NaN, nct.sf gives 0)
    return float(stats.nct.sf(crit, df, ncp) + stats.nct.sf(crit, df, -ncp))


def mde(se: float, df: float, alpha: float = ALPHA, target: float = POWER) -> float:
    """The smallest true difference a two-sided t-test (``se``, ``df``) detects with probability ``target``."""
    from scipy.optimize import brentq

    if not (se > 0 and df > 0):
        return math.nan
    hi = se
    while power(hi, se, df, alpha) < target:
        hi *= 2
    return float(brentq(lambda d: power(d, se, df, alpha) - target, 0.0, hi, xtol=1e-10))


def seeds_for_power(std: float, effect: float, design: str = "two-sample", max_n: int = 100) -> float:
    """The fewest seeds per arm whose t-test detects a true difference ``effect`` with 80 % power,
    if the seed std is ``std``: ``two-sample`` (seeds on both sides: se = std * sqrt(2 / n), df =
    2n - 2) or ``one-sample`` (seeds against one exact number: se = std / sqrt(n), df = n - 1).

    It projects from our std, itself estimated from a few seeds, so it says what to plan, not what
    a run will find. NaN without a std or an effect; ``inf`` when more than ``max_n`` would be needed.
    """
    if not (std > 0) or not (abs(effect) > 0):
        return math.nan
    if design not in ("two-sample", "one-sample"):
        raise ValueError(f"design must be 'two-sample' or 'one-sample', not {design!r}")
    for n in range(2, max_n + 1):
        se, df = (std * math.sqrt(2 / n), 2 * n - 2) if design == "two-sample" else (std / math.sqrt(n), n - 1)
        if mde(se, df) <= abs(effect):
            return float(n)
    return math.inf


def two_sample(x, y) -> dict:
    """``mean(x) - mean(y)`` over seeds by Welch's t (``std``: the root mean of the two variances)."""
    from scipy import stats

    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or len(y) < 2:
        raise ValueError("Welch's t needs two seeds a side")
    vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
    res = stats.ttest_ind(x, y, equal_var=False)
    df = float(res.df) if (vx + vy) > 0 else 0
    return _stats(x.mean() - y.mean(), math.sqrt((x.var(ddof=1) + y.var(ddof=1)) / 2), math.sqrt(vx + vy), df,
                  len(x), len(y))


def one_sample(x, reference: float) -> dict:
    """``mean(x) - reference`` where ``reference`` is an exact number (scipy's one-sample t)."""
    x = np.asarray(x, float)
    sd = x.std(ddof=1) if len(x) > 1 else math.nan
    return _stats(x.mean() - reference, sd, sd / math.sqrt(len(x)), len(x) - 1, len(x), 1)


def noisy_reference(x, reference: float) -> dict:
    """``mean(x) - reference`` where ``reference`` is one model scored once through a noisy probe
    or classifier: it counts as one more draw with the seeds' variance, ``se = std * sqrt(1/n + 1)``."""
    x = np.asarray(x, float)
    sd = x.std(ddof=1) if len(x) > 1 else math.nan
    return _stats(x.mean() - reference, sd, sd * math.sqrt(1 / len(x) + 1), len(x) - 1, len(x), 1)


def single_vs_noise(a: float, b: float, sd: float, df: int, na: int = 1, nb: int = 1) -> dict:
    """``a - b`` of means over ``na`` and ``nb`` models, against a seed std ``sd`` (``df`` dof)
    measured on another recipe: ``se = sd * sqrt(1/na + 1/nb)``."""
    return _stats(a - b, sd, sd * math.sqrt(1 / na + 1 / nb), df, na, nb)


def deterministic(diff: float, n: int = 1) -> dict:
    """A difference with no noise model (a count, one measurement per side)."""
    return _stats(diff, math.nan, math.nan, 0, n, 1)


def _stats(diff, sd, se, df, n, n_ref) -> dict:
    lo, hi = interval(float(diff), se, df)
    return {"ours": float(diff), "std": float(sd), "se": float(se), "df": float(df), "n": int(n), "n_ref": int(n_ref),
            "p": p_value(diff, se, df), "mde": mde(se, df), "ci_low": lo, "ci_high": hi}


def _oriented(ci_low: float, ci_high: float, sign: float) -> tuple[float, float]:
    a, b = sign * ci_low, sign * ci_high
    return min(a, b), max(a, b)


def verdict(paper: float, ours: float, ci_low: float = math.nan, ci_high: float = math.nan, testable: bool = True,
            kind: str = "effect", direction: int = 0, tol: float = math.nan, p_tost: float = math.nan,
            margin: float = math.nan) -> str:
    """One of :data:`VERDICTS` by the module's rule: ``paper`` the paper's (like-for-like) value,
    ``ours`` our estimate, ``[ci_low, ci_high]`` its 95 % interval (NaN: no noise model);
    ``direction`` the claimed sign (kinds ``direction`` and ``all``), ``tol`` the agreement asked
    of a ``value``, ``p_tost`` and ``margin`` the equivalence test of a ``no difference`` claim."""
    if not testable:
        return "not testable here"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "value":
        return "reproduced" if abs(ours - paper) <= tol else "not reproduced"
    noisy = ci_low == ci_low and ci_high == ci_high
    if kind == "no difference":
        if not noisy or margin != margin:
            raise ValueError("a claim of no difference needs an interval, a TOST p and its margin")
        if p_tost < ALPHA:
            return "reproduced"
        return "not reproduced" if ci_low > margin or ci_high < -margin else "inconclusive"
    sign = direction if kind in ("direction", "all") else float(np.sign(paper))
    same = ours != 0 and np.sign(ours) == sign
    if not noisy:
        if kind != "effect":
            return "direction only" if same else "not reproduced"
        return ("reproduced" if abs(ours) >= abs(paper) / 2 else "direction only") if same else "not reproduced"
    low, high = _oriented(ci_low, ci_high, sign)
    if high < 0:
        return "not reproduced"
    if kind != "effect":
        return "reproduced" if low > 0 else "inconclusive"
    size = abs(paper)
    if low > 0:
        if high < size:
            return "direction only, smaller"
        return "reproduced" if abs(ours) >= size / 2 else "direction only"
    return "inconclusive" if high >= size else "not reproduced"
