"""The verdict rule and its statistics: one test (Welch's t) with one noise model per reference,
our difference with its 95 % interval, its p against 0 and against the paper's value, the
minimum detectable effect (80 % power, two-sided α = 0.05), the equivalence test (TOST), Holm's
adjustment over the ledger, and one fixed rule from the adjusted evidence to a verdict.

**One test.** Every comparison of seeds goes through :func:`welch`: Welch's t on the two means,
each with the variance of its own mean, on Welch–Satterthwaite degrees of freedom. What differs
is only the noise model of the reference (``[ref]`` below), never the test:

- :func:`two_sample`: seeds against seeds (the reference's variance from its own seeds); with
  three seeds a side a test of equal variances has no power, so the variances are never pooled;
- :func:`measured_reference`: seeds against one model whose score is a mean over runs with a
  measured spread (the untrained backbone through Table 2's ten classifier seeds): the
  reference's standard error is its own, ``std / sqrt(runs)``, on ``runs - 1`` dof;
- :func:`one_sample`: seeds against an exact number (a score computed once, deterministically:
  a silhouette in the embedding space, the untrained backbone on the seeded sweep suite): the
  reference's variance is 0 and Welch's t is the one-sample t;
- :func:`single_vs_noise`: single models against the seed std of another recipe (no seeds of
  their own: the std is borrowed, on its own dof);
- :func:`deterministic`: no noise model at all (NaN interval).

:mod:`pearl.experiments.tables` stars Table 3, Table 4 and the methods table, and
:mod:`pearl.experiments.discrepancy` tests the study's cells, through the same :func:`two_sample` /
:func:`one_sample`, so a cell starred there is the ledger's test (unadjusted: a table's star is
one cell's test, a verdict reads the family's adjustment).

**Multiplicity.** One family for the ledger (:func:`holm`): every row that tests the paper's claim
with a noise model contributes its test against 0 (TOST within the margin for a claim of no
difference) and, for an effect claim, its equivalence test against the paper's value. Holm's
step-down controls the family-wise error at α with no assumption about how the tests depend on
each other (they share seeds: the backbone's and the full recipe's appear in many rows), which
is why it is used rather than Benjamini–Hochberg, whose false-discovery guarantee needs
independent or positively dependent tests and answers a different question ("how many positive
verdicts are wrong" rather than "is any"). Where the rule reads an interval rather than a p
(the qualifiers *smaller* and the negative branches), it reads the simultaneous interval of the
same family (Bonferroni, level ``1 - α / m`` for ``m`` tests: :func:`interval`), never the
unadjusted 95 % one, which the tables show beside it.

**Margins.** An effect is *reproduced* only when an equivalence test puts it within ``±margin`` of
the paper's value, and a claim of no difference within ``±margin`` of 0; the margins are data set
before any verdict was read (:data:`pearl.claims.ledger.MARGINS`, each with its reason), never
the paper's own printed gap.

The rule (:func:`verdict`, :data:`TABLE`): orient so that the paper's effect is positive,
``P = |paper|``, ``δ`` the margin, ``[L, H]`` the simultaneous interval, ``p_holm`` the adjusted
p of the row's test against 0 (TOST for no difference), ``p_equiv`` the adjusted p of the
equivalence test against the paper's value:

==============  ============================================================  =========================
kind            condition                                                     verdict
==============  ============================================================  =========================
effect          ``p_holm < α``, our estimate on the paper's side,              reproduced
                ``p_equiv < α``
effect          ``p_holm < α``, on the paper's side, ``H < P - δ``             direction only, smaller
effect          ``p_holm < α``, on the paper's side, otherwise                 direction only
effect          ``p_holm < α``, on the other side                              not reproduced
effect          ``p_holm >= α``, ``H < P - δ`` (no effect, and the paper's     not reproduced
                size excluded by more than the margin)
effect          ``p_holm >= α``, otherwise                                     inconclusive
direction, all  ``p_holm < α`` on the claimed side / the other side / else     reproduced / not
                                                                               reproduced / inconclusive
no difference   ``p_holm`` (TOST) ``< α`` / ``L > δ`` or ``H < -δ`` / else     reproduced / not
                                                                               reproduced / inconclusive
value           within ``tol`` / not                                           reproduced / not reproduced
no noise model  by sign and half-size (a direction claim: direction only       reproduced / direction only
                or not reproduced); the reason says so                         / not reproduced
==============  ============================================================  =========================

(For kind ``all`` the row's test is that of its least favourable part, an intersection-union
test of "every part moves"; its side is the sign of that part's difference.) A wide interval
cannot pass: ``verdict(2.0, 5.0, 0.1, 9.9, p_holm=0.2, p_equiv=0.9, margin=1.0)`` is
*inconclusive*, and every row of :data:`TABLE` is reached by a case in
``tests/claims/test_rule.py``.

What it leaves out: which numbers are compared (:mod:`.ours`) and the margins' values (:mod:`.ledger`).

>>> round(mde(1.0, 4), 2)   # se 1, 4 dof: the difference a t-test finds 80 % of the time
3.76
>>> verdict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4, p_holm=0.6, p_equiv=1.0, margin=2.0)
'inconclusive'
>>> verdict(2.0, 5.0, 0.1, 9.9, p_holm=0.2, p_equiv=0.9, margin=1.0)   # a wide interval does not pass
'inconclusive'
"""
from __future__ import annotations

import math

import numpy as np

ALPHA = 0.05
POWER = 0.8
VERDICTS = ("reproduced", "direction only", "direction only, smaller", "not reproduced", "inconclusive",
            "not testable here")
POSITIVE = ("reproduced", "direction only", "direction only, smaller")
KINDS = ("effect", "no difference", "direction", "all", "value")
#: the rule as data: (kind, condition, verdict), one row per branch of :func:`verdict`
TABLE = (
    ("effect", "adjusted p < 0.05 on the paper's side, and equivalent to the paper's value within the margin",
     "reproduced"),
    ("effect", "adjusted p < 0.05 on the paper's side, the simultaneous interval below the paper's value less the "
               "margin", "direction only, smaller"),
    ("effect", "adjusted p < 0.05 on the paper's side, otherwise", "direction only"),
    ("effect", "adjusted p < 0.05 on the other side", "not reproduced"),
    ("effect", "adjusted p ≥ 0.05, the simultaneous interval below the paper's value less the margin",
     "not reproduced"),
    ("effect", "adjusted p ≥ 0.05, otherwise", "inconclusive"),
    ("direction", "adjusted p < 0.05 on the claimed side", "reproduced"),
    ("direction", "adjusted p < 0.05 on the other side", "not reproduced"),
    ("direction", "adjusted p ≥ 0.05", "inconclusive"),
    ("all", "the least favourable part: adjusted p < 0.05 on the claimed side", "reproduced"),
    ("all", "the least favourable part: adjusted p < 0.05 on the other side", "not reproduced"),
    ("all", "the least favourable part: adjusted p ≥ 0.05", "inconclusive"),
    ("no difference", "adjusted TOST p < 0.05 within the margin", "reproduced"),
    ("no difference", "the simultaneous interval wholly outside the margin", "not reproduced"),
    ("no difference", "otherwise", "inconclusive"),
    ("value", "within the tolerance", "reproduced"),
    ("value", "outside the tolerance", "not reproduced"),
    ("no noise model", "on the paper's side, at least half its size", "reproduced"),
    ("no noise model", "on the paper's side, under half its size (or a direction claim)", "direction only"),
    ("no noise model", "on the other side", "not reproduced"),
)


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


def tost(diff: float, se: float, df: float, margin: float, centre: float = 0.0) -> float:
    """p of the two one-sided tests of ``|true difference - centre| >= margin`` (small: equivalent
    to ``centre`` within ``margin``)."""
    from scipy import stats

    if not (se > 0 and df > 0 and margin > 0) or centre != centre:
        return math.nan
    d = diff - centre
    return float(max(stats.t.sf((d + margin) / se, df), stats.t.cdf((d - margin) / se, df)))


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


def welch_se(var_x: float, n: int, var_ref_mean: float = 0.0, df_ref: float = math.inf) -> tuple[float, float]:
    """``(se, df)`` of Welch's t for ``n`` seeds of variance ``var_x`` against a reference whose mean
    has variance ``var_ref_mean`` on ``df_ref`` dof (0: an exact reference, the one-sample t).

    >>> welch_se(1.0, 4)            # an exact reference: se = 1 / sqrt(4), 3 dof
    (0.5, 3.0)
    >>> welch_se(1.0, 3, 1.0 / 3, 2)  # two arms of 3 seeds, equal variances: 4 dof
    (0.816496580927726, 4.0)
    """
    a, b = var_x / n, var_ref_mean
    se2 = a + b
    if not se2 > 0:
        return math.nan, 0.0
    parts = a * a / (n - 1) + (b * b / df_ref if b > 0 and math.isfinite(df_ref) else 0.0)
    return math.sqrt(se2), float(se2 * se2 / parts) if parts > 0 else math.inf


def seeds_for_power(std: float, effect: float, design: str = "two-sample", max_n: int = 100,
                    ref_se: float = 0.0, ref_df: float = math.inf) -> float:
    """The fewest seeds per arm whose test detects a true difference ``effect`` with 80 % power, if
    the seed std is ``std``, with the standard error and dof of the test itself (:func:`welch_se`):
    ``two-sample`` (seeds on both sides, equal std) or ``reference`` (seeds against one reference
    whose mean has standard error ``ref_se`` on ``ref_df`` dof, 0 for an exact number; more seeds
    do not shrink it, so some effects no number of seeds reaches).

    It projects from our std, itself estimated from a few seeds, so it says what to plan, not what
    a run will find. NaN without a std or an effect; ``inf`` when more than ``max_n`` would be needed.
    """
    if not (std > 0) or not (abs(effect) > 0):
        return math.nan
    if design not in ("two-sample", "reference"):
        raise ValueError(f"design must be 'two-sample' or 'reference', not {design!r}")
    for n in range(2, max_n + 1):
        se, df = (welch_se(std ** 2, n, std ** 2 / n, n - 1) if design == "two-sample"
                  else welch_se(std ** 2, n, ref_se ** 2, ref_df))
        if mde(se, df) <= abs(effect):
            return float(n)
    return math.inf


def welch(x, reference_mean: float, var_ref_mean: float = 0.0, df_ref: float = math.inf, n_ref: int = 1) -> dict:
    """``mean(x) - reference_mean`` by Welch's t: seeds ``x`` against a reference whose mean has
    variance ``var_ref_mean`` on ``df_ref`` dof (0: exact). The one test every comparison uses."""
    x = np.asarray(x, float)
    if len(x) < 2:
        raise ValueError("Welch's t needs at least two seeds on the tested side")
    var = float(x.var(ddof=1))
    se, df = welch_se(var, len(x), var_ref_mean, df_ref)
    sd = math.sqrt((var + var_ref_mean * n_ref) / 2) if n_ref > 1 else math.sqrt(var)
    return _stats(x.mean() - reference_mean, sd, se, df if df > 0 else 0, len(x), n_ref,
                  math.sqrt(var_ref_mean), df_ref)


def two_sample(x, y) -> dict:
    """``mean(x) - mean(y)`` over seeds by Welch's t (``std``: the root mean of the two variances)."""
    y = np.asarray(y, float)
    if len(np.asarray(x)) < 2 or len(y) < 2:
        raise ValueError("Welch's t needs two seeds a side")
    return welch(x, float(y.mean()), float(y.var(ddof=1)) / len(y), len(y) - 1, len(y))


def one_sample(x, reference: float) -> dict:
    """``mean(x) - reference`` where ``reference`` is an exact number (Welch's t with no variance on
    that side: the one-sample t)."""
    return welch(x, float(reference))


def measured_reference(x, reference: float, ref_se: float, ref_df: float) -> dict:
    """``mean(x) - reference`` where ``reference`` is one model's mean over runs with a measured
    spread: its own standard error ``ref_se`` on ``ref_df`` dof (Table 2: ``std / sqrt(10)``, 9 dof)."""
    return welch(x, float(reference), float(ref_se) ** 2, ref_df)


def single_vs_noise(a: float, b: float, sd: float, df: int, na: int = 1, nb: int = 1) -> dict:
    """``a - b`` of means over ``na`` and ``nb`` models, against a seed std ``sd`` (``df`` dof)
    measured on another recipe: ``se = sd * sqrt(1/na + 1/nb)``."""
    return _stats(a - b, sd, sd * math.sqrt(1 / na + 1 / nb), df, na, nb, math.nan, math.nan)


def deterministic(diff: float, n: int = 1) -> dict:
    """A difference with no noise model (a count, one measurement per side)."""
    return _stats(diff, math.nan, math.nan, 0, n, 1, math.nan, math.nan)


def _stats(diff, sd, se, df, n, n_ref, ref_se, ref_df) -> dict:
    lo, hi = interval(float(diff), se, df)
    return {"ours": float(diff), "std": float(sd), "se": float(se), "df": float(df), "n": int(n), "n_ref": int(n_ref),
            "ref_se": float(ref_se), "ref_df": float(ref_df), "p": p_value(diff, se, df), "mde": mde(se, df),
            "ci_low": lo, "ci_high": hi}


def _oriented(ci_low: float, ci_high: float, sign: float) -> tuple[float, float]:
    a, b = sign * ci_low, sign * ci_high
    return min(a, b), max(a, b)


def verdict(paper: float, ours: float, ci_low: float = math.nan, ci_high: float = math.nan, testable: bool = True,
            kind: str = "effect", direction: int = 0, tol: float = math.nan, p_holm: float = math.nan,
            p_equiv: float = math.nan, margin: float = math.nan) -> str:
    """One of :data:`VERDICTS` by :data:`TABLE`: ``paper`` the paper's (like-for-like) value, ``ours``
    our estimate (for kind ``all``, the midpoint of ``[ci_low, ci_high]`` is the least favourable
    part's), ``[ci_low, ci_high]`` its simultaneous interval (NaN: no noise model), ``p_holm`` the
    adjusted p of the row's test (against 0; TOST within ``margin`` for ``no difference``),
    ``p_equiv`` the adjusted p of the equivalence test against ``paper`` (``effect``), ``margin``
    the equivalence margin, ``direction`` the claimed sign (``direction``, ``all``), ``tol`` the
    agreement asked of a ``value``."""
    if not testable:
        return "not testable here"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "value":
        return "reproduced" if abs(ours - paper) <= tol else "not reproduced"
    noisy = ci_low == ci_low and ci_high == ci_high
    if kind == "no difference":
        if not noisy or margin != margin or p_holm != p_holm:
            raise ValueError("a claim of no difference needs an interval, an adjusted TOST p and its margin")
        if p_holm < ALPHA:
            return "reproduced"
        return "not reproduced" if ci_low > margin or ci_high < -margin else "inconclusive"
    sign = direction if kind in ("direction", "all") else float(np.sign(paper))
    if not noisy:
        same = ours != 0 and np.sign(ours) == sign
        if kind != "effect":
            return "direction only" if same else "not reproduced"
        return ("reproduced" if abs(ours) >= abs(paper) / 2 else "direction only") if same else "not reproduced"
    if p_holm != p_holm:
        raise ValueError("a claim with an interval needs its Holm-adjusted p (p_holm)")
    low, high = _oriented(ci_low, ci_high, sign)
    side = sign * ((ci_low + ci_high) / 2 if kind == "all" else ours)
    if kind != "effect":
        return "inconclusive" if p_holm >= ALPHA else "reproduced" if side > 0 else "not reproduced"
    if margin != margin:
        raise ValueError("an effect claim with an interval needs its equivalence margin")
    below = high < abs(paper) - margin  # the paper's size excluded by more than the margin
    if p_holm >= ALPHA:
        return "not reproduced" if below else "inconclusive"
    if side < 0:
        return "not reproduced"
    if p_equiv < ALPHA:
        return "reproduced"
    return "direction only, smaller" if below else "direction only"
