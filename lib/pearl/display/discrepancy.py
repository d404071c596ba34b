"""The discrepancy study's figure: PEARL's gain over its backbone per task group, one bar per
configuration (mean over its seeds; bars: std over seeds, none for one seed), the paper's gain of
PEARL-small over E5-small per group as black ticks, and its printed +6.1 as a dashed line.

Left out: training, scoring and the tables (:mod:`pearl.experiments.discrepancy`).
"""
from __future__ import annotations


def config_label(row) -> str:
    """``"MiniLM · WikiText-2 · cpu (n=3)"`` for a row of the study's summary."""
    backbone = {"minilm": "MiniLM", "me5-small": "me5-small"}.get(row["backbone"], row["backbone"])
    corpus = {"wikitext2": "WikiText-2", "wikipedia-1x": "Wiki 1x", "wikipedia-10x": "Wiki 10x"}.get(row["corpus"], row["corpus"])
    return f"{backbone} · {corpus} · {row['budget']} (n={row['seeds']})"


def plot_gains(summary, gains, paper: dict, extra: list | None = None):
    """``summary``/``gains``: :func:`pearl.experiments.discrepancy.summary` and its per-seed frame;
    ``paper``: :func:`pearl.experiments.discrepancy.paper_gains`; ``extra``: more labelled points
    ``{"label", column: gain}`` drawn as hollow markers (the GPU run)."""
    import matplotlib.pyplot as plt
    import numpy as np

    from ..experiments.discrepancy import COLUMNS

    n = len(summary)
    fig, ax = plt.subplots(figsize=(11, 4.4))
    width = 0.8 / max(n, 1)
    x = np.arange(len(COLUMNS))
    for i, row in enumerate(summary.to_dict("records")):
        sub = gains[(gains["backbone"] == row["backbone"]) & (gains["corpus"] == row["corpus"])
                    & (gains["budget"] == row["budget"])]
        means = sub[COLUMNS].mean().to_numpy(float)
        stds = sub[COLUMNS].std(ddof=1).to_numpy(float) if len(sub) > 1 else None
        ax.bar(x - 0.4 + width * (i + 0.5), means, width, yerr=stds, capsize=2, label=config_label(row),
               color=plt.cm.tab10(i % 10), alpha=0.85 if row["backbone"] == "minilm" else 1.0,
               hatch="" if row["budget"] == "cpu" else "//", edgecolor="white" if row["budget"] == "cpu" else "0.2")
    ax.scatter(x, [paper[c] for c in COLUMNS], marker="_", s=900, color="black", zorder=5,
               label="paper: PEARL-small − E5-small (Table 1)")
    for point in extra or []:
        ax.scatter(x, [point.get(c, np.nan) for c in COLUMNS], marker="D", facecolors="none", edgecolors="0.3",
                   zorder=6, label=point["label"])
    ax.axhline(paper["printed Avg"], color="black", ls="--", lw=0.8)
    ax.annotate(f"paper's printed +{paper['printed Avg']:.1f} (nine-dataset average)", (len(COLUMNS) - 0.5, paper["printed Avg"]),
                textcoords="offset points", xytext=(0, 4), ha="right", fontsize=8)
    ax.axhline(0, color="0.5", lw=0.6)
    ax.set_xticks(x, [c if c != "average" else "average of the groups" for c in COLUMNS], fontsize=8)
    ax.set_ylabel("PEARL − its untrained backbone (points)")
    ax.set_title("Where the gain comes from: backbone × corpus × budget (hatched: 10x budget)")
    ax.legend(fontsize=7, ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return fig
