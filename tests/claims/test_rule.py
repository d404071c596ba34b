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


@pytest.mark.parametrize("case, expected", [
    # effect, paper -2.2: interval above 0 on the paper's side and holding -2.2, ours at least half its size
    (dict(paper=-2.2, ours=-1.5, ci_low=-2.5, ci_high=-0.5), "reproduced"),
    # ... holding -2.2, but ours (-1.0) under half of it
    (dict(paper=-2.2, ours=-1.0, ci_low=-2.3, ci_high=-0.1), "direction only"),
    # ... beyond the paper's value (ours larger): still the paper's effect at least
    (dict(paper=-2.2, ours=-4.0, ci_low=-5.0, ci_high=-3.0), "reproduced"),
    # excludes 0 and -2.2, between them
    (dict(paper=-2.2, ours=-0.8, ci_low=-1.2, ci_high=-0.4), "direction only, smaller"),
    # excludes 0 on the other side
    (dict(paper=-0.5, ours=0.9, ci_low=0.1, ci_high=1.7), "not reproduced"),
    # holds 0 and the paper's value (the issue's - entity type example)
    (dict(paper=-9.2, ours=-4.0, ci_low=-9.5, ci_high=1.4), "inconclusive"),
    # holds 0, excludes the paper's value
    (dict(paper=5.5, ours=0.6, ci_low=-0.2, ci_high=1.4), "not reproduced"),
    (dict(paper=6.1, ours=NAN, testable=False), "not testable here"),
    # no noise model: the one comparison, by sign and half size
    (dict(paper=5, ours=3), "reproduced"),
    (dict(paper=5, ours=1), "direction only"),
    (dict(paper=5, ours=-1), "not reproduced"),
    (dict(paper=64.7, ours=64.9, kind="value", tol=1.0), "reproduced"),
    (dict(paper=64.7, ours=66.0, kind="value", tol=1.0), "not reproduced"),
    # no difference: TOST within the margin, wholly outside it, neither
    (dict(paper=1.5, ours=0.33, ci_low=0.09, ci_high=0.58, kind="no difference", p_tost=0.001, margin=1.5), "reproduced"),
    (dict(paper=0, ours=46.6, ci_low=33.9, ci_high=59.2, kind="no difference", p_tost=1.0, margin=10), "not reproduced"),
    (dict(paper=0.3, ours=0.2, ci_low=-0.2, ci_high=0.6, kind="no difference", p_tost=0.3, margin=0.3), "inconclusive"),
    # a direction without a size
    (dict(paper=NAN, ours=1.5, ci_low=0.5, ci_high=2.5, kind="direction", direction=1), "reproduced"),
    (dict(paper=NAN, ours=-1.2, ci_low=-1.9, ci_high=-0.4, kind="direction", direction=1), "not reproduced"),
    (dict(paper=NAN, ours=-0.4, ci_low=-1.4, ci_high=0.6, kind="direction", direction=1), "inconclusive"),
    (dict(paper=NAN, ours=-13.6, kind="direction", direction=-1), "direction only"),
    (dict(paper=NAN, ours=2.0, kind="direction", direction=-1), "not reproduced"),
    # every part in the direction (-1): the least favourable part's interval
    (dict(paper=5, ours=5, ci_low=-2.0, ci_high=-0.5, kind="all", direction=-1), "reproduced"),
    (dict(paper=5, ours=1, ci_low=-4.1, ci_high=7.2, kind="all", direction=-1), "inconclusive"),
    (dict(paper=5, ours=-1, ci_low=0.5, ci_high=3.0, kind="all", direction=-1), "not reproduced"),
])
def test_each_branch_on_a_hand_made_case(case, expected):
    assert verdict(**case) == expected


def test_every_verdict_is_reachable_and_kinds_are_checked():
    assert set(rule.VERDICTS) == {"reproduced", "direction only", "direction only, smaller", "not reproduced",
                                  "inconclusive", "not testable here"}
    with pytest.raises(ValueError, match="kind must be"):
        verdict(1.0, 1.0, 0.5, 1.5, kind="bigger")
    with pytest.raises(ValueError, match="no difference needs"):
        verdict(1.0, 1.0, kind="no difference")


def test_intervals_and_tests_on_hand_computed_numbers():
    # seeds 1, 2, 3 against an exact 0: mean 2, sd 1, se 1/sqrt(3), 2 dof, t(0.975, 2) = 4.3027
    r = rule.one_sample([1.0, 2.0, 3.0], 0.0)
    assert (r["ours"], r["df"]) == (2.0, 2) and r["ci_low"] == pytest.approx(2 - 4.302653 / math.sqrt(3), abs=1e-5)
    assert r["p"] == pytest.approx(stats.ttest_1samp([1, 2, 3], 0).pvalue, rel=1e-12)
    lo, hi = stats.ttest_1samp([1, 2, 3], 0).confidence_interval()
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((lo, hi), rel=1e-12)
    # the same seeds against a reference scored once through a noisy probe: se = 1 * sqrt(1/3 + 1)
    n = rule.noisy_reference([1.0, 2.0, 3.0], 0.0)
    assert n["se"] == pytest.approx(math.sqrt(4 / 3)) and n["df"] == 2 and n["ci_low"] < r["ci_low"]
    # p against the paper's value: t = (2 - 5) / (1/sqrt(3)) on 2 dof
    assert rule.p_value(2.0, 1 / math.sqrt(3), 2, 5.0) == pytest.approx(2 * stats.t.sf(3 * math.sqrt(3), 2))
    # TOST: diff 0.3, se 0.1, 10 dof, margin 1 -> max(sf(13), cdf(-7)) = cdf(-7)
    assert rule.tost(0.3, 0.1, 10, 1.0) == pytest.approx(stats.t.cdf(-7, 10))
    assert rule.tost(0.3, 0.1, 10, 0.2) > 0.5  # the margin inside the estimate: no equivalence


def test_welch_is_scipys():
    x, y = [60.0, 61.0, 62.0], [55.0, 56.0, 59.5]
    r, ref = rule.two_sample(x, y), stats.ttest_ind(x, y, equal_var=False)
    assert r["p"] == pytest.approx(ref.pvalue, rel=1e-10) and r["df"] == pytest.approx(ref.df)
    assert (r["ci_low"], r["ci_high"]) == pytest.approx(tuple(ref.confidence_interval()), rel=1e-10)
    assert rule.deterministic(3.0)["ci_low"] != rule.deterministic(3.0)["ci_low"]  # NaN: no noise model


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
    # one-sample, std 2: 4 seeds give se 1 and 3 dof
    d = rule.mde(1.0, 3)
    assert rule.seeds_for_power(2.0, d + 1e-6, "one-sample") == 4
    assert rule.mde(2.0 / math.sqrt(3), 2) > d  # and 3 would not do
    # each answer is the fewest: one seed fewer misses the effect
    for n_std, eff in [(0.43, 0.8), (2.06, 3.2), (0.6, 0.5)]:
        n = rule.seeds_for_power(n_std, eff)
        assert rule.mde(n_std * math.sqrt(2 / n), 2 * n - 2) <= eff < rule.mde(n_std * math.sqrt(2 / (n - 1)), 2 * n - 4)
    assert math.isnan(rule.seeds_for_power(NAN, 1.0)) and math.isnan(rule.seeds_for_power(1.0, NAN))
    assert rule.seeds_for_power(10.0, 0.01, max_n=20) == math.inf
    with pytest.raises(ValueError, match="two-sample"):
        rule.seeds_for_power(1.0, 1.0, "paired")
