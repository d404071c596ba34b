"""Our number for each claim, computed from the committed results files (per-seed scores where
the notebooks kept them): each function returns :mod:`.rule`'s statistics of one difference.

- ``results/08_ablations.json``: per-seed group scores of the full recipe and the six ablations;
- ``results/09_backbones.json``: per-seed scores on three backbones and the untrained encoders;
- ``results/11_methods.json``: per-seed scores of PEARL, SimCSE, Phrase-BERT, PAUSE and the
  untrained backbone (with the short-text average), positives' lexical diversity, PAUSE's
  label-efficiency runs;
- ``results/table2.csv``: per-seed short-text accuracies; ``results/table1.csv``: Table 1;
- ``results/10_hyperparameters.json``: Figure 5's points and the full recipe's BIRD seed std;
- ``results/05_figures.json``: Figure 4's per-model type-clustering scores.

What it leaves out: the claims (:mod:`.ledger`) and the verdicts (:mod:`.rule`).
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .. import paths
from ..benchmark.tasks import GROUPS
from . import rule

FULL = ""  # the full recipe's name in notebook 08's records
BIRD_SEED_DOF = 2  # the full recipe's BIRD std comes from its 3 seeds


class Results:
    """The committed results files of ``folder`` (default: the repository's ``results/``), read on demand."""

    def __init__(self, folder: str | Path | None = None):
        self.folder = Path(folder) if folder else paths.ROOT / "results"

    def metrics(self, notebook: str) -> dict:
        path = self.folder / f"{notebook}.json"
        if not path.is_file():
            raise FileNotFoundError(f"{path} is missing: the claims are read from the committed results; run "
                                    f"notebook {notebook} (or check out results/ from the repository)")
        return json.loads(path.read_text())["metrics"]

    def csv(self, name: str):
        import pandas as pd

        return pd.read_csv(self.folder / f"{name}.csv")

    def seeds(self, notebook: str, key: str = "models"):
        import pandas as pd

        return pd.DataFrame(self.metrics(notebook)[key])


def _col(frame, recipe: str, column: str) -> np.ndarray:
    x = frame.loc[frame["recipe"] == recipe, column].to_numpy(float)
    if not len(x):
        raise KeyError(f"no seeds of recipe {recipe!r} for {column!r}")
    return x


def ablation(res: Results, recipe: str, column: str) -> dict:
    models = res.seeds("08_ablations")
    return rule.two_sample(_col(models, recipe, column), _col(models, FULL, column))


def gain(res: Results, recipe: str, column: str) -> dict:
    models = res.seeds("08_ablations")
    return rule.two_sample(_col(models, FULL, column), _col(models, recipe, column))


def groups_lowered(res: Results, recipe: str) -> dict:
    models = res.seeds("08_ablations")
    deltas = [_col(models, recipe, g).mean() - _col(models, FULL, g).mean() for g in GROUPS]
    out = rule.deterministic(float(sum(d < 0 for d in deltas) - sum(d > 0 for d in deltas)))
    return {**out, "n": len(_col(models, recipe, "average"))}


def strongest(res: Results, recipe: str) -> dict:
    models = res.seeds("08_ablations")
    others = {r: _col(models, r, "average").mean() for r in models["recipe"].unique() if r not in (recipe, FULL)}
    runner_up = min(others, key=others.get)
    return {**rule.two_sample(_col(models, recipe, "average"), _col(models, runner_up, "average")), "against": runner_up}


def backbone_gain(res: Results, backbone: str, column: str) -> dict:
    models, originals = res.seeds("09_backbones"), res.seeds("09_backbones", "originals")
    return rule.one_sample(_col(models, backbone, column), float(_col(originals, backbone, column).mean()))


def backbone_min_gain(res: Results, column: str = "average") -> dict:
    models, originals = res.seeds("09_backbones"), res.seeds("09_backbones", "originals")
    gains = {b: _col(models, b, column).mean() - _col(originals, b, column).mean() for b in models["recipe"].unique()}
    worst = min(gains, key=gains.get)
    return {**backbone_gain(res, worst, column), "against": worst}


def method_vs(res: Results, other: str, column: str) -> dict:
    models = res.seeds("11_methods")
    return rule.two_sample(_col(models, "pearl", column), _col(models, other, column))


def best_other(res: Results, column: str) -> dict:
    models = res.seeds("11_methods")
    means = {r: _col(models, r, column).mean() for r in models["recipe"].unique() if r != "pearl"}
    best = max(means, key=means.get)
    x, y = _col(models, "pearl", column), _col(models, best, column)
    out = rule.two_sample(x, y) if len(y) > 1 else rule.one_sample(x, float(y.mean()))
    return {**out, "against": best}


def backbone_gain_short(res: Results) -> dict:
    models = res.seeds("11_methods")
    return rule.one_sample(_col(models, "pearl", "short-text average"),
                           float(_col(models, "backbone", "short-text average").mean()))


def short_set(res: Results, dataset: str) -> dict:
    table = res.csv("table2")
    rows = table[table["dataset"] == dataset].set_index("model")["score"]
    seeds = rows[[m for m in rows.index if m.startswith("pearl-minilm-seed")]]
    return rule.one_sample(seeds.to_numpy(float), float(rows["minilm"]))


def hyper(res: Results, parameter: str) -> dict:
    from ..benchmark import paper

    m = res.metrics("10_hyperparameters")
    points = [p for p in m["points"] if p["parameter"] == parameter]
    chosen = [p["score"] for p in points if float(p["value"]) == paper.figure5()[parameter]]
    others = {float(p["value"]): p["score"] for p in points if float(p["value"]) != paper.figure5()[parameter]}
    best = max(others, key=others.get)
    return {**rule.single_vs_noise(float(np.mean(chosen)), others[best], m["bird_seed_std"], BIRD_SEED_DOF),
            "against": f"{parameter} = {best:g}"}


def figure4(res: Results, metric: str) -> dict:
    rows = [r for r in res.metrics("05_figures")["figure4"] if r["space"] == "embedding"]
    pearl = [100 * r[metric] for r in rows if r["model"].startswith("PEARL seed")]
    base = [100 * r[metric] for r in rows if r["model"].startswith("all-MiniLM")]
    return rule.one_sample(pearl, base[0])


def lexical(res: Results, metric: str) -> dict:
    div = res.metrics("11_methods")["lexical_diversity"]
    return rule.deterministic(100 * (div["phrase_bert"][metric] - div["pearl"][metric]))


def label_share(res: Results, share: float) -> dict:
    runs = res.seeds("11_methods", "label_efficiency")
    part = runs.loc[np.isclose(runs["share"], share), "average"].to_numpy(float)
    full = runs.loc[runs["share"] == 1.0, "average"].to_numpy(float)
    return rule.single_vs_noise(part.mean(), full.mean(), full.std(ddof=1), len(full) - 1, len(part), len(full))


def value(res: Results, model: str, dataset: str) -> dict:
    table = res.csv("table1")
    score = table[(table["model"] == model) & (table["dataset"] == dataset)]["score"]
    return rule.deterministic(float(score.iloc[0]))


def measure(res: Results, spec: tuple) -> dict:
    """Run ``spec`` = (function name, *arguments) of this module."""
    functions = {f.__name__: f for f in (ablation, gain, groups_lowered, strongest, backbone_gain, backbone_min_gain,
                                         method_vs, best_other, backbone_gain_short, short_set, hyper, figure4,
                                         lexical, label_share, value)}
    return functions[spec[0]](res, *spec[1:])
