"""The verdict rule on hand-made cases, one per branch of its table and kind, and its statistics
(intervals, Welch, TOST, Holm) against scipy's own t-tests, hand-computed numbers and a
simulation of the power they claim."""
import math

import numpy as np
import pytest
from scipy import stats

from pearl.claims import rule
from pearl.claims.rule import verdict

NAN = math.nan


E = dict(margin=1.0)  # an effect claim's margin in the cases below


@pytest.mark.parametrize("case, expected", [
    # effect, paper -2.2: significant after Holm on the paper's side, equivalent to -2.2 within the margin
    (dict(paper=-2.2, ours=-2.0, ci_low=-2.5, ci_high=-1.5, p_holm=0.001, p_equiv=0.01, **E), "reproduced"),
    # ... significant, not shown equivalent, the interval reaching the paper's value
    (dict(paper=-2.2, ours=-1.0, ci_low=-2.3, ci_high=-0.1, p_holm=0.01, p_equiv=0.4, **E), "direction only"),
    # ... beyond the paper's value by more than the margin: the direction, not the size
    (dict(paper=-2.2, ours=-4.0, ci_low=-5.0, ci_high=-3.0, p_holm=0.001, p_equiv=0.9, **E), "direction only"),
    # significant, the interval wholly short of the paper's value less the margin
    (dict(paper=-2.2, ours=-0.6, ci_low=-1.0, ci_high=-0.2, p_holm=0.01, p_equiv=1.0, **E), "direction only, smaller"),
    # significant on the other side
    (dict(paper=-0.5, ours=0.9, ci_low=0.1, ci_high=1.7, p_holm=0.02, p_equiv=1.0, **E), "not reproduced"),
    # the same interval, but not significant once adjusted: no positive verdict, and 0.9 is within the margin's reach
    (dict(paper=-0.5, ours=-0.9, ci_low=-1.7, ci_high=-0.1, p_holm=0.3, p_equiv=0.5, **E), "inconclusive"),
    # holds 0 and the paper's value (the issue's - entity type example)
    (dict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4, p_holm=0.6, p_equiv=1.0, **E), "inconclusive"),
    # not significant, the paper's size excluded by more than the margin
    (dict(paper=5.5, ours=0.6, ci_low=-0.2, ci_high=1.4, p_holm=0.4, p_equiv=1.0, **E), "not reproduced"),
    # the wide interval: an unadjusted interval above 0 reaching the paper's value does not pass
    (dict(paper=2.0, ours=5.0, ci_low=0.1, ci_high=9.9, p_holm=0.2, p_equiv=0.9, **E), "inconclusive"),
    (dict(paper=6.1, ours=NAN, testable=False), "not testable here"),
    # no noise model: the one comparison, by sign and half size
    (dict(paper=5, ours=3), "reproduced"),
    (dict(paper=5, ours=1), "direction only"),
    (dict(paper=5, ours=-1), "not reproduced"),
    (dict(paper=64.7, ours=64.9, kind="value", tol=1.0), "reproduced"),
    (dict(paper=64.7, ours=66.0, kind="value", tol=1.0), "not reproduced"),
    # no difference: adjusted TOST within the margin, the interval wholly outside it, neither
    (dict(paper=1.5, ours=0.33, ci_low=0.09, ci_high=0.58, kind="no difference", p_holm=0.001, margin=1.0), "reproduced"),
    (dict(paper=0, ours=46.6, ci_low=33.9, ci_high=59.2, kind="no difference", p_holm=1.0, margin=10), "not reproduced"),
    (dict(paper=0.3, ours=0.2, ci_low=-0.2, ci_high=0.6, kind="no difference", p_holm=0.3, margin=1.0), "inconclusive"),
    # an unadjusted TOST p under 0.05 is not enough once Holm lifts it
    (dict(paper=2.2, ours=0.4, ci_low=-0.1, ci_high=0.9, kind="no difference", p_holm=0.47, margin=1.0), "inconclusive"),
    # a direction without a size
    (dict(paper=NAN, ours=1.5, ci_low=0.5, ci_high=2.5, kind="direction", direction=1, p_holm=0.01), "reproduced"),
    (dict(paper=NAN, ours=1.5, ci_low=0.5, ci_high=2.5, kind="direction", direction=1, p_holm=0.2), "inconclusive"),
    (dict(paper=NAN, ours=-1.2, ci_low=-1.9, ci_high=-0.4, kind="direction", direction=1, p_holm=0.01), "not reproduced"),
    (dict(paper=NAN, ours=-13.6, kind="direction", direction=-1), "direction only"),
    (dict(paper=NAN, ours=2.0, kind="direction", direction=-1), "not reproduced"),
    # every part in the direction (-1): the least favourable part's interval and adjusted p
    (dict(paper=5, ours=5, ci_low=-2.0, ci_high=-0.5, kind="all", direction=-1, p_holm=0.01), "reproduced"),
    (dict(paper=5, ours=1, ci_low=-4.1, ci_high=7.2, kind="all", direction=-1, p_holm=0.9), "inconclusive"),
    (dict(paper=5, ours=-1, ci_low=0.5, ci_high=3.0, kind="all", direction=-1, p_holm=0.01), "not reproduced"),
])
def test_each_branch_on_a_hand_made_case(case, expected):
    assert verdict(**case) == expected


def _branch(kind: str, **case) -> str:
    """The :data:`rule.TABLE` kind a case of ``verdict`` falls under (no interval: "no noise model")."""
    return "no noise model" if kind in ("effect", "direction", "all") and case.get("ci_low", NAN) != case.get(
        "ci_low", NAN) else kind


def test_every_row_of_the_rule_table_is_reached_by_an_enumerated_case():
    """A grid over estimates, intervals and adjusted p's for each kind reaches every verdict the
    table lists for that kind, and no other (an unreachable branch or an unlisted verdict fails)."""
    listed = {(k, v) for k, _, v in rule.TABLE}
    reached = set()
    grid = [-3.0, -0.5, 0.5, 1.8, 3.0, 6.0]
    for kind in ("effect", "direction", "all", "no difference"):
        for ours in grid:
            for half in (0.3, 1.5, 4.0):
                for p_holm in (0.01, 0.3):
                    for p_equiv in (0.01, 0.3):
                        case = dict(paper=2.0, ours=ours, ci_low=ours - half, ci_high=ours + half, kind=kind,
                                    direction=1, p_holm=p_holm, p_equiv=p_equiv, margin=1.0)
                        if kind == "effect" and p_equiv < 0.05 and (abs(ours - 2.0) > 1.0 or p_holm >= 0.05):
                            continue  # equivalence to 2.0 needs ours within the margin, and then excludes 0
                        reached.add((kind, verdict(**case)))
        for ours in grid:  # no noise model
            if kind != "no difference":
                reached.add(("no noise model", verdict(paper=2.0, ours=ours, kind=kind, direction=1)))
    for ours in (64.0, 70.0):
        reached.add(("value", verdict(paper=64.7, ours=ours, kind="value", tol=1.0)))
    assert reached == listed, (listed - reached, reached - listed)


def test_positive_verdicts_need_an_adjusted_p_under_alpha():
    for kind in ("effect", "direction", "all", "no difference"):
        for p_holm in (0.051, 0.2, 1.0):
            got = verdict(paper=2.0, ours=2.0, ci_low=1.5, ci_high=2.5, kind=kind, direction=1, p_holm=p_holm,
                          p_equiv=0.001, margin=1.0)
            assert got not in rule.POSITIVE, (kind, p_holm, got)


def test_every_verdict_is_reachable_and_kinds_are_checked():
    assert set(rule.VERDICTS) == {v for _, _, v in rule.TABLE} | {"not testable here"}
    with pytest.raises(ValueError, match="kind must be"):
        verdict(1.0, 1.0, 0.5, 1.5, kind="bigger")
    with pytest.raises(ValueError, match="no difference needs"):
        verdict(1.0, 1.0, kind="no difference")
    with pytest.raises(ValueError, match="p_holm"):
        verdict(1.0, 1.0, 0.5, 1.5, margin=1.0)
    with pytest.raises(ValueError, match="margin"):
        verdict(1.0, 1.0, 0.5, 1.5, p_holm=0.01)


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


def test_holm_by_hand():
    # sorted 0.01, 0.02, 0.04 with 3 tests: 0.03, 0.04, 0.04 (monotone); NaN left out of the family
    assert list(rule.holm([0.04, NAN, 0.01, 0.02])[[0, 2, 3]]) == pytest.approx([0.04, 0.03, 0.04])
    assert math.isnan(rule.holm([0.04, NAN])[1]) and rule.holm([0.9, 0.8])[0] == 1.0


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


def test_seeds_for_power_is_the_fewest_that_reach_the_effect():
    # two-sample, std sqrt(1.5): 3 seeds a side give se 1 and 4 dof, whose mde is 3.76 (above)
    sd = math.sqrt(1.5)
    assert rule.seeds_for_power(sd, 3.77) == 3
    assert rule.seeds_for_power(sd, -3.77) == 3  # the size counts, not the sign
    assert rule.seeds_for_power(sd, 3.70) == 4  # just below the 3-seed mde: one seed more
    # against an exact number, std 2: 4 seeds give se 1 and 3 dof
    d = rule.mde(1.0, 3)
    assert rule.seeds_for_power(2.0, d + 1e-6, "reference") == 4
    assert rule.mde(2.0 / math.sqrt(3), 2) > d  # and 3 would not do
    # each answer is the fewest: one seed fewer misses the effect
    for n_std, eff in [(0.43, 0.8), (2.06, 3.2), (0.6, 0.5)]:
        n = rule.seeds_for_power(n_std, eff)
        assert rule.mde(n_std * math.sqrt(2 / n), 2 * n - 2) <= eff < rule.mde(n_std * math.sqrt(2 / (n - 1)), 2 * n - 4)
    assert math.isnan(rule.seeds_for_power(NAN, 1.0)) and math.isnan(rule.seeds_for_power(1.0, NAN))
    assert rule.seeds_for_power(10.0, 0.01, max_n=20) == math.inf
    # against a reference with its own noise, the plan uses the test's own se: sqrt(std^2/n + ref_se^2)
    n = rule.seeds_for_power(1.0, 1.0, "reference", ref_se=0.2, ref_df=9)
    se, df = rule.welch_se(1.0, int(n), 0.04, 9)
    assert rule.mde(se, df) <= 1.0 < rule.mde(*rule.welch_se(1.0, int(n) - 1, 0.04, 9))
    assert n > rule.seeds_for_power(1.0, 1.0, "reference")  # the reference's noise costs seeds
    # an effect below what the reference's own noise allows is never reached, however many seeds
    assert rule.seeds_for_power(0.1, 0.5, "reference", ref_se=0.3, ref_df=9) == math.inf
    with pytest.raises(ValueError, match="two-sample"):
        rule.seeds_for_power(1.0, 1.0, "paired")
