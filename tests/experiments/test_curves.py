"""Figure 5's grid and points, PAUSE's label-efficiency curve, on hand-made scores."""
import pandas as pd
import pytest
from pearl.experiments import curves
from pearl.experiments.runner import ablation, hyperparameter_recipe


def test_grid_puts_the_chosen_point_on_both_axes_and_trains_it_once():
    grid = curves.hyperparameter_grid([1e-5, 3e-5], [0, 2], chosen_lr=3e-5)
    assert [(p, v) for p, v, _ in grid] == [("lr", 1e-5), ("lr", 3e-5), ("hard_negatives", 0), ("hard_negatives", 2)]
    assert grid[1][2] == grid[3][2] == ablation("") and grid[2][2] == ablation("no-hard-negatives")
    assert [r.name for r in curves.grid_recipes(grid)] == [hyperparameter_recipe(1e-5, 2).name, "", "no-hard-negatives"]


def test_points_take_each_folders_bird_score_and_best_takes_the_seed_mean():
    grid = [("lr", 1.0, ablation("")), ("lr", 2.0, ablation("no-char-aug"))]
    folders = {"": ["f0", "f1"], "no-char-aug": ["g0", "g1"]}
    bird = pd.DataFrame({"group": ["", "", "no-char-aug", "no-char-aug", "noise"],
                         "folder": ["f0", "f1", "g0", "g1", "f0"], "score": [60.0, 62.0, 65.0, 58.0, 99.0]})
    points = curves.grid_points(bird, grid, [0, 1], folders)
    assert points.values.tolist() == [["lr", 1.0, "", 0, 60.0], ["lr", 1.0, "", 1, 62.0],
                                      ["lr", 2.0, "no-char-aug", 0, 65.0], ["lr", 2.0, "no-char-aug", 1, 58.0]]
    assert curves.best_values(points) == {"lr": 2.0}  # seed means 61.0 and 61.5, not the best single seed (65)
    assert curves.seed_noise(bird, "no-char-aug") == pytest.approx(4.949747, abs=1e-6)  # |65 - 58| / sqrt(2)
    assert curves.seed_noise(bird.to_dict("records"), "") == pytest.approx(2 ** 0.5)  # rows work too


def test_label_curve_adds_the_fully_labelled_models_at_share_one():

    assert curves.label_shares([0.01, 0.1, 1.0]) == [0.01, 0.1]
    assert curves.label_shares([0.01, 0.1, 1.0], 1) == [0.01]
    pause = curves.pause_recipes([0.05])
    assert pause[0.05].method == "pause" and pause[0.05].config == {"label_share": 0.05}
    assert curves.by_share({pause[0.05].name: ["f"]}, pause) == {0.05: ["f"]}
    scores = pd.DataFrame({"recipe": ["0.05"], "model": ["m"], "average": [50.0]})
    groups = pd.DataFrame({"recipe": ["pearl", "pause"], "model": ["p", "q"], "average": [60.0, 55.0]})
    curve = curves.label_curve(scores, groups)
    assert curve[["share", "model", "average"]].values.tolist() == [[0.05, "m", 50.0], [1.0, "q", 55.0]]
