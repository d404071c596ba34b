"""What the notebooks show of the runner's trainings (:mod:`pearl.experiments.runner`): per-seed
summaries, logs and timings, the folders of recipes per seed, and their names.

It trains and scores nothing itself; it reads the folders the runner wrote.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from .runner import Recipe, run_log, run_summary


#: the columns of :func:`seed_summaries` (a per-seed table of trainings)
SUMMARY_COLUMNS = ["seed", "folder", "steps", "train_s", "phrases_per_s", "first_loss", "last_loss"]


def seed_summaries(folders: Sequence[str | Path], seeds: Sequence[int]):
    """One row per trained folder (:func:`pearl.experiments.runner.run_summary`), seeds paired in
    order, in :data:`SUMMARY_COLUMNS` (the batch size and phrase views are left to the studies
    that compare budgets)."""
    import pandas as pd

    return pd.DataFrame([run_summary(folder, seed) for folder, seed in zip(folders, seeds)], columns=SUMMARY_COLUMNS)


def seed_logs(folders: Sequence[str | Path], seeds: Sequence[int]):
    """The training logs of ``folders`` in one frame, with a ``seed`` column."""
    import pandas as pd

    return pd.concat([run_log(folder).assign(seed=seed) for folder, seed in zip(folders, seeds)])


def train_times(summary) -> dict[str, float]:
    """``{"train_seed<N>": seconds}`` from :func:`seed_summaries` (for a notebook run's timings)."""
    return {f"train_seed{row.seed}": row.train_s for row in summary.itertuples()}


def recipe_folders(recipes: Mapping[str, Recipe], seeds: Sequence[int]) -> dict[str, list[Path]]:
    """``{key: [folder of each seed]}`` for ``{key: recipe}`` (several recipes may share a folder name
    across methods or backbones, so the key, not the recipe's name, labels them)."""
    return {key: [recipe.folder(s) for s in seeds] for key, recipe in recipes.items()}


def trained_names(folders: Mapping[str, Sequence[str | Path]]) -> dict[str, list[str]]:
    """``{recipe name ("full" for ""): [folder names]}`` of :func:`pearl.experiments.runner.train_models`' answer."""
    return {name or "full": [Path(f).name for f in fs] for name, fs in folders.items()}


def as_groups(names: Mapping[str, object]) -> dict[str, list]:
    """``{group: [model]}`` from ``{group: model}``: one model per group, for :func:`pearl.benchmark.scoring.run_models`."""
    return {group: [model] for group, model in names.items()}


def first_seeds(*groups: Mapping[str, Sequence[str | Path]]) -> list[str]:
    """The first model of every group of every ``{group: [models]}``, grouped by key in the order
    the keys first appear: a figure's panels, e.g. a backbone, then its PEARL and SimCSE seed 0.

    >>> first_seeds({"a": ["a-raw"]}, {"a": ["pearl-a-0", "pearl-a-1"], "b": ["pearl-b-0"]}, {"a": ["simcse-a-0"]})
    ['a-raw', 'pearl-a-0', 'simcse-a-0']
    """
    keys = list(groups[0])
    return [str(g[key][0]) for key in keys for g in groups if g.get(key)]


def pick(groups: Mapping[str, object], keys: Sequence[str]) -> dict:
    """``{key: groups[key]}`` for each of ``keys``, in their order (the arms a notebook scores again).

    >>> pick({"": [1], "a": [2], "b": [3]}, ["", "b"])
    {'': [1], 'b': [3]}
    """
    return {key: groups[key] for key in keys}


def among(wanted: Sequence[str], available: Sequence[str]) -> list[str]:
    """The items of ``wanted`` that ``available`` holds, in ``wanted``'s order (a parameter's list
    cut to what this run trains)."""
    return [w for w in wanted if w in available]
