"""What the notebooks show of trained folders: summaries, logs, times, names, groups."""
import json

import pandas as pd
from pearl import paths
from pearl.experiments import runs
from pearl.experiments.runner import Recipe


def _trained(name: str, seed: int, seconds: float, losses: list[float]):
    folder = paths.models_dir(name)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pearl.json").write_text(json.dumps({"train_seconds": seconds, "train_config": {"batch_size": 4}}))
    pd.DataFrame({"step": range(len(losses)), "loss": losses}).to_csv(paths.models_dir("runs", name, "log.csv"), index=False)
    return folder


def test_summaries_logs_and_times_pair_folders_with_seeds(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folders = [_trained("pearl-minilm-seed3", 3, 2.0, [4.0, 2.0]), _trained("pearl-minilm-seed5", 5, 8.0, [1.0])]
    summary = runs.seed_summaries(folders, [3, 5])
    assert summary[["seed", "steps", "train_s", "phrases_per_s", "first_loss"]].values.tolist() == \
        [[3, 2, 2.0, 4.0, 4.0], [5, 1, 8.0, 0.5, 1.0]]  # 2 steps x 4 phrases / 2 s; 1 x 4 / 8 s
    logs = runs.seed_logs(folders, [3, 5])
    assert logs["seed"].tolist() == [3, 3, 5] and logs["loss"].tolist() == [4.0, 2.0, 1.0]
    assert runs.train_times(summary) == {"train_seed3": 2.0, "train_seed5": 8.0}


def test_recipe_folders_names_and_groups(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folders = runs.recipe_folders({"simcse": Recipe(method="simcse"), "pearl": Recipe()}, [0, 1])
    assert {k: [f.name for f in v] for k, v in folders.items()} == \
        {"simcse": ["simcse-minilm-seed0", "simcse-minilm-seed1"], "pearl": ["pearl-minilm-seed0", "pearl-minilm-seed1"]}
    assert runs.trained_names({"": [tmp_path / "a"], "x": [tmp_path / "b", "c/d"]}) == {"full": ["a"], "x": ["b", "d"]}
    assert runs.as_groups({"minilm": "minilm", "l0": "/m/l0"}) == {"minilm": ["minilm"], "l0": ["/m/l0"]}


def test_pick_and_among_keep_the_order_asked_for():
    assert runs.pick({"": ["f"], "a": ["g"], "b": ["h"]}, ["b", ""]) == {"b": ["h"], "": ["f"]}
    assert runs.among(["no-char-aug", "no-char-encoder", "x"], ["no-char-encoder", "no-char-aug"]) == \
        ["no-char-aug", "no-char-encoder"]
    assert runs.among(["x"], []) == []
