"""Figure 5 (paper §5.5): BIRD score against the learning rate and against the number of hard
negatives per phrase, one panel each; and PAUSE's label-efficiency curve (notebook 11). Points are means over the seeds trained for them (bars:
their std when there are several); the band is the seed noise of the full recipe (its BIRD
std over seeds), so a reader sees which steps of a curve exceed it.

Left out: training and scoring (:mod:`pearl.experiments.runner`), and the figure drawn again from
committed results (the harness's ``harness.redraw.figure5``).
"""
from __future__ import annotations

import math


def plot_hyperparameters(points, noise: float | None = None, reference: dict | None = None,
                         untrained: float | None = None, paper_choice: dict | None = None):
    """``points``: frame with columns ``parameter`` ("lr" | "hard_negatives"), ``value``, ``score``
    (one row per trained model); ``reference``: the full recipe's ``{"lr": .., "hard_negatives": ..}``;
    ``untrained``: the untrained backbone's BIRD score (a dashed line); ``paper_choice``: the
    settings the paper chose (a star; default :func:`pearl.benchmark.paper.figure5`)."""
    import matplotlib.pyplot as plt

    from ..benchmark import paper

    paper_choice = paper.figure5() if paper_choice is None else paper_choice

    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    titles = {"lr": ("learning rate (at 2 hard negatives)", True),
              "hard_negatives": ("hard negatives per phrase (at the chosen lr)", False)}
    for ax, (param, (title, log_x)) in zip(axes, titles.items()):
        sub = points[points["parameter"] == param].groupby("value")["score"].agg(["mean", "std", "count"]).reset_index()
        ax.errorbar(sub["value"], sub["mean"], yerr=sub["std"].fillna(0), marker="o", capsize=3, color="C0")
        for row in sub.itertuples():
            ax.annotate(f"n={row.count}", (row.value, row.mean), textcoords="offset points", xytext=(0, 7),
                        ha="center", fontsize=7, color="0.4")
        if reference and param in reference:
            ref = sub[sub["value"] == reference[param]]
            if len(ref) and noise is not None and not math.isnan(noise):
                m = float(ref["mean"].iloc[0])
                ax.axhspan(m - noise, m + noise, color="C0", alpha=0.12, label=f"full recipe ± seed std ({noise:.2f})")
        chosen = sub[sub["value"] == paper_choice.get(param)]
        if len(chosen):
            ax.plot(chosen["value"], chosen["mean"], marker="*", ms=14, color="C3", ls="", zorder=5,
                    label=f"paper's choice ({paper_choice[param]:g})")
        if untrained is not None and not math.isnan(untrained):
            ax.axhline(untrained, color="0.4", ls="--", lw=1, label=f"untrained backbone ({untrained:.1f})")
        ax.legend(fontsize=7, loc="lower center")
        if log_x:
            ax.set_xscale("log")
        else:
            ax.set_xticks(sorted(sub["value"]))
        ax.set_xlabel(title)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("BIRD (Pearson r × 100)")
    fig.suptitle("Figure 5: BIRD against the learning rate and the number of hard negatives", fontsize=10)
    fig.tight_layout()
    return fig


def plot_label_efficiency(curve):
    """PAUSE's label-efficiency curve: the benchmark average against the share of positive
    pairs labelled (``curve``: columns ``share``, ``average``, one row per trained model)."""
    import matplotlib.pyplot as plt

    agg = curve.groupby("share")["average"].agg(["mean", "std", "count"]).reset_index()
    fig, ax = plt.subplots(figsize=(4.8, 3.2))
    ax.errorbar(agg["share"] * 100, agg["mean"], yerr=agg["std"].fillna(0), marker="o", capsize=3)
    for row in agg.itertuples():
        ax.annotate(f"n={row.count}", (row.share * 100, row.mean), textcoords="offset points", xytext=(0, 7),
                    ha="center", fontsize=7, color="0.4")
    ax.set_xscale("log")
    ax.set_xlabel("positive pairs labelled (%)")
    ax.set_ylabel("benchmark average (sweep suite)")
    ax.set_title("PAUSE: label efficiency", fontsize=10)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig
