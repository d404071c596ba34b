"""The discrepancy study on the page: its figure and its tables as text.

- :func:`plot_gains`: PEARL's gain over its backbone per task group, one bar per configuration
  (mean over its seeds; bars: std over seeds, none for one seed), the paper's gain of
  PEARL-small over E5-small per group as black ticks, and its printed +6.1 as a dashed line;
- :func:`design_frame`, :func:`corpora_frame`: what is run, on what;
- :func:`markdown`, :func:`factors_markdown`, :func:`datasets_markdown`: the study's tables
  with how to read them (:class:`pearl.tabular.Table` specs);
- :func:`views_frame`, :func:`plot_views`: the two views of the embedding on a clustering set
  (a record of the views' measurements): what the old join lost and what centring keeps.

Left out: training, scoring and the numbers themselves (:mod:`pearl.experiments.discrepancy`); a
figure drawn again from a committed record, and which recipe that record's run trained (the
harness).
"""
from __future__ import annotations

import json

import numpy as np

from ..benchmark.tasks import GROUPS
from ..tabular import Table, cell


def config_label(row) -> str:
    """``"MiniLM · WikiText-2 · cpu (n=3)"`` for a row of the study's summary."""
    backbone = {"minilm": "MiniLM", "me5-small": "me5-small"}.get(row["backbone"], row["backbone"])
    corpus = {"wikitext2": "WikiText-2", "wikipedia-1x": "Wiki 1x", "wikipedia-10x": "Wiki 10x"}.get(row["corpus"], row["corpus"])
    return f"{backbone} · {corpus} · {row['budget']} (n={row['seeds']})"


def plot_gains(summary, gains, paper: dict, extra: list | None = None, note: str = ""):
    """``summary``/``gains``: :func:`pearl.experiments.discrepancy.summary` and its per-seed frame;
    ``paper``: :func:`pearl.experiments.references.paper_gains`; ``extra``: more labelled points
    ``{"label", column: gain}`` drawn as hollow markers (the GPU run); ``note``: a line under
    the title (which run drew it; in red when it says the recipe is superseded)."""
    import matplotlib.pyplot as plt
    import numpy as np

    from ..experiments.discrepancy import COLUMNS

    n = len(summary)
    fig, ax = plt.subplots(figsize=(10, 6.2))
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
    ax.set_xticks(x, [c.replace(" ", "\n") if c != "average" else "average of\nthe groups" for c in COLUMNS], fontsize=8)
    ax.set_ylabel("PEARL − its untrained backbone (points)")
    ax.set_title("Where the gain comes from: backbone × corpus × budget (hatched: 10x budget)"
                 + (f"\n{note}" if note else ""), fontsize=10, color="darkred" if SUPERSEDED in note else "black")
    ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.tight_layout()
    return fig


SUPERSEDED = "superseded recipe"


def design_frame(design_cells: list):
    """The configurations to run, with their model folders' names."""
    import pandas as pd

    return pd.DataFrame([{"backbone": c.backbone, "corpus": c.corpus, "budget": c.budget, "seeds": len(c.seeds),
                          "folder (seed 0)": c.recipe().folder(c.seeds[0]).name} for c in design_cells])


def corpora_frame(design_cells: list):
    """What each corpus of the design holds (its ``corpus.json``)."""
    import pandas as pd

    from ..corpus import variants

    rows = []
    for name in dict.fromkeys(c.corpus for c in design_cells):
        about = variants.about(name)
        rows.append({"corpus": name, "description": about.get("description", variants.CORPORA[name].description),
                     "tokens": about.get("tokens"), "phrases kept": about.get("kept"),
                     "hard-negative anchors": len(json.loads(variants.files(name)["hard_negatives"].read_text()))})
    return pd.DataFrame(rows)


def _signed(v, digits: int = 2) -> str:
    return cell(v, digits=digits, sign=True, missing="–")


def _plain(v, digits: int = 2) -> str:
    return cell(v, digits=digits, missing="–")


def markdown(table, size: str, profile: str) -> Table:
    """The study's table as Markdown, with how to read it."""
    t = table.copy()
    for col in [*GROUPS, "average_gain"]:
        t[col] = t[col].map(_signed)
    t["std"], t["p"], t["mde"] = t["std"].map(_plain), t["p"].map(lambda v: _plain(v, 3)), t["mde"].map(_plain)
    return Table(t, numparse=False, head=(
        f"Discrepancy study ({profile} profile, {size} benchmark): PEARL − its untrained backbone, per task "
        "group and on their average; mean over seeds. std: of the average gain over seeds; p: one-sample "
        "t-test of the seeds' average gains against 0; mde: the smallest average gain that test detects "
        "with 80 % power at α = 0.05 (– for one seed)."))


def factors_markdown(factors, pairs) -> Table:
    """The pooled factors, then every pair behind them: a factor that helps one backbone and hurts
    the other shows there, not in its mean."""
    f = factors.copy()
    f["delta_gain"], f["se"] = f["delta_gain"].map(_signed), f["se"].map(_plain)
    head = ("How much each factor moves the average gain: pairs of configurations that differ in that factor alone "
            "(the other two fixed); delta_gain is the mean of their differences, se its standard error: the larger "
            "of the seeds' noise carried through (per pair, Welch; a one-seed side borrows the other side's seed "
            "variance) and the pairs' own spread (std / √pairs).")
    if pairs.empty:
        return Table(f, numparse=False, head=head)
    q = pairs.copy()
    q["fixed"] = [", ".join(str(r[c]) for c in ("backbone", "corpus", "budget") if c != r["factor"] and r[c] == r[c]
                            and r[c] is not None) for r in q.to_dict("records")]
    q["seeds"] = q["n_from"].astype(int).astype(str) + " → " + q["n_to"].astype(int).astype(str)
    q["delta_gain"], q["se"], q["p"] = q["delta_gain"].map(_signed), q["se"].map(_plain), q["p"].map(lambda v: _plain(v, 3))
    q = q[["factor", "from", "to", "fixed", "seeds", "delta_gain", "se", "p"]]
    return Table(f, numparse=False, head=head, notes=[
        f"The {len(pairs)} pairs (p: Welch's t-test, where both sides have two seeds or more):", Table(q, numparse=False)])


def datasets_markdown(datasets) -> Table:
    """The untrained backbones' score per dataset, then each configuration's mean gain per dataset."""
    wide = datasets.pivot_table(index=["backbone", "corpus", "budget", "seeds"], columns="dataset", values="gain",
                                sort=False).reset_index()
    order = list(dict.fromkeys(datasets["dataset"]))
    base = datasets.drop_duplicates(["backbone", "dataset"]).pivot(index="backbone", columns="dataset",
                                                                   values="backbone_score")[order].reset_index()
    for col in order:
        wide[col], base[col] = wide[col].map(lambda v: _signed(v, 1)), base[col].map(cell)
    return Table(base, numparse=False, head="Untrained backbones, score per dataset (sweep suite):", notes=[
        "PEARL − its untrained backbone per dataset, mean over seeds:",
        Table(wide[["backbone", "corpus", "budget", "seeds", *order]], numparse=False)])


def views_frame(record: dict, dataset: str = "bc5cdr"):
    """A views record's view rows for one clustering set, one row per backbone,
    recipe and moment: NMI of the embedding under each join, of each view, and the character
    part's share of the variance under each join."""
    import pandas as pd

    rows = pd.DataFrame(record["views"])
    rows = rows[rows["set"] == dataset]
    keys = ["backbone", "trained with", "moment"]
    values = ["NMI embedding", "NMI phrase part", "char share of variance"]
    wide = rows.pivot_table(index=keys, columns="join", values=values, sort=False)
    wide = wide[[(v, j) for v in values for j in ("uncentred", "centred")]]
    wide.columns = [f"{a}, {b}" for a, b in wide.columns]
    return wide.join(rows[rows["join"] == "uncentred"].set_index(keys)[["NMI character part"]]).reset_index()


def plot_views(record: dict, dataset: str = "bc5cdr"):
    """BC5CDR's NMI for the embedding under each join and for the phrase part alone, per backbone,
    recipe and moment: where the old join lost the entity split and what centring keeps."""
    import matplotlib.pyplot as plt

    frame = views_frame(record, dataset)
    fig, axes = plt.subplots(1, frame["backbone"].nunique(), figsize=(11, 3.6), sharey=True, squeeze=False)
    for ax, (backbone, sub) in zip(axes[0], frame.groupby("backbone", sort=False)):
        labels = [f"{t.split(' ')[0]}\n{m.replace(', before averaging', '').replace('after averaging', 'averaged')}"
                  for t, m in zip(sub["trained with"], sub["moment"])]
        x = np.arange(len(sub))
        for i, (col, name) in enumerate([("NMI embedding, uncentred", "embedding, old join"),
                                         ("NMI embedding, centred", "embedding, centred join"),
                                         ("NMI phrase part, centred", "phrase part alone, centred")]):
            ax.bar(x + (i - 1) * 0.27, sub[col], 0.27, label=name)
        ax.set_xticks(x, labels, fontsize=7)
        ax.set_title(backbone)
    axes[0][0].set_ylabel(f"{dataset.upper()} NMI x100")
    fig.legend(*axes[0][0].get_legend_handles_labels(), loc="upper center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    return fig
