"""The verdict rule and its statistics: a t-test on our difference, the minimum detectable
effect (80 % power, two-sided α = 0.05) at our noise, how many seeds would reach the paper's
effect, and one fixed rule from them to a verdict.

Every test here is a t-test on a difference ``ours`` with standard error ``se`` and ``df``
degrees of freedom (:func:`two_sample`: seeds against seeds, pooled variance, as
:func:`scipy.stats.ttest_ind`; :func:`one_sample`: seeds against one deterministic model, as
:func:`scipy.stats.ttest_1samp`; :func:`single_vs_noise`: two single models against the seed
std of a third recipe). The minimum detectable effect solves ``power(d) = 0.8`` with the
noncentral t distribution (:func:`mde`).

The rule (:func:`verdict`), for a claim whose effect the paper gives (``kind="effect"``):

- *not testable here*: ``testable`` is False (the reason says why);
- beyond the noise (p < α): *reproduced* when in the paper's direction and at least half its
  size, *direction only* when in its direction but smaller, *not reproduced* when opposite;
- within the noise: *underpowered* when the minimum detectable effect exceeds the paper's
  effect (the test could not have seen it), else *not reproduced* (it could, and did not);
- no noise to test against (p is NaN: deterministic measurements): *reproduced* / *direction
  only* / *not reproduced* by direction and half-size alone.

``kind="no difference"`` (the paper claims no difference; its printed difference is ``paper``):
*not reproduced* when beyond the noise, *reproduced* when within it and the test could see a
difference of the paper's printed size, else *underpowered*. ``kind="direction"`` (the paper
gives a direction, no size; ``paper`` is +1 or -1): *reproduced* / *not reproduced* when beyond
the noise in / against its direction, within the noise *underpowered*; with no noise to test
against, *direction only* when in its direction (there is no size to reach), else *not reproduced*.
``kind="value"`` (a number measured again, no noise): *reproduced* within ``tol`` of the paper's,
else *not reproduced*.

What it leaves out: which numbers are compared (:mod:`.ours`).

>>> round(mde(1.0, 4), 2)   # se 1, 4 dof: the difference a t-test finds 80 % of the time
3.76
>>> seeds_for_power(std=1.5 ** 0.5, effect=3.77)   # 3 seeds a side: se 1, 4 dof, as above
3.0
>>> verdict(paper=-2.2, ours=-2.0, p=0.01, mde=1.0)
'reproduced'
"""
from __future__ import annotations

import math

import numpy as np

ALPHA = 0.05
POWER = 0.8
VERDICTS = ("reproduced", "direction only", "not reproduced", "underpowered", "not testable here")


def p_value(diff: float, se: float, df: float) -> float:
    """Two-sided p of a t statistic ``diff / se`` with ``df`` degrees of freedom (NaN without noise)."""
    from scipy import stats

    if not (se > 0 and df > 0):
        return math.nan
    return float(2 * stats.t.sf(abs(diff) / se, df))


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
    2n - 2) or ``one-sample`` (seeds against one deterministic model: se = std / sqrt(n), df = n - 1).

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
    """``mean(x) - mean(y)`` over seeds, pooled std, se and df of the equal-variance t-test."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    df = len(x) + len(y) - 2
    pooled = math.sqrt(((len(x) - 1) * x.var(ddof=1) + (len(y) - 1) * y.var(ddof=1)) / df) if df > 0 else math.nan
    return _stats(x.mean() - y.mean(), pooled, pooled * math.sqrt(1 / len(x) + 1 / len(y)), df, len(x), len(y))


def one_sample(x, reference: float) -> dict:
    """``mean(x) - reference`` where ``reference`` is one deterministic model (the untrained backbone)."""
    x = np.asarray(x, float)
    sd = x.std(ddof=1) if len(x) > 1 else math.nan
    return _stats(x.mean() - reference, sd, sd / math.sqrt(len(x)), len(x) - 1, len(x), 1)


def single_vs_noise(a: float, b: float, sd: float, df: int, na: int = 1, nb: int = 1) -> dict:
    """``a - b`` of means over ``na`` and ``nb`` models, against a seed std ``sd`` (``df`` dof)
    measured on another recipe: ``se = sd * sqrt(1/na + 1/nb)``."""
    return _stats(a - b, sd, sd * math.sqrt(1 / na + 1 / nb), df, na, nb)


def deterministic(diff: float) -> dict:
    """A difference with no noise to test it against (a count, one measurement per side)."""
    return _stats(diff, math.nan, math.nan, 0, 1, 1)


def _stats(diff, sd, se, df, n, n_ref) -> dict:
    return {"ours": float(diff), "std": float(sd), "se": float(se), "df": int(df), "n": int(n), "n_ref": int(n_ref),
            "p": p_value(diff, se, df), "mde": mde(se, df)}


def verdict(paper: float, ours: float, p: float, mde: float, testable: bool = True, kind: str = "effect",
            direction: int = 0, tol: float = math.nan) -> str:
    """One of :data:`VERDICTS` by the module's rule (``direction``: the claimed sign, for
    ``kind="direction"``; ``tol``: the agreement asked of ``kind="value"``)."""
    if not testable:
        return "not testable here"
    noisy = not (isinstance(p, float) and math.isnan(p)) and p is not None
    if kind == "value":
        return "reproduced" if abs(ours - paper) <= tol else "not reproduced"
    if kind == "no difference":
        if not noisy:
            raise ValueError("a claim of no difference needs a test: give p and mde")
        if p < ALPHA:
            return "not reproduced"
        return "reproduced" if mde <= abs(paper) else "underpowered"
    if kind not in ("effect", "direction"):
        raise ValueError(f"kind must be 'effect', 'no difference', 'direction' or 'value', not {kind!r}")
    same = bool(np.sign(ours) == np.sign(direction if kind == "direction" else paper)) and ours != 0
    if kind == "direction":
        if not noisy:
            return "direction only" if same else "not reproduced"
        if p < ALPHA:
            return "reproduced" if same else "not reproduced"
        return "underpowered"
    big = abs(ours) >= abs(paper) / 2
    if not noisy or p < ALPHA:
        return ("reproduced" if big else "direction only") if same else "not reproduced"
    return "underpowered" if mde > abs(paper) else "not reproduced"
