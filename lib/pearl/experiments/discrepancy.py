"""Why PEARL's gain over its backbone is smaller here than in the paper: one factor at a time.

A :class:`Cell` is one configuration: backbone x training corpus x budget, trained for some
seeds and scored on the sweep suite with its untrained backbone (the same suite, the same
cache). Its gain is PEARL's score minus the backbone's, per task group and on their average
(the paper's +6.1 is PEARL-small over E5-small on Table 1's average).

- :data:`BUDGETS`: ``cpu`` (the cpu profile: 150 steps x 32 = 4,800 phrase views) and ``10x``
  (375 steps x 128 = 48,000 views, a 4x larger batch, same lr);
- :data:`DESIGNS`: ``whole`` (every combination, 3 seeds where a cell is cheap) and ``reduced``
  (what fits beside the other notebooks on 2 cores), see :func:`cells`;
- :func:`gains_frame` / :func:`summary`: per seed, then per cell: mean gain per group, the
  average's std over seeds, a one-sample t-test against 0 and the smallest gain it could see
  (80 % power, :func:`pearl.claims.rule.mde`);
- :func:`factors`: every pair of cells that differ in one factor alone (Welch), and per factor
  their mean, with an se no smaller than the pairs' spread.

What it leaves out: training and scoring (:mod:`pearl.experiments.runner`), the figure
(:mod:`pearl.display.discrepancy`).
"""
from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from .. import models
from ..benchmark.tasks import GROUPS
from ..guard import OPEN, Guard
from .runner import Recipe

COLUMNS = [*GROUPS, "average"]
#: TrainConfig overrides of each budget, on top of the cpu profile. Training stops at ``steps`` or
#: after ``epochs`` passes over the phrases, whichever comes first: the cpu profile trains on the
#: ~9,300 phrases with mined hard negatives, so 10x needs 6 passes (2 would stop at ~18,500 views)
BUDGETS = {"cpu": {}, "10x": {"batch_size": 128, "steps": 375, "epochs": 6}}
BACKBONES = {"minilm": "all-MiniLM-L6-v2", "me5-small": "multilingual-E5-small, 4-bit (stand-in for E5-small)"}
CORPORA = ("wikitext2", "wikipedia-1x", "wikipedia-10x")


@dataclass(frozen=True)
class Cell:
    backbone: str
    corpus: str
    budget: str
    seeds: tuple = (0, 1, 2)
    tiny: bool = False  # a tiny run's cell: its budgets stay tiny (budget_config)

    def recipe(self) -> Recipe:
        """The training recipe; WikiText-2 at the cpu budget is notebook 03's own (its models are
        shared) when the data notebooks built WikiText-2; on the gpu profile (Wikipedia) it is a
        corpus of its own, with its own folder names."""
        from ..corpus.variants import shares_wikitext2

        own = self.corpus == "wikitext2" and shares_wikitext2()
        tag = "-".join(t for t in (("" if own else self.corpus), ("b" + self.budget if self.budget != "cpu" else "")) if t)
        return Recipe(name=tag, backbone=self.backbone, config=budget_config(self.budget, self.tiny),
                      corpus="" if own else self.corpus)

    def key(self) -> tuple:
        return self.backbone, self.corpus, self.budget


def cells(design: str = "reduced") -> list[Cell]:
    """The configurations of a design, cheapest and most telling first (a run cut short keeps them).

    ``core`` (what ``make reproduce`` runs): the backbone factor alone, on models notebooks 03
    and 09 train anyway (MiniLM and me5-small on WikiText-2 at the cpu budget, 3 seeds each).
    ``whole``: 2 backbones x 3 corpora x 2 budgets; 3 seeds, except me5-small at the 10x budget
    (one seed: it is the study's costliest model on 2 cores). ``reduced``: the 8 cells measured on the
    2-core machine, seeds where cheap: both backbones on every corpus at the cpu budget (3 seeds
    each: the backbone x corpus contrast is the study's largest), and the 10x budget for MiniLM on
    WikiText-2 and the 10x Wikipedia sample (1 seed each).
    """
    if design == "whole":
        return [Cell(b, c, g, (0,) if (b, g) == ("me5-small", "10x") else (0, 1, 2))
                for g in BUDGETS for b in BACKBONES for c in CORPORA]
    if design == "core":
        return [Cell("minilm", "wikitext2", "cpu"), Cell("me5-small", "wikitext2", "cpu")]
    if design == "reduced":
        return [Cell("minilm", "wikitext2", "cpu"), Cell("me5-small", "wikitext2", "cpu"),
                Cell("minilm", "wikipedia-1x", "cpu"), Cell("minilm", "wikipedia-10x", "cpu"),
                Cell("minilm", "wikitext2", "10x", (0,)), Cell("minilm", "wikipedia-10x", "10x", (0,)),
                Cell("me5-small", "wikipedia-1x", "cpu"), Cell("me5-small", "wikipedia-10x", "cpu")]
    raise ValueError(f"unknown design {design!r}; choose from {', '.join(DESIGNS)}")


#: the designs, and the name of the files each writes (``<name>.{csv,md,tex,json}`` in the results folder)
DESIGNS = {"core": "discrepancy_core", "reduced": "discrepancy", "whole": "discrepancy_whole"}


def output_name(design: str) -> str:
    """The name of a design's files in the results folder: the 8-cell study is ``discrepancy``; the
    ``core`` design writes apart, so a run of it never replaces the study's files."""
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}; choose from {', '.join(DESIGNS)}")
    return DESIGNS[design]


def is_batch_design(name: str) -> bool:
    """Whether a design is the ``core`` one, the design a batch of every experiment runs (whose run
    record is its notebook's own); the others write only ``<output_name>.json``."""
    return output_name(name) == DESIGNS["core"]


def design(name: str, size: str = "full") -> list[Cell]:
    """The configurations a notebook run trains: design ``name``, or :func:`tiny_cells` at ``size`` ``"tiny"``."""
    output_name(name)  # an unknown design fails here, at any size
    return tiny_cells() if size == "tiny" else cells(name)


def gains_frame(groups, cell_of: dict, originals):
    """One row per trained model: its cell, seed and gain per column over its untrained backbone.

    ``groups``: :func:`pearl.experiments.tables.group_frame` of the trained models; ``cell_of``:
    ``{model label: (Cell, seed)}``; ``originals``: group_frame of the untrained backbones,
    ``recipe`` = backbone name."""
    import pandas as pd

    base = originals.groupby("recipe")[COLUMNS].mean()
    rows = []
    for r in groups.to_dict("records"):
        cell, seed = cell_of[r["model"]]
        rows.append({"backbone": cell.backbone, "corpus": cell.corpus, "budget": cell.budget, "seed": seed,
                     "model": r["model"], **{c: r[c] - base.loc[cell.backbone, c] for c in COLUMNS}})
    return pd.DataFrame(rows)


def _t(x: np.ndarray) -> tuple[float, float, float]:
    """(std, p of a one-sample t-test against 0, smallest detectable mean) of per-seed gains."""
    from ..claims.rule import mde, one_sample

    if len(x) < 2:
        return math.nan, math.nan, math.nan
    sd = float(x.std(ddof=1))
    p = one_sample(x, 0.0)["p"] if sd > 0 else math.nan  # the ledger's test against an exact 0
    return sd, p, mde(sd / math.sqrt(len(x)), len(x) - 1)


def summary(gains):
    """The study's table: backbone, corpus, budget, seeds, mean gain per group, average gain, std, p, mde."""
    import pandas as pd
    rows = []
    for (b, c, g), sub in gains.groupby(["backbone", "corpus", "budget"], sort=False):
        sd, p, m = _t(sub["average"].to_numpy(float))
        rows.append({"backbone": b, "corpus": c, "budget": g, "seeds": len(sub),
                     **({"views": int(sub["views"].mean())} if "views" in sub else {}),
                     **{col: float(sub[col].mean()) for col in GROUPS}, "average_gain": float(sub["average"].mean()),
                     "std": sd, "p": p, "mde": m})
    return pd.DataFrame(rows)


def _welch(a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """(b - a, its se, p); a one-seed side borrows the other side's variance (same seed noise); p needs 2 seeds a side."""
    from ..claims.rule import two_sample

    va = a.var(ddof=1) if len(a) > 1 else (b.var(ddof=1) if len(b) > 1 else math.nan)
    vb = b.var(ddof=1) if len(b) > 1 else va
    se = math.sqrt(va / len(a) + vb / len(b))
    p = two_sample(b, a)["p"] if len(a) > 1 and len(b) > 1 else math.nan  # the ledger's Welch
    return float(b.mean() - a.mean()), se, p


def factors(gains, reference: dict | None = None):
    """How each factor moves the average gain: one row per pair of cells that differ only in
    that factor (``from`` -> ``to``, the reference level first), then per factor the mean of
    those differences with its standard error: the larger of the seed noise carried through
    (independent pairs) and the pairs' own spread, std / sqrt(pairs), where there are two or more."""
    import pandas as pd

    reference = reference or {"backbone": "minilm", "corpus": "wikitext2", "budget": "cpu"}
    levels = {"backbone": list(BACKBONES), "corpus": list(CORPORA), "budget": list(BUDGETS)}
    by_cell = {k: sub["average"].to_numpy(float) for k, sub in gains.groupby(["backbone", "corpus", "budget"])}
    rows = []
    for factor, values in levels.items():
        others = [f for f in levels if f != factor]
        for ctx in itertools.product(*(levels[f] for f in others)):
            fixed = dict(zip(others, ctx))
            key = lambda v: tuple({**fixed, factor: v}[f] for f in ("backbone", "corpus", "budget"))  # noqa: E731
            ref = reference[factor]
            for to in values:
                if to == ref or key(ref) not in by_cell or key(to) not in by_cell:
                    continue
                delta, se, p = _welch(by_cell[key(ref)], by_cell[key(to)])
                rows.append({"factor": factor, "from": ref, "to": to, **fixed, "n_from": len(by_cell[key(ref)]),
                             "n_to": len(by_cell[key(to)]), "delta_gain": delta, "se": se, "p": p})
    pairs = pd.DataFrame(rows)
    if pairs.empty:
        return pairs, pairs
    pooled = (pairs.groupby(["factor", "to"], sort=False)
              .agg(pairs=("delta_gain", "size"), delta_gain=("delta_gain", "mean"),
                   within=("se", lambda s: float(np.sqrt((s ** 2).sum())) / len(s)),
                   between=("delta_gain", lambda d: float(d.std(ddof=1) / np.sqrt(len(d))) if len(d) > 1 else 0.0))
              .reset_index())
    # pairs that disagree (a factor helps one backbone, hurts another): seed noise alone understates it
    pooled["se"] = pooled[["within", "between"]].max(axis=1)
    pooled["from"] = pooled["factor"].map(reference)
    pooled = pooled[["factor", "from", "to", "pairs", "delta_gain", "se"]]
    return pairs, pooled.sort_values("delta_gain", key=abs, ascending=False, ignore_index=True)


def budget_config(budget: str, tiny: bool = False) -> dict:
    """TrainConfig overrides of a budget; a ``tiny`` one keeps the tiny profile's batch and
    doubles its steps for ``10x`` (every code path, in seconds)."""
    if budget not in BUDGETS:
        raise ValueError(f"unknown budget {budget!r}; choose from {', '.join(BUDGETS)}")
    return ({"steps": 8} if budget == "10x" else {}) if tiny else dict(BUDGETS[budget])


def tiny_cells() -> list[Cell]:
    """The tiny design: every code path (two seeds, a Wikipedia corpus, the 10x budget) on MiniLM."""
    return [Cell("minilm", "wikitext2", "cpu", (0, 1), True), Cell("minilm", "wikipedia-1x", "cpu", (0,), True),
            Cell("minilm", "wikitext2", "10x", (0,), True)]


def run(design_cells: list[Cell], profile: str = "cpu", size: str = "sweep", workers: int = 2, log=print,
        guard: Guard = OPEN, profile_size: str = "full"):
    """Prepare the corpora (tiny ones when ``size`` is ``"tiny"``), train (or reuse) every cell's seeds
    (``guard`` and ``profile_size`` as in :func:`pearl.experiments.runner.train_models`), score them and
    their untrained backbones; ``(gains_frame, trained group_frame, originals group_frame, dataset_gains)``."""
    from ..corpus import variants
    from ..benchmark.scoring import run_models
    from .runner import train_models
    from .tables import group_frame

    for corpus in dict.fromkeys(c.corpus for c in design_cells):
        variants.prepare(corpus, n_process=max(workers, 1), log=log, size="tiny" if size == "tiny" else "full",
                         guard=guard)
    by_seeds: dict = {}
    for c in design_cells:  # one call per seed list: its models train side by side
        by_seeds.setdefault(c.seeds, []).append(c)
    for seeds, group in by_seeds.items():
        train_models([c.recipe() for c in group], list(seeds), profile=profile, workers=workers, log=log, guard=guard,
                     profile_size=profile_size)
    folders = {c.key(): [c.recipe().folder(s) for s in c.seeds] for c in design_cells}
    done = trained(design_cells)
    cell_of = {m: (c, s) for m, (c, s, _) in done.items()}
    scored = run_models({"/".join(k): v for k, v in folders.items()}, size=size, workers=workers, log=log)
    backbones = list(dict.fromkeys(c.backbone for c in design_cells))
    base = run_models({b: [b] for b in backbones}, size=size, workers=workers, log=log)
    originals, groups = group_frame(base), group_frame(scored)
    gains = gains_frame(groups, cell_of, originals)
    gains.insert(4, "views", gains["model"].map({m: r["views"] for m, (_, _, r) in done.items()}))
    gains.insert(5, "train_s", gains["model"].map({m: r["train_s"] for m, (_, _, r) in done.items()}))
    return gains, groups, originals, dataset_gains(scored, base, cell_of)


def dataset_gains(scored, base, cell_of: dict):
    """Per cell and dataset: the untrained backbone's score, PEARL's mean over seeds and the gain
    (one score can carry a group's mean: a 2-cluster NMI swings far)."""
    import pandas as pd

    scored, base = pd.DataFrame(scored), pd.DataFrame(base)
    scored, base = scored[scored["dataset"] != "average"], base[base["dataset"] != "average"]
    ref = base.set_index(["group", "dataset"])["score"]
    rows = [{"backbone": c.backbone, "corpus": c.corpus, "budget": c.budget, "dataset": r["dataset"],
             "backbone_score": float(ref[(c.backbone, r["dataset"])]), "score": r["score"]}
            for r in scored.to_dict("records") for c, _ in [cell_of[r["model"]]]]
    out = (pd.DataFrame(rows).groupby(["backbone", "corpus", "budget", "dataset"], sort=False)
           .agg(seeds=("score", "size"), backbone_score=("backbone_score", "first"), pearl=("score", "mean"))
           .reset_index())
    out["gain"] = out["pearl"] - out["backbone_score"]
    return out


def trained(design_cells: list[Cell]) -> dict:
    """``{model label: (Cell, seed, run summary)}`` of every cell's trained folders; the summary
    (:func:`pearl.experiments.runner.run_summary`) holds the phrase views (steps done x batch
    size) and the seconds each training measured, whichever run did it."""
    from .runner import run_summary

    return {models.label(c.recipe().folder(s)): (c, s, run_summary(c.recipe().folder(s), s))
            for c in design_cells for s in c.seeds}


def largest(factors) -> dict | None:
    """The factor level that moves the average gain most (by absolute size), with its se."""
    if factors.empty:
        return None
    top = factors.iloc[0]
    return {"factor": top["factor"], "from": top["from"], "to": top["to"], "delta_gain": float(top["delta_gain"]),
            "se": float(top["se"]), "pairs": int(top["pairs"])}
