"""The budget's batch and steps, and the gain's fit and projection, on hand-computed cases."""
import math

import pytest
from pearl.experiments.budget import CPU_VIEWS, PAPER_VIEWS, batch_for, budget_config, fit, project


def test_budgets_keep_their_views_and_the_known_points():
    assert budget_config(1) == {"batch_size": 32, "steps": 150}  # the cpu profile
    assert budget_config(10) == {"batch_size": 128, "steps": 375}  # the discrepancy study's 10x
    for b in (0.25, 4, 20, 100):
        cfg = budget_config(b)
        assert cfg["batch_size"] * cfg["steps"] == pytest.approx(b * CPU_VIEWS, rel=0.01)
    assert batch_for(1e6) == 512 and PAPER_VIEWS == 7_600_000
    with pytest.raises(ValueError, match="budget must be > 0"):
        batch_for(0)


def test_fit_and_prediction_interval_by_hand():
    # x = log10(views) = 1, 2, 3, 4; y = 1, 2, 2, 3: slope 0.6, intercept 0.5, residuals
    # -0.1, 0.3, -0.3, 0.1, s^2 = 0.2 / 2 = 0.1, Sxx = 5, xbar = 2.5
    f = fit([10, 100, 1000, 10000], [1, 2, 2, 3])
    assert f["slope"] == pytest.approx(0.6) and f["intercept"] == pytest.approx(0.5)
    assert f["resid_std"] == pytest.approx(math.sqrt(0.1)) and f["dof"] == 2
    assert f["se_slope"] == pytest.approx(math.sqrt(0.1 / 5))
    p = project(f, 1e5)  # x = 5: yhat = 3.5; half width = t(0.975, 2) * s * sqrt(1 + 1/4 + 2.5^2 / 5)
    half = 4.302652729911275 * math.sqrt(0.1) * math.sqrt(1 + 0.25 + 6.25 / 5)
    assert p["gain"] == pytest.approx(3.5) and p["pi_high"] - p["gain"] == pytest.approx(half)
    assert p["extrapolation"] == pytest.approx(10)
    with pytest.raises(ValueError, match="at least 3 points"):
        fit([10, 10, 10], [1, 2, 3])
