"""The PPDB probe's learning curves (``perf/probe_convergence.py``): test accuracy per epoch,
mean ± one std over probe seeds, one panel per model and data set, with the score each stopping
rule keeps marked (its best-validation epoch, per seed) and the convex cross-check drawn as a level.

What it leaves out: computing anything (the curves come in as recorded) and validation curves
(recorded in the study's CSV; the figure shows what the protocols report, test accuracy).
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

#: how each (setting, init) curve is drawn
STYLES = {("paper", "glorot"): ("tab:red", "paper optimiser (lr 1e-4, raw), Glorot"),
          ("converged", "glorot"): ("tab:blue", "standardised, lr 1e-3, Glorot"),
          ("converged", "torch"): ("tab:green", "standardised, lr 1e-3, torch init")}
DATASET_TITLES = {"ppdb": "PPDB", "ppdb_filtered": "PPDB-filtered"}


def mean_band(curves: Sequence[Sequence[float]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(epochs from 1, mean, std) of equally long curves, one per seed (std 0 for a single seed).

    >>> mean_band([[50, 60], [52, 64]])[1].tolist(), mean_band([[50, 60], [52, 64]])[2].tolist()
    ([51.0, 62.0], [1.0, 2.0])
    """
    arr = np.asarray(curves, dtype=float)
    return np.arange(1, arr.shape[1] + 1), arr.mean(0), arr.std(0)


def plot_probe_curves(blocks: Mapping[tuple, list[dict]], stops: Mapping[tuple, list[dict]] | None = None,
                      linear: Mapping[tuple, float] | None = None, labels: Mapping[str, str] | None = None):
    """One panel per (dataset, model): test accuracy curves of every (setting, init) recorded.

    ``blocks[model, dataset, setting, init]`` is a list of per-seed curves (``test_accuracy``
    per epoch); ``stops[model, dataset, setting, init]`` the scores a stopping rule keeps (dicts
    with ``best_epoch`` and ``test_accuracy``, one per seed), labelled by their ``rule``;
    ``linear[model, dataset]`` the logistic regression's test accuracy. The x axis is
    logarithmic so that the first epochs and the 300th both show.
    """
    import matplotlib.pyplot as plt

    stops, linear, labels = stops or {}, linear or {}, labels or {}
    model_names = list(dict.fromkeys(k[0] for k in blocks))
    datasets = [d for d in DATASET_TITLES if any(k[1] == d for k in blocks)]
    fig, axes = plt.subplots(len(datasets), len(model_names), figsize=(5.2 * len(model_names), 3.6 * len(datasets)),
                             squeeze=False, sharex=True)
    for row, dataset in enumerate(datasets):
        for col, model in enumerate(model_names):
            ax = axes[row][col]
            for (m, d, setting, init), block in blocks.items():
                if (m, d) != (model, dataset):
                    continue
                color, text = STYLES.get((setting, init), ("gray", f"{setting}, {init}"))
                x, mean, std = mean_band([c["test_accuracy"] for c in block])
                ax.plot(x, mean, color=color, lw=1.4, label=f"{text} ({len(block)} seeds)")
                ax.fill_between(x, mean - std, mean + std, color=color, alpha=0.2, lw=0)
                for stop in stops.get((m, d, setting, init), []):
                    ax.plot(stop["best_epoch"], stop["test_accuracy"], marker=stop.get("marker", "o"),
                            color=color, mec="black", mew=0.6, ms=6, ls="none")
            if (model, dataset) in linear:
                ax.axhline(linear[model, dataset], color="black", ls="--", lw=1,
                           label="logistic regression on [u, v, |u−v|, u⊙v]")
            ax.set_xscale("log")
            ax.set_title(f"{DATASET_TITLES[dataset]} · {labels.get(model, model)}", fontsize=9)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("test accuracy (%)")
            if row == len(datasets) - 1:
                ax.set_xlabel("epoch (log scale)")
    handles, names = axes[0][0].get_legend_handles_labels()
    rules = sorted({(s.get("marker", "o"), s.get("rule", "")) for v in stops.values() for s in v})
    for marker, rule in rules:
        handles.append(plt.Line2D([], [], marker=marker, color="gray", mec="black", ls="none"))
        names.append(f"score kept by {rule}: its best-validation epoch, one mark per seed")
    fig.legend(handles, names, loc="lower center", ncol=2, fontsize=8, frameon=False, bbox_to_anchor=(0.5, -0.02 - 0.03 * len(rules)))
    fig.suptitle("PPDB probe: test accuracy per epoch, mean ± std over probe seeds", fontsize=11)
    fig.tight_layout()
    return fig
