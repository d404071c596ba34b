"""The curves of notebooks 10 and 11: Figure 5's grid of recipes and its BIRD points (§5.5),
and PAUSE's label-efficiency curve (the share of labelled pairs against the sweep average).

It builds recipes and arranges scores; training and scoring stay in :mod:`pearl.experiments.runner`.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

from .runner import Recipe, hyperparameter_recipe, method_recipe

#: the number of hard negatives the learning-rate sweep holds fixed (the full recipe's)
HARD_NEGATIVES = 2


def hyperparameter_grid(lrs: Sequence[float], negatives: Sequence[int], chosen_lr: float) -> list[tuple[str, float, Recipe]]:
    """Figure 5's points as (parameter, value, recipe): each learning rate at :data:`HARD_NEGATIVES`
    hard negatives, then each number of hard negatives at ``chosen_lr``."""
    return [("lr", lr, hyperparameter_recipe(lr=lr, hard_negatives=HARD_NEGATIVES)) for lr in lrs] + \
           [("hard_negatives", k, hyperparameter_recipe(lr=chosen_lr, hard_negatives=k)) for k in negatives]


def grid_recipes(grid: Sequence[tuple[str, float, Recipe]]) -> list[Recipe]:
    """The distinct recipes of a grid, in order (the chosen point sits on both axes but trains once)."""
    return list({recipe.name: recipe for _, _, recipe in grid}.values())


def grid_points(bird, grid: Sequence[tuple[str, float, Recipe]], seeds: Sequence[int], folders: Mapping[str, Sequence]):
    """One row per grid point and seed: parameter, value, recipe name, seed and the BIRD score of
    that recipe's folder for that seed, from ``bird`` (:func:`pearl.benchmark.scoring.run_models`'
    grouped rows of the ``bird`` task, or their frame: ``group``, ``folder``, ``score``)."""
    import pandas as pd

    bird = pd.DataFrame(bird)

    def score(recipe: Recipe, folder) -> float:
        return float(bird.loc[(bird["group"] == recipe.name) & (bird["folder"] == str(folder)), "score"].iloc[0])

    return pd.DataFrame([{"parameter": p, "value": v, "recipe": r.name, "seed": s, "score": score(r, f)}
                         for p, v, r in grid for s, f in zip(seeds, folders[r.name])])


def seed_noise(scores, group: str = "noise") -> float:
    """The std over seeds (ddof 1) of ``group``'s scores in ``scores`` (:func:`pearl.benchmark.scoring.run_models`'
    grouped rows, or their frame): Figure 5's band, the full recipe retrained on other seeds."""
    import pandas as pd

    scores = pd.DataFrame(scores)
    return float(scores.loc[scores["group"] == group, "score"].std(ddof=1))


def best_values(points) -> dict:
    """``{parameter: the value with the highest mean score over seeds}`` of :func:`grid_points`."""
    best = points.groupby(["parameter", "value"])["score"].mean().groupby("parameter").idxmax().to_dict()
    return {parameter: where[1] for parameter, where in best.items()}


def label_shares(shares: Sequence[float], n: int | None = None) -> list[float]:
    """The shares of labelled pairs PAUSE trains on apart from its full run: those below 1 (their first ``n``)."""
    return [s for s in shares if s < 1][:n]


def pause_recipes(shares: Sequence[float]) -> dict[float, Recipe]:
    """``{share: PAUSE recipe with that share of its pairs labelled}``."""
    return {share: method_recipe("pause", share) for share in shares}


def by_share(trained: Mapping[str, list], recipes: Mapping[float, Recipe]) -> dict[float, list]:
    """``{share: trained folders}`` from :func:`pearl.experiments.runner.train_models`' answer (keyed by recipe name)."""
    return {share: trained[recipe.name] for share, recipe in recipes.items()}


def label_curve(label_scores, groups):
    """PAUSE's label-efficiency points: the grouped scores of the partly labelled runs (their
    ``recipe`` is the share) with a ``share`` column, followed by PAUSE's fully labelled models of ``groups`` at share 1."""
    import pandas as pd

    full = groups[groups["recipe"] == "pause"].assign(share=1.0)
    return pd.concat([label_scores.assign(share=label_scores["recipe"].astype(float)), full])
