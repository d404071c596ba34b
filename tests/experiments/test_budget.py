"""The budget's batch and steps, and the gain's fit and projection, on hand-computed cases."""
import math

import pytest
from pearl.experiments.budget import CPU_VIEWS, PAPER_VIEWS, batch_for, budget_config, epochs_for, fit, project


def test_budgets_keep_their_views_and_the_known_points():
    assert budget_config(1) == {"batch_size": 32, "steps": 150}  # the cpu profile
    assert budget_config(10) == {"batch_size": 128, "steps": 375}  # the discrepancy study's 10x
    for b in (0.25, 4, 20, 100):
        cfg = budget_config(b)
        assert cfg["batch_size"] * cfg["steps"] == pytest.approx(b * CPU_VIEWS, rel=0.01)
    assert batch_for(1e6) == 512 and PAPER_VIEWS == 7_600_000
    with pytest.raises(ValueError, match="budget must be > 0"):
        batch_for(0)


def test_a_budget_past_two_passes_gets_the_passes_it_needs():
    """The 4x budget (300 steps x 64) on the cpu profile's 9,281 phrases: 145 batches a pass, so 2
    passes stop at 290 steps; 3 passes hold its 300. Budgets within 2 passes keep the recipe's 2."""
    cfg = budget_config(4)
    assert 2 * (9281 // cfg["batch_size"]) < cfg["steps"]
    assert epochs_for(cfg["steps"], cfg["batch_size"], 9281) == 3
    assert epochs_for(150, 32, 9281) == 2 and epochs_for(375, 128, 9281) == 6  # the study's 10x
    assert epochs_for(10, 32, 320) == 2 and epochs_for(21, 32, 320) == 3
    with pytest.raises(ValueError, match="no batch of 64"):
        epochs_for(10, 64, 63)


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


def test_the_1x_point_is_table_4s_model_reused(tmp_path, monkeypatch):
    """scripts/budget_curve.py's 1x point: the runner's folder for the backbone's Table-4 recipe
    (no second training of the same recipe), its training time read from that folder."""
    import importlib.util
    import json
    from pathlib import Path

    from pearl import models
    from pearl.experiments import runner

    spec = importlib.util.spec_from_file_location("budget_curve", Path(__file__).parents[2] / "scripts" / "budget_curve.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    folder = tmp_path / "pearl-me5-seed1"
    folder.mkdir()
    (folder / "pearl.json").write_text(json.dumps({"train_phrases": 9281, "train_seconds": 480.5}))
    asked = []
    monkeypatch.setattr(runner, "train_models", lambda recipes, seeds, profile, log: asked.append(
        (recipes[0].backbone, recipes[0].phrase_share, seeds, profile)) or {recipes[0].name: [folder]})
    monkeypatch.setattr(models, "load_model", lambda name: f"loaded {name}")
    point = script.table4_point("me5-small", 1, lambda name, enc: {"scores": {"bird": 1.0}, "loaded": enc})
    assert asked == [("me5-small", 1.0, [1], "cpu")]
    assert point["loaded"] == f"loaded {folder}" and point["model"] == "pearl-me5-seed1"
    assert (point["budget"], point["seed"], point["views"], point["batch_size"], point["steps"]) == (1.0, 1, 4800, 32, 150)
    assert (point["phrases"], point["train_s"]) == (9281, 480.5)
