"""The verdict rule and its statistics: one test (Welch's t) with one noise model per reference,
our difference with its 95 % interval, its p against 0 and against the paper's value, the
minimum detectable effect (80 % power, two-sided α = 0.05), the equivalence test (TOST), each
sentence's family interval, and one fixed rule that reads that interval against the margins.

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

The seed variance is never pooled across arms or rows: each row's noise is its own arms' (a
row with 3 seeds against an exact number keeps its 2 dof and pays for them in its interval).

:mod:`pearl.experiments.tables` stars Table 3, Table 4 and the methods table, and
:mod:`pearl.experiments.discrepancy` tests the study's cells, through the same :func:`two_sample` /
:func:`one_sample`, so a cell starred there is the ledger's test (unadjusted: a table's star is
one cell's test, a verdict reads its family's interval).

**Families.** One family per paper sentence: the rows that test it, on every stand-in and every
metric it names (a ledger's ``family``: the harness's claims ledger); ``m`` is the number of those rows with a
noise model. A verdict never reads a row of another family, so adding or removing another
sentence's row changes no verdict. Each row's verdict reads its **family interval**
(:func:`family_interval`): the t interval whose each bound is a one-sided test at ``α / m``
(level ``1 - 2α / m``; with ``m = 1`` the 90 % interval of TOST at α = 0.05). Every statement a
verdict makes (the value within the margin, a value excluded, a side) is wrong only if the truth
lies beyond one bound, on one side, so each row errs with probability at most ``α / m`` and the
family at most α (Bonferroni, which is Holm's first step: Holm's later steps have no interval
that agrees with them, so the verdict, read from an interval, does not use them). The same
interval decides for the paper and against it: the strictness is symmetric. :func:`adjusted`
gives the p-values that agree with it (``p < α`` exactly when the interval excludes the
value); :func:`false_discovery` a ledger-wide Benjamini–Hochberg q, shown beside, never read by
a verdict.

**Margins.** The margins are data set before any verdict was read
(a ledger's ``MARGINS``, each with its reason), never the paper's own printed gap.
A claim whose size the margin swallows (``δ ≥ P``), or whose reference's own noise alone makes
the interval wider than the margin however many seeds are trained (:func:`floor`), is *below
resolution*: the benchmark cannot resolve it.

The rule (:func:`verdict`, :data:`TABLE`): orient so that the paper's effect is positive,
``P = |paper|``, ``δ`` the margin, ``[L, H]`` the family interval:

==============  ============================================================  ==============================
kind            condition                                                     verdict
==============  ============================================================  ==============================
effect          ``δ >= P``, or the reference's noise floor ``>= δ``            below resolution
effect          ``P - δ < L`` and ``H < P + δ``                               reproduced
effect          ``H < 0``                                                     reversed
effect          ``0 < L`` and ``H < P - δ``                                   direction only, smaller
effect          ``L <= 0`` and ``H < P - δ`` (0 not excluded, the paper's     not reproduced at this budget
                size excluded)
effect          ``0 < L``, otherwise                                          direction only
effect          otherwise (``L <= 0`` and ``H >= P - δ``)                     inconclusive
no difference   the reference's noise floor ``>= δ``                          below resolution
no difference   ``-δ < L`` and ``H < δ``, and the paper's own printed          reproduced, barely moved
                difference excluded too
no difference   ``-δ < L`` and ``H < δ``                                       reproduced
no difference   ``L > δ`` or ``H < -δ``                                       not reproduced
no difference   otherwise                                                     inconclusive
direction, all  ``0 < L`` / ``H < 0`` / otherwise                             reproduced / reversed /
                                                                              inconclusive
value           within ``tol`` / not                                          reproduced / not reproduced
no noise model  by sign and half-size (a direction claim: direction only      reproduced / direction only
                or not reproduced); the reason says so                        / not reproduced
==============  ============================================================  ==============================

(For kind ``all`` the interval is that of its least favourable part, an intersection-union
test of "every part moves".) *Not reproduced at this budget* is its own answer: our runs
exclude the paper's size while leaving no effect possible, which says what this budget gives,
not that the paper's runs were wrong. *Reproduced, barely moved*: a claim of no difference that
passes while the interval also excludes the difference the paper itself printed, so the arms
differ less here than they did in the paper (as when training barely moves the model).

The plan (:func:`seeds_to_decide`): the fewest seeds per arm with which the same rule, at the
family's level, decides the row (any verdict but *inconclusive*) with 80 % power (that probability)
if the true difference and spread are those observed (a lower bound on that probability from
the noncentral t: it plans seeds, it does not promise what a run finds).

What it leaves out: which numbers are compared (:mod:`.ours`), the margins' values and the
families (:mod:`.ledger`).

>>> round(mde(1.0, 4), 2)   # se 1, 4 dof: the difference a t-test finds 80 % of the time
3.76
>>> verdict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4, margin=2.0)
'inconclusive'
>>> verdict(paper=5.46, ours=1.91, ci_low=1.6, ci_high=2.2, margin=1.0)   # C01 on me5-small, m = 2
'direction only, smaller'
"""
from __future__ import annotations

import math

import numpy as np

ALPHA = 0.05
POWER = 0.8
VERDICTS = ("reproduced", "reproduced, barely moved", "direction only", "direction only, smaller",
            "not reproduced at this budget", "reversed", "not reproduced", "below resolution", "inconclusive",
            "not testable here")
POSITIVE = ("reproduced", "reproduced, barely moved", "direction only", "direction only, smaller")
#: the verdicts that decide a row (what the plan of :func:`seeds_to_decide` aims at)
DECIDED = tuple(v for v in VERDICTS if v not in ("inconclusive", "not testable here", "below resolution"))
KINDS = ("effect", "no difference", "direction", "all", "value")
#: the rule as data: (kind, condition, verdict), one row per branch of :func:`verdict`
TABLE = (
    ("effect", "the margin is at least the paper's effect, or the reference's own noise is wider than the margin "
               "however many seeds", "below resolution"),
    ("effect", "the family interval lies within the paper's value ± the margin", "reproduced"),
    ("effect", "the family interval lies below 0", "reversed"),
    ("effect", "the family interval lies above 0 and below the paper's value less the margin",
     "direction only, smaller"),
    ("effect", "the family interval holds 0 and lies below the paper's value less the margin",
     "not reproduced at this budget"),
    ("effect", "the family interval lies above 0 and reaches the paper's value less the margin", "direction only"),
    ("effect", "the family interval holds 0 and reaches the paper's value less the margin", "inconclusive"),
    ("no difference", "the reference's own noise is wider than the margin however many seeds", "below resolution"),
    ("no difference", "the family interval lies within ± the margin and excludes the paper's own printed difference",
     "reproduced, barely moved"),
    ("no difference", "the family interval lies within ± the margin", "reproduced"),
    ("no difference", "the family interval lies wholly outside ± the margin", "not reproduced"),
    ("no difference", "the family interval holds a value within the margin and one outside it", "inconclusive"),
    ("direction", "the family interval lies on the claimed side of 0", "reproduced"),
    ("direction", "the family interval lies on the other side of 0", "reversed"),
    ("direction", "the family interval holds 0", "inconclusive"),
    ("all", "the least favourable part's family interval lies on the claimed side of 0", "reproduced"),
    ("all", "the least favourable part's family interval lies on the other side of 0", "reversed"),
    ("all", "the least favourable part's family interval holds 0", "inconclusive"),
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


def family_interval(diff: float, se: float, df: float, m: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The interval a verdict reads: each bound a one-sided test at ``alpha / m`` (level
    ``1 - 2 alpha / m``), for a row of a family of ``m`` rows with a noise model.

    >>> [round(v, 3) for v in family_interval(0.0, 1.0, 10, 1)]   # m = 1: the 90 % interval of TOST
    [-1.812, 1.812]
    """
    return interval(diff, se, df, 1 - 2 * alpha / max(int(m), 1))


def one_sided(diff: float, se: float, df: float, against: float = 0.0, side: float = 1.0) -> float:
    """p of the one-sided test that the true difference lies beyond ``against`` on ``side`` (+1: above)."""
    from scipy import stats

    if not (se > 0 and df > 0) or against != against:
        return math.nan
    return float(stats.t.sf(side * (diff - against) / se, df))


def adjusted(p: float, m: int) -> float:
    """A one-sided p (or a TOST p) multiplied by the family's ``m`` tests (Bonferroni): under α
    exactly when the family interval (:func:`family_interval`) excludes the value tested."""
    return min(1.0, p * max(int(m), 1)) if p == p else math.nan


def false_discovery(p) -> np.ndarray:
    """Benjamini–Hochberg q-values over the whole ledger (NaN left out and kept NaN): shown beside
    the verdicts, never read by them."""
    from scipy import stats

    p = np.asarray(p, float)
    out = np.full(p.shape, np.nan)
    ok = ~np.isnan(p)
    if ok.any():
        out[ok] = stats.false_discovery_control(p[ok], method="bh")
    return out


def floor(ref_se: float, ref_df: float, m: int = 1, alpha: float = ALPHA) -> float:
    """The half-width the family interval keeps however many seeds are trained: the reference's own
    standard error (Welch's dof tend to the reference's), 0 for an exact or seeded reference."""
    from scipy import stats

    if not (ref_se > 0) or not (ref_df > 0) or not math.isfinite(ref_df):
        return 0.0
    return float(stats.t.ppf(1 - alpha / max(int(m), 1), ref_df) * ref_se)


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


def design_se(std: float, n: int, design: str = "two-sample", ref_se: float = 0.0,
              ref_df: float = math.inf) -> tuple[float, float]:
    """``(se, df)`` of the test with ``n`` seeds of std ``std`` per arm: ``two-sample`` (seeds on both
    sides, equal std) or ``reference`` (seeds against one reference whose mean has standard error
    ``ref_se`` on ``ref_df`` dof, 0 for an exact number; more seeds do not shrink it)."""
    if design == "two-sample":
        return welch_se(std ** 2, n, std ** 2 / n, n - 1)
    if design == "reference":
        return welch_se(std ** 2, n, ref_se ** 2, ref_df)
    raise ValueError(f"design must be 'two-sample' or 'reference', not {design!r}")


def _beyond(x: float, bound: float, se: float, df: float, crit: float) -> float:
    """P(the lower bound ``x̂ - crit·ŝe`` lies above ``bound``) when the truth is ``x`` (noncentral t;
    its upper tail, finite far out where the cdf is NaN)."""
    from scipy import stats

    return float(stats.nct.sf(crit, df, (x - bound) / se))


def decide_probability(kind: str, x: float, se: float, df: float, m: int = 1, paper: float = math.nan,
                       margin: float = math.nan) -> float:
    """A lower bound on the probability that :func:`verdict` decides a row (any verdict of
    :data:`DECIDED`) when the true oriented difference is ``x`` (the paper's effect positive) and the
    test has ``se`` on ``df`` dof, read at the family's level ``α / m``. Each decided region is one
    or two one-sided events of the noncentral t; the bound takes the likeliest region.

    >>> round(decide_probability("direction", 0.0, 1.0, 1000), 3)   # no effect: each side 5 %
    0.05
    """
    from scipy import stats

    if not (se > 0 and df > 0):
        return math.nan
    c = float(stats.t.ppf(1 - ALPHA / max(int(m), 1), df))
    above = lambda b: _beyond(x, b, se, df, c)          # noqa: E731  P(L > b)
    below = lambda b: _beyond(-x, -b, se, df, c)        # noqa: E731  P(H < b)
    if kind in ("direction", "all"):
        return max(above(0.0), below(0.0))
    if kind == "no difference":
        return max(above(margin), below(-margin), above(-margin) + below(margin) - 1)
    if kind == "effect":  # outside below resolution P > δ, so L > 0 or H < P - δ decides
        return max(above(0.0), below(abs(paper) - margin))
    return math.nan


def seeds_to_decide(kind: str, x: float, std: float, m: int = 1, paper: float = math.nan, margin: float = math.nan,
                    design: str = "two-sample", ref_se: float = 0.0, ref_df: float = math.inf,
                    max_n: int = 100) -> float:
    """The fewest seeds per arm (2 to ``max_n``) with which :func:`decide_probability` reaches 80 % power at
    the oriented difference ``x`` and seed std ``std`` (:func:`design_se` for the design); ``inf``
    when none does (a reference whose own noise caps it), NaN without a std.

    It projects from our std and our estimate, themselves from a few seeds, so it says what to
    plan, not what a run will find.

    >>> seeds_to_decide("direction", 1.0, 1.0, design="reference")   # one-sided 5 %, 80 % power: about 8 seeds
    8.0
    """
    if not (std > 0) or x != x:
        return math.nan
    for n in range(2, max_n + 1):
        se, df = design_se(std, n, design, ref_se, ref_df)
        if decide_probability(kind, x, se, df, m, paper, margin) >= POWER:
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
            kind: str = "effect", direction: int = 0, tol: float = math.nan, margin: float = math.nan,
            floor: float = 0.0) -> str:
    """One of :data:`VERDICTS` by :data:`TABLE`: ``paper`` the paper's (like-for-like) value (for
    ``no difference``, its printed difference), ``ours`` our estimate, ``[ci_low, ci_high]`` the
    family interval (:func:`family_interval`; NaN: no noise model; for kind ``all``, the least
    favourable part's), ``margin`` the equivalence margin, ``floor`` the half-width the interval
    keeps however many seeds (:func:`floor`), ``direction`` the claimed sign (``direction``,
    ``all``), ``tol`` the agreement asked of a ``value``."""
    if not testable:
        return "not testable here"
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    if kind == "value":
        return "reproduced" if abs(ours - paper) <= tol else "not reproduced"
    noisy = ci_low == ci_low and ci_high == ci_high
    if kind == "no difference":
        if not noisy or margin != margin:
            raise ValueError("a claim of no difference needs an interval and its margin")
        if floor >= margin:
            return "below resolution"
        if -margin < ci_low and ci_high < margin:
            # the paper printed a difference and called it none: excluding it too says our arms differ
            # less than the paper's did (one-sided at the family's level, as every bound here)
            sign = float(np.sign(paper)) if paper == paper else 0.0
            return "reproduced, barely moved" if sign and _oriented(ci_low, ci_high, sign)[1] < abs(paper) \
                else "reproduced"
        return "not reproduced" if ci_low > margin or ci_high < -margin else "inconclusive"
    sign = direction if kind in ("direction", "all") else float(np.sign(paper))
    if not noisy:
        same = ours != 0 and np.sign(ours) == sign
        if kind != "effect":
            return "direction only" if same else "not reproduced"
        return ("reproduced" if abs(ours) >= abs(paper) / 2 else "direction only") if same else "not reproduced"
    low, high = _oriented(ci_low, ci_high, sign)
    if kind != "effect":
        return "reproduced" if low > 0 else "reversed" if high < 0 else "inconclusive"
    if margin != margin:
        raise ValueError("an effect claim with an interval needs its equivalence margin")
    size = abs(paper)
    if margin >= size or floor >= margin:
        return "below resolution"
    if size - margin < low and high < size + margin:
        return "reproduced"
    if high < 0:
        return "reversed"
    if high < size - margin:
        return "direction only, smaller" if low > 0 else "not reproduced at this budget"
    return "direction only" if low > 0 else "inconclusive"
