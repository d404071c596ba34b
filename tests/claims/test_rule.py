"""The verdict rule on hand-made cases, one per verdict and kind, and its statistics against
scipy's own t-tests and a simulation of the power they claim."""
import math

import numpy as np
import pytest
from scipy import stats

from pearl.claims import rule
from pearl.claims.rule import verdict

NAN = math.nan


@pytest.mark.parametrize("case, expected", [
    # effect: beyond the noise, same direction, at least half the paper's size
    (dict(paper=-2.2, ours=-1.2, p=0.01, mde=1.0), "reproduced"),
    # beyond the noise, same direction, less than half
    (dict(paper=-2.2, ours=-1.0, p=0.01, mde=0.5), "direction only"),
    # beyond the noise, opposite direction
    (dict(paper=-0.5, ours=0.9, p=0.03, mde=1.1), "not reproduced"),
    # within the noise, and the test could have seen the paper's effect: it did not
    (dict(paper=-2.2, ours=-0.5, p=0.34, mde=1.75), "not reproduced"),
    # within the noise, and the paper's effect is below what the test can see
    (dict(paper=-0.8, ours=-0.04, p=0.93, mde=1.39), "underpowered"),
    (dict(paper=6.1, ours=NAN, p=NAN, mde=NAN, testable=False), "not testable here"),
    # no noise to test against: direction and size alone
    (dict(paper=64.7, ours=64.9, p=NAN, mde=NAN, kind="value", tol=1.0), "reproduced"),
    (dict(paper=64.7, ours=66.0, p=NAN, mde=NAN, kind="value", tol=1.0), "not reproduced"),
    (dict(paper=5, ours=1, p=NAN, mde=NAN), "direction only"),
    (dict(paper=5, ours=3, p=NAN, mde=NAN), "reproduced"),
    (dict(paper=5, ours=-1, p=NAN, mde=NAN), "not reproduced"),
    # a claim of no difference
    (dict(paper=2.2, ours=0.19, p=0.16, mde=0.41, kind="no difference"), "reproduced"),
    (dict(paper=1.5, ours=0.33, p=0.007, mde=0.16, kind="no difference"), "not reproduced"),
    (dict(paper=0.3, ours=0.19, p=0.16, mde=0.41, kind="no difference"), "underpowered"),
    # a direction without a size
    (dict(paper=NAN, ours=1.5, p=0.005, mde=0.6, kind="direction", direction=1), "reproduced"),
    (dict(paper=NAN, ours=-1.5, p=0.005, mde=0.6, kind="direction", direction=1), "not reproduced"),
    (dict(paper=NAN, ours=-0.4, p=0.25, mde=1.3, kind="direction", direction=1), "underpowered"),
    (dict(paper=NAN, ours=-13.6, p=NAN, mde=NAN, kind="direction", direction=-1), "direction only"),
])
def test_each_verdict_on_a_hand_made_case(case, expected):
    assert verdict(**case) == expected


def test_every_verdict_is_reachable_and_kinds_are_checked():
    assert set(rule.VERDICTS) == {"reproduced", "direction only", "not reproduced", "underpowered", "not testable here"}
    with pytest.raises(ValueError, match="kind must be"):
        verdict(1.0, 1.0, 0.01, 0.5, kind="bigger")
    with pytest.raises(ValueError, match="needs a test"):
        verdict(1.0, 1.0, NAN, NAN, kind="no difference")


def test_p_values_are_scipys():
    x, y = [60.0, 61.0, 62.0], [55.0, 56.0, 57.5]
    assert rule.two_sample(x, y)["p"] == pytest.approx(stats.ttest_ind(x, y).pvalue, rel=1e-12)
    assert rule.one_sample(x, 59.0)["p"] == pytest.approx(stats.ttest_1samp(x, 59.0).pvalue, rel=1e-12)
    # hand-computed: t = 5 / (1 * sqrt(2/3)) = 6.124 with 4 dof
    r = rule.two_sample([60, 61, 62], [55, 56, 57])
    assert (r["ours"], r["std"], r["df"]) == (5.0, 1.0, 4) and r["se"] == pytest.approx(math.sqrt(2 / 3))
    assert rule.deterministic(3.0)["p"] != rule.deterministic(3.0)["p"]  # NaN: nothing to test against


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
    diff = rule.two_sample([0, 1, 2], [0, 1, 2])["mde"]
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
