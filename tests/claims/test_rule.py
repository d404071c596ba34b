"""The verdict rule on hand-made cases, one per branch of its table and kind, and its statistics
(intervals, Welch, TOST, the family interval and its p-values, Benjamini–Hochberg, the plan) against
scipy's own tests, hand-computed numbers and a simulation of the power they claim."""
import math

import numpy as np
import pytest
from scipy import stats

from pearl.claims import rule
from pearl.claims.rule import verdict

NAN = math.nan


E = dict(margin=1.0)  # an effect claim's margin in the cases below


@pytest.mark.parametrize("case, expected", [
    # effect, paper -2.2: the family interval within -2.2 ± 1
    (dict(paper=-2.2, ours=-2.0, ci_low=-2.5, ci_high=-1.5, **E), "reproduced"),
    # the interval on the paper's side, reaching the paper's range without lying within it
    (dict(paper=-2.2, ours=-1.0, ci_low=-2.3, ci_high=-0.1, **E), "direction only"),
    # beyond the paper's value by more than the margin: the direction, not the size
    (dict(paper=-2.2, ours=-4.0, ci_low=-5.0, ci_high=-3.0, **E), "direction only"),
    # on the paper's side, wholly short of the paper's value less the margin
    (dict(paper=-2.2, ours=-0.6, ci_low=-1.0, ci_high=-0.2, **E), "direction only, smaller"),
    # the other side of 0
    (dict(paper=-2.2, ours=0.9, ci_low=0.1, ci_high=1.7, **E), "reversed"),
    # holds 0 and the paper's value (the issue's - entity type example)
    (dict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4, **E), "inconclusive"),
    # holds 0, the paper's size excluded by more than the margin: no effect is left possible
    (dict(paper=5.5, ours=0.6, ci_low=-0.2, ci_high=1.4, **E), "not reproduced at this budget"),
    # C01 on MiniLM: +0.29 [-0.44, +1.02] against 5.46 ± 1
    (dict(paper=5.46, ours=0.29, ci_low=-0.44, ci_high=1.02, **E), "not reproduced at this budget"),
    # a wide interval above 0 reaching the paper's value does not pass
    (dict(paper=2.0, ours=5.0, ci_low=0.1, ci_high=9.9, **E), "direction only"),
    (dict(paper=2.0, ours=4.0, ci_low=-0.1, ci_high=8.1, **E), "inconclusive"),
    # the margin at least the claimed effect (C17: -0.5 on a group, margin 2): the benchmark cannot resolve it
    (dict(paper=-0.5, ours=1.15, ci_low=0.23, ci_high=2.07, margin=2.0), "below resolution"),
    # the reference's own noise alone wider than the margin, however many seeds
    (dict(paper=3.0, ours=3.0, ci_low=2.5, ci_high=3.5, margin=1.0, floor=1.2), "below resolution"),
    (dict(paper=6.1, ours=NAN, testable=False), "not testable here"),
    # no noise model: the one comparison, by sign and half size
    (dict(paper=5, ours=3), "reproduced"),
    (dict(paper=5, ours=1), "direction only"),
    (dict(paper=5, ours=-1), "not reproduced"),
    (dict(paper=64.7, ours=64.9, kind="value", tol=1.0), "reproduced"),
    (dict(paper=64.7, ours=66.0, kind="value", tol=1.0), "not reproduced"),
    # no difference: within the margin, with the paper's own printed gap (1.5) excluded as well
    (dict(paper=1.5, ours=0.33, ci_low=0.09, ci_high=0.58, kind="no difference", margin=1.0),
     "reproduced, barely moved"),
    # within the margin, the paper's printed gap (0.3) not excluded
    (dict(paper=0.3, ours=0.1, ci_low=-0.2, ci_high=0.4, kind="no difference", margin=1.0), "reproduced"),
    (dict(paper=0, ours=46.6, ci_low=33.9, ci_high=59.2, kind="no difference", margin=10), "not reproduced"),
    (dict(paper=0.3, ours=0.2, ci_low=-0.2, ci_high=1.6, kind="no difference", margin=1.0), "inconclusive"),
    (dict(paper=0.3, ours=0.2, ci_low=-0.2, ci_high=0.6, kind="no difference", margin=1.0, floor=1.0),
     "below resolution"),
    # a direction without a size
    (dict(paper=NAN, ours=1.5, ci_low=0.5, ci_high=2.5, kind="direction", direction=1), "reproduced"),
    (dict(paper=NAN, ours=1.5, ci_low=-0.5, ci_high=3.5, kind="direction", direction=1), "inconclusive"),
    (dict(paper=NAN, ours=-1.2, ci_low=-1.9, ci_high=-0.4, kind="direction", direction=1), "reversed"),
    (dict(paper=NAN, ours=-13.6, kind="direction", direction=-1), "direction only"),
    (dict(paper=NAN, ours=2.0, kind="direction", direction=-1), "not reproduced"),
    # every part in the direction (-1): the least favourable part's interval
    (dict(paper=5, ours=5, ci_low=-2.0, ci_high=-0.5, kind="all", direction=-1), "reproduced"),
    (dict(paper=5, ours=1, ci_low=-4.1, ci_high=7.2, kind="all", direction=-1), "inconclusive"),
    (dict(paper=5, ours=-1, ci_low=0.5, ci_high=3.0, kind="all", direction=-1), "reversed"),
])
def test_each_branch_on_a_hand_made_case(case, expected):
    assert verdict(**case) == expected


def _branch(kind: str, **case) -> str:
    """The :data:`rule.TABLE` kind a case of ``verdict`` falls under (no interval: "no noise model")."""
    return "no noise model" if kind in ("effect", "direction", "all") and case.get("ci_low", NAN) != case.get(
        "ci_low", NAN) else kind


def test_every_row_of_the_rule_table_is_reached_by_an_enumerated_case():
    """A grid over papers, estimates, interval widths, margins and floors for each kind reaches every
    (kind, verdict) the table lists, and no other (an unreachable branch or an unlisted verdict fails)."""
    listed = {(k, v) for k, _, v in rule.TABLE}
    reached = set()
    grid = [-3.0, -0.5, 0.2, 0.5, 1.8, 3.0, 6.0]
    for kind in ("effect", "direction", "all", "no difference"):
        for paper in (0.5, 2.0):
            for ours in grid:
                for half in (0.3, 1.5, 4.0):
                    for fl in (0.0, 2.0):
                        case = dict(paper=paper, ours=ours, ci_low=ours - half, ci_high=ours + half, kind=kind,
                                    direction=1, margin=1.0, floor=fl)
                        reached.add((_branch(**case), verdict(**case)))
        for ours in grid:  # no noise model
            if kind != "no difference":
                reached.add(("no noise model", verdict(paper=2.0, ours=ours, kind=kind, direction=1)))
    for ours in (64.0, 70.0):
        reached.add(("value", verdict(paper=64.7, ours=ours, kind="value", tol=1.0)))
    assert reached == listed, (listed - reached, reached - listed)


def test_positive_verdicts_need_the_family_interval_to_exclude_zero():
    """A verdict for the paper's side needs the interval it reads on that side of 0 (a claim of
    no difference: within the margin), whatever the estimate."""
    for kind in ("effect", "direction", "all"):
        for lo in (-0.4, -0.01, 0.0):
            got = verdict(paper=2.0, ours=2.0, ci_low=lo, ci_high=4.0 - lo, kind=kind, direction=1, margin=1.0)
            assert got not in rule.POSITIVE, (kind, lo, got)
    assert verdict(paper=0.3, ours=0.0, ci_low=-1.0, ci_high=0.5, kind="no difference", margin=1.0) == "inconclusive"


def test_every_verdict_is_reachable_and_kinds_are_checked():
    assert set(rule.VERDICTS) == {v for _, _, v in rule.TABLE} | {"not testable here"}
    with pytest.raises(ValueError, match="kind must be"):
        verdict(1.0, 1.0, 0.5, 1.5, kind="bigger")
    with pytest.raises(ValueError, match="no difference needs"):
        verdict(1.0, 1.0, kind="no difference")
    with pytest.raises(ValueError, match="margin"):
        verdict(1.0, 1.0, 0.5, 1.5)


def test_the_family_interval_and_its_p_values_on_hand_computed_numbers():
    """Seeds 1, 2, 3 against an exact 0: mean 2, se 1/sqrt(3), 2 dof. Alone in its family the
    interval is the 90 % one, 2 ± t(0.95, 2) / sqrt(3) = 2 ± 2.919986 / 1.732051; in a family of
    two, each bound is one-sided at 0.025: the 95 % interval, 2 ± 4.302653 / 1.732051."""
    se = 1 / math.sqrt(3)
    assert rule.family_interval(2.0, se, 2, 1) == pytest.approx((2 - 1.685851, 2 + 1.685851), abs=1e-5)
    assert rule.family_interval(2.0, se, 2, 2) == pytest.approx((2 - 2.484138, 2 + 2.484138), abs=1e-5)
    lo, hi = rule.family_interval(2.0, se, 2, 1)
    assert verdict(2.0, 2.0, lo, hi, margin=1.9) == "reproduced"            # (0.31, 3.69) within 2 ± 1.9
    assert verdict(2.0, 2.0, lo, hi, margin=1.0) == "direction only"        # above 0, not within 2 ± 1
    assert verdict(6.0, 2.0, lo, hi, margin=1.0) == "direction only, smaller"  # above 0, below 5
    lo2, hi2 = rule.family_interval(2.0, se, 2, 2)
    assert verdict(6.0, 2.0, lo2, hi2, margin=1.0) == "not reproduced at this budget"  # (-0.48, 4.48)
    # the one-sided p against 0: t = 2 sqrt(3) on 2 dof; times m in a family of m
    p = stats.t.sf(2 * math.sqrt(3), 2)
    assert rule.one_sided(2.0, se, 2) == pytest.approx(p) and rule.adjusted(p, 2) == pytest.approx(2 * p)
    assert rule.adjusted(0.7, 2) == 1.0 and math.isnan(rule.adjusted(NAN, 2))


def test_the_adjusted_p_agrees_with_the_family_interval():
    """``adjusted(one_sided(...), m) < α`` exactly when the family interval's lower bound is above 0,
    and an adjusted TOST p under α exactly when it lies within the margin."""
    for diff in np.linspace(-1, 3, 41):
        for m in (1, 2, 3, 4):
            lo, hi = rule.family_interval(diff, 0.5, 4, m)
            assert (rule.adjusted(rule.one_sided(diff, 0.5, 4), m) < rule.ALPHA) == (lo > 0), (diff, m)
            within = -1.5 < lo and hi < 1.5
            assert (rule.adjusted(rule.tost(diff, 0.5, 4, 1.5), m) < rule.ALPHA) == within, (diff, m)


def test_false_discovery_is_scipys_benjamini_hochberg():
    # sorted 0.01, 0.02, 0.04 with 3 tests: 0.03, 0.03, 0.04; NaN left out
    q = rule.false_discovery([0.04, NAN, 0.01, 0.02])
    assert list(q[[0, 2, 3]]) == pytest.approx([0.04, 0.03, 0.03]) and math.isnan(q[1])


def test_floor_is_the_references_own_noise():
    # a reference with se 0.2 on 9 dof, in a family of 2: t(0.975, 9) * 0.2
    assert rule.floor(0.2, 9, 2) == pytest.approx(2.262157 * 0.2, abs=1e-6)
    assert rule.floor(0.0, math.inf) == 0.0 and rule.floor(NAN, NAN) == 0.0


def test_intervals_and_tests_on_hand_computed_numbers():
    # seeds 1, 2, 3 against an exact 0: mean 2, sd 1, se 1/sqrt(3), 2 dof, t(0.975, 2) = 4.3027
    r = rule.one_sample([1.0, 2.0, 3.0], 0.0)
    assert (r["ours"], r["df"]) == (2.0, 2) and r["ci_low"] == pytest.approx(2 - 4.302653 / math.sqrt(3), abs=1e-5)
    assert r["p"] == pytest.approx(stats.ttest_1samp([1, 2, 3], 0).pvalue, rel=1e-12)
    lo, hi = stats.ttest_1samp([1, 2, 3], 0).confidence_interval()
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), rel=1e-12)
    # the same seeds against a reference with its own measured spread (se 0.5 on 9 dof): Welch-Satterthwaite
    n = rule.measured_reference([1.0, 2.0, 3.0], 0.0, 0.5, 9)
    se2 = 1 / 3 + 0.25
    assert n["se"] == pytest.approx(math.sqrt(se2)) and n["se"] > r["se"]  # its noise enters the se
    assert n["df"] == pytest.approx(se2 ** 2 / ((1 / 3) ** 2 / 2 + 0.25 ** 2 / 9))
    # p against the paper's value: t = (2 - 5) / (1/sqrt(3)) on 2 dof
    assert rule.p_value(2.0, 1 / math.sqrt(3), 2, 5.0) == pytest.approx(2 * stats.t.sf(3 * math.sqrt(3), 2))
    # TOST: diff 0.3, se 0.1, 10 dof, margin 1 -> max(sf(13), cdf(-7)) = cdf(-7)
    assert rule.tost(0.3, 0.1, 10, 1.0) == pytest.approx(stats.t.cdf(-7, 10))
    assert rule.tost(0.3, 0.1, 10, 0.2) > 0.5  # the margin inside the estimate: no equivalence
    # equivalence to the paper's value 2.0: diff 1.8, se 0.1, margin 0.5 -> max(sf(3), cdf(-7))
    assert rule.tost(1.8, 0.1, 10, 0.5, centre=2.0) == pytest.approx(stats.t.sf(3, 10))


def test_welch_is_scipys():
    x, y = [60.0, 61.0, 62.0], [55.0, 56.0, 59.5]
    r, ref = rule.two_sample(x, y), stats.ttest_ind(x, y, equal_var=False)
    assert r["p"] == pytest.approx(ref.pvalue, rel=1e-10) and r["df"] == pytest.approx(ref.df)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(tuple(ref.confidence_interval()), rel=1e-10)
    assert rule.deterministic(3.0)["ci_low"] != rule.deterministic(3.0)["ci_low"]  # NaN: no noise model


def test_welch_with_a_measured_reference_is_scipys_welch_from_summaries():
    """A reference given by its mean, the std of its runs and their count is scipy's Welch from the
    same summaries; an exact reference is the one-sample t."""
    x = np.array([82.6, 82.5, 82.9, 82.4, 82.7])
    r = rule.measured_reference(x, 82.09, 0.334 / math.sqrt(10), 9)
    ref = stats.ttest_ind_from_stats(x.mean(), x.std(ddof=1), 5, 82.09, 0.334, 10, equal_var=False)
    assert r["p"] == pytest.approx(ref.pvalue, rel=1e-9)
    assert rule.one_sample(x, 82.09)["p"] == pytest.approx(stats.ttest_1samp(x, 82.09).pvalue, rel=1e-12)


def test_power_is_finite_far_in_the_tails():
    """scipy's noncentral t cdf turns NaN far in its tail (df 4, ncp 40); the power must not."""
    assert rule.power(40.0, 1.0, 4) == pytest.approx(1.0)
    assert rule.mde(0.01, 200) == pytest.approx(0.01 * (1.972 + 0.843), rel=0.01)


def test_mde_has_the_power_it_claims():
    d = rule.mde(1.0, 4)
    assert rule.power(d, 1.0, 4) == pytest.approx(0.8, abs=1e-9)
    assert rule.power(rule.mde(1.0, 4, alpha=0.05), 1.0, 4) > rule.power(0.9 * d, 1.0, 4)
    # a normal-theory sanity bound: with many dof the mde tends to (1.96 + 0.84) * se
    assert rule.mde(1.0, 10_000) == pytest.approx(1.96 + 0.8416, abs=0.01)
    # simulation: two arms of 3 seeds, std 1, true difference = mde -> about 80 % rejections
    rng = np.random.default_rng(0)
    diff = rule.mde(math.sqrt(2 / 3), 4)  # two arms of 3 seeds, std 1, pooled
    hits = np.mean([stats.ttest_ind(rng.normal(diff, 1, 3), rng.normal(0, 1, 3)).pvalue < 0.05 for _ in range(4000)])
    assert 0.77 < hits < 0.83


def test_seeds_to_decide_is_the_fewest_that_reach_eighty_per_cent():
    """A direction against an exact number at a true difference of one std: the one-sided t at 5 %
    with n seeds decides with the noncentral t's probability; the plan is the fewest n reaching 80 %."""
    def p(n):
        se = 1 / math.sqrt(n)
        return stats.nct.sf(stats.t.ppf(0.95, n - 1), n - 1, 1.0 / se)

    n = rule.seeds_to_decide("direction", 1.0, 1.0, design="reference")
    assert p(int(n)) >= 0.8 > p(int(n) - 1)
    # a family of two asks more of each bound: more seeds
    assert rule.seeds_to_decide("direction", 1.0, 1.0, m=2, design="reference") > n
    # an effect at 0.3 against a paper of 5 ± 1: H < 4 decides it ("not reproduced at this budget") at once
    assert rule.seeds_to_decide("effect", 0.3, 0.5, paper=5.0, margin=1.0) == 2
    # a reference whose own noise hides a small difference: never decided
    assert rule.seeds_to_decide("direction", 0.1, 1.0, design="reference", ref_se=0.3, ref_df=9) == math.inf
    assert math.isnan(rule.seeds_to_decide("direction", 1.0, NAN))
    with pytest.raises(ValueError, match="two-sample"):
        rule.seeds_to_decide("direction", 1.0, 1.0, design="paired")
