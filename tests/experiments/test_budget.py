"""The budget's batch and steps, and the gain's fit and projection, on hand-computed cases."""
import importlib.util
import math
from pathlib import Path

import pytest
from pearl.experiments.budget import (CPU_VIEWS, PAPER_VIEWS, batch_for, budget_config, epochs_for, fit, project,
                                     project_models)


def budget_curve_script():
    """scripts/budget_curve.py as a module (it is a script, not a package member)."""
    spec = importlib.util.spec_from_file_location("budget_curve", Path(__file__).parents[2] / "scripts" / "budget_curve.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    return script


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
    import json

    from pearl import models
    from pearl.experiments import runner

    script = budget_curve_script()
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


def test_the_saturating_curve_is_recovered_from_points_on_it():
    """Points on 2 v / (v + 1000): a = 2 and b = 1000 back, no residual; the log-linear line fits
    them worse, so the AIC weighs the saturating curve."""
    from pearl.experiments.budget import fit_models

    views = [250, 500, 1000, 2000, 4000, 8000]
    gains = [2 * v / (v + 1000) for v in views]
    both = fit_models(views, gains)
    sat = both["saturating"]
    assert sat["a"] == pytest.approx(2, rel=1e-6) and sat["b"] == pytest.approx(1000, rel=1e-6)
    assert sat["rss"] == pytest.approx(0, abs=1e-12) and both["log-linear"]["rss"] > 1e-3
    p = project_models(both, 1e6)
    assert p["weights"]["saturating"] == pytest.approx(1) and p["models"]["saturating"]["gain"] == pytest.approx(2e6 / 1001000)


def test_a_line_in_log_views_wins_on_its_own_points():
    from pearl.experiments.budget import fit_models

    views = [10, 100, 1000, 10000, 100000]
    gains = [0.5 + 0.6 * math.log10(v) + e for v, e in zip(views, [0.01, -0.01, 0.0, 0.01, -0.01])]
    both = fit_models(views, gains)
    assert both["log-linear"]["slope"] == pytest.approx(0.6, abs=0.01)
    assert both["log-linear"]["rss"] < both["saturating"]["rss"]
    assert project_models(both, 1e7)["weights"]["log-linear"] > 0.99


def test_the_saturating_interval_by_hand():
    """a = 2, b = 1 with var(a) = 0.04, var(b) = 0.09, cov 0.01, s = 0.1, 2 dof; at v = 3 the
    gradient is (3/4, -2·3/16) = (0.75, -0.375): g'Cg = 0.0225 + 0.01265625 - 0.005625 = 0.0295312."""
    from pearl.experiments.budget import project_saturating

    f = {"a": 2.0, "b": 1.0, "cov": [[0.04, 0.01], [0.01, 0.09]], "resid_std": 0.1, "dof": 2, "views_max": 1.5}
    p = project_saturating(f, 3.0)
    half = 4.302652729911275 * math.sqrt(0.01 + 0.75 ** 2 * 0.04 + 0.375 ** 2 * 0.09 - 2 * 0.75 * 0.375 * 0.01)
    assert p["gain"] == pytest.approx(1.5) and p["pi_high"] - p["gain"] == pytest.approx(half)
    assert p["extrapolation"] == pytest.approx(2)


def test_the_projection_carries_the_choice_of_curve():
    """Two curves with AICs 0 and 2: weights 1 / (1 + e^-1) and e^-1 / (1 + e^-1); the interval
    spans both curves' intervals, the gain is their weighted mean."""
    line = {"intercept": 0.0, "slope": 1.0, "resid_std": 0.1, "dof": 3, "n": 5, "x_mean": 2.0, "sxx": 2.5,
            "views_max": 1000.0, "aic": 2.0}
    sat = {"a": 1.0, "b": 10.0, "cov": [[0.0, 0.0], [0.0, 0.0]], "resid_std": 0.1, "dof": 3, "views_max": 1000.0,
           "aic": 0.0}
    p = project_models({"log-linear": line, "saturating": sat}, 1e5)
    w = 1 / (1 + math.exp(-1))
    assert p["weights"] == pytest.approx({"saturating": w, "log-linear": 1 - w})
    lin, curve = p["models"]["log-linear"], p["models"]["saturating"]
    assert lin["gain"] == pytest.approx(5) and curve["gain"] == pytest.approx(1e5 / (1e5 + 10))
    assert p["pi_low"] == curve["pi_low"] and p["pi_high"] == lin["pi_high"]
    assert p["gain"] == pytest.approx(w * curve["gain"] + (1 - w) * 5) and p["extrapolation"] == pytest.approx(100)


def test_points_on_a_straight_line_do_not_identify_a_saturating_curve():
    """Gains proportional to the views (0.0001 v, exactly and with noise): curve_fit converges on a
    ceiling far above the points with b far beyond the largest budget, which any larger (a, b) with
    the same a / b fits as well. The fit is kept, named not identified, and the projection is the
    line's alone, not the ceiling's arbitrary interval."""
    from pearl.experiments.budget import fit_models

    views = [250, 500, 1000, 2000, 4000, 8000]
    for noise in ([0.0] * 6, [0.01, -0.01, 0.0, 0.01, -0.01, 0.0]):
        both = fit_models(views, [1e-4 * v + e for v, e in zip(views, noise)])
        sat = both["saturating"]
        assert "failed" not in sat and sat["b"] > 8000
        assert sat["unidentified"].endswith("lies beyond the largest budget trained (8,000 views)")
        p = project_models(both, 1e6)
        assert list(p["models"]) == ["log-linear"] and p["weights"] == {"log-linear": 1.0}
        assert (p["pi_low"], p["pi_high"]) == (p["models"]["log-linear"]["pi_low"], p["models"]["log-linear"]["pi_high"])


def test_a_half_way_point_as_uncertain_as_itself_is_not_identified():
    """b inside the budgets but with a standard error at least b (MiniLM's cpu series before its
    extra seeds: b 12,330 views, se 58,622): not identified; a well-determined b (me5-small's: 388,
    se 137) is."""
    from pearl.experiments.budget import unidentified

    assert unidentified({"b": 12330.0, "se_b": 58622.0, "views_max": 19200.0}) == (
        "b = 12,330 views has a standard error of 58,622, as large as b itself")
    assert unidentified({"b": 12330.0, "se_b": 12330.0, "views_max": 19200.0}) is not None
    assert unidentified({"b": 388.0, "se_b": 137.0, "views_max": 19200.0}) is None
    assert unidentified({"b": 388.0, "se_b": float("nan"), "views_max": 19200.0}) is not None


def test_the_words_say_when_the_saturating_curve_is_left_out():
    """The table's notes (scripts/budget_curve.py) name the unidentified curve and say the interval
    is the line's."""
    from pearl.experiments.budget import PAPER_VIEWS, fit_models

    script = budget_curve_script()
    views = [250, 500, 1000, 2000, 4000, 8000]
    both = fit_models(views, [1e-4 * v + e for v, e in zip(views, [0.01, -0.01, 0.0, 0.01, -0.01, 0.0])])
    v = {"fit": both["log-linear"], "saturating": both["saturating"], "paper_budget": project_models(both, PAPER_VIEWS)}
    assert "not identified by these points (b = " in script.fit_words(v)
    assert "so the interval is the line's alone" in script.fit_words(v)
    assert "AIC weights" not in script.fit_words(v) and "both curves" not in script.fit_words(v)
    line = v["paper_budget"]["models"]["log-linear"]
    assert f"the projection's interval, the line's {line['pi_low']:+.2f} to {line['pi_high']:+.2f}" in script.fit_words(v)


def test_a_saturating_curve_that_cannot_be_fitted_is_named_and_left_out(monkeypatch):
    """curve_fit's two ways of failing (no convergence, a parameter of infinite variance): the
    series keeps its line, and the record says why the curve is missing."""
    import numpy as np
    import scipy.optimize
    from pearl.experiments.budget import fit_models

    def no_convergence(*args, **kwargs):
        raise RuntimeError("Optimal parameters not found")

    views, gains = [10, 100, 1000, 10000], [1.0, 2.0, 2.0, 3.0]
    monkeypatch.setattr(scipy.optimize, "curve_fit", no_convergence)
    both = fit_models(views, gains)
    assert both["saturating"] == {"failed": "the saturating curve did not converge on these points: "
                                            "Optimal parameters not found"}
    p = project_models(both, 1e5)
    assert list(p["models"]) == ["log-linear"] and p["pi_high"] == p["models"]["log-linear"]["pi_high"]
    monkeypatch.setattr(scipy.optimize, "curve_fit", lambda *a, **k: ((1.0, 1.0), np.full((2, 2), np.inf)))
    assert "undetermined" in fit_models(views, gains)["saturating"]["failed"]


def test_a_budgets_model_is_trained_on_todays_recipe_at_that_budget():
    """scripts/budget_curve.py trains every budget on the profile's recipe, its view composition by the
    rule (centre None: the rule decides), as Table 4's 1x model; only --uncentred asks the old join.
    (It used to pass centre=True: always centred, so MiniLM's points away from 1x were not the rule's.)"""
    from pearl.training.profiles import config_for

    script = budget_curve_script()
    table4, _ = config_for("cpu", backbone="minilm", seed=0)
    cfg, data = script.training_config("cpu", "minilm", 0, 4)
    assert (cfg.centre, cfg.max_char_share, cfg.char_weight) == (None, table4.max_char_share, table4.char_weight)
    assert (cfg.batch_size, cfg.steps) == (64, 300) and cfg.centre is table4.centre
    old, _ = script.training_config("cpu", "minilm", 0, 4, uncentred=True)
    assert old.centre is False
    assert script.JOINS[None] == "rule" and script.JOINS[True] == "centred"


def _committed_lines(root: Path) -> Path:
    """The committed MiniLM budget lines, copied under ``root`` (a scratch output root)."""
    lines = root / "results" / "budget" / "cpu-minilm.jsonl"
    lines.parent.mkdir(parents=True)
    lines.write_text((Path(__file__).parents[2] / "results" / "budget" / "cpu-minilm.jsonl").read_text())
    return lines


def test_a_smoke_line_never_enters_a_full_size_fit(tmp_path, monkeypatch):
    """Before: a SMOKE run appended its line to results/budget/cpu-minilm.jsonl and --summarise pooled
    it (MiniLM's slope +0.77 became +2.37, "SMOKE" nowhere). Now a SMOKE run refuses that file before it
    trains, and a full-size --summarise refuses a SMOKE line, naming its file and line."""
    import argparse
    import json

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    script = budget_curve_script()
    lines = _committed_lines(tmp_path)
    before = lines.read_bytes()
    args = argparse.Namespace(size="smoke", backbone="minilm", budgets="0.5", seeds="5", tag="cpu-minilm",
                              uncentred=False, all_phrases=False, device=None)
    with pytest.raises(SystemExit, match=r"cpu-minilm\.jsonl:1 is a full-size line.*SMOKE run never adds"):
        script.run(args, lines)
    assert lines.read_bytes() == before
    smoke = {**json.loads(before.decode().splitlines()[-1]), "seed": 5, "size": "smoke"}
    with open(lines, "a") as fh:
        fh.write(json.dumps(smoke) + "\n")
    n = len(before.decode().splitlines()) + 1
    with pytest.raises(SystemExit, match=rf"cpu-minilm\.jsonl:{n} is a SMOKE line.*never pools one"):
        script.summarise(False)


def test_a_point_held_twice_counts_once_or_stops_the_fit_naming_both(tmp_path):
    """Before: --summarise counted a duplicated line twice (4 seeds shown for 3) and pooled a conflicting one."""
    from pearl.experiments.budget import one_per_point, read_points

    lines = _committed_lines(tmp_path)
    text = lines.read_text().splitlines()
    n = len(text)
    lines.write_text("\n".join(text + [text[-1]]) + "\n")  # the last point again, as it was
    rows = read_points(lines)
    assert len(rows) == n + 1 and len(one_per_point(rows)) == n
    import json

    other = json.loads(text[-1])
    other["groups"]["average"] += 1.0  # the same point with another score
    lines.write_text("\n".join(text + [json.dumps(other)]) + "\n")
    with pytest.raises(ValueError, match=rf"cpu-minilm\.jsonl:{n} and .*cpu-minilm\.jsonl:{n + 1} are the same budget point.*delete"):
        one_per_point(read_points(lines))


def test_a_cut_line_names_its_file_and_line(tmp_path):
    from pearl.experiments.budget import read_points

    lines = _committed_lines(tmp_path)
    text = lines.read_text().splitlines()
    lines.write_text("\n".join([text[0][:50]] + text[1:]) + "\n")
    with pytest.raises(ValueError, match=r"cpu-minilm\.jsonl:1 is not one budget point.*delete that line"):
        read_points(lines)


def test_the_budget_table_and_its_notes_never_show_nan(tmp_path, monkeypatch):
    """Before: the budget table showed `nan` (the std of one seed) and its notes `+nan` (a fit that gave
    NaN). Now a one-seed std is a dash and a NaN in a fit says "no number"."""
    import json

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    script = budget_curve_script()
    lines = _committed_lines(tmp_path)
    rows = [json.loads(x) for x in lines.read_text().splitlines()]
    keep = [r for r in rows if r["budget"] == 0 or r["seed"] == 0 or r["budget"] == 4.0]  # one seed at most budgets
    lines.write_text("".join(json.dumps(r) + "\n" for r in keep))
    script.summarise(False)
    md = (tmp_path / "results" / "budget_curve.md").read_text()
    assert "nan" not in md.lower() and "| –" in md
    fit = json.loads((tmp_path / "results" / "budget_curve.json").read_text())["fits"]
    one = next(iter(fit.values()))
    one["fit"]["slope"] = float("nan")
    one["paper_budget"]["pi_low"] = float("nan")
    words = script.fit_words(one)
    assert "nan" not in words and "no number per tenfold budget" in words
