"""Figure 1 (entity-name ranking): the paper's opening example, the query "The New York Times"
against three aliases of the same entity ("nytimes.com", "NYTimes", "New-York Daily Times") and
two different entities ("New York Post", "New York"). For every model we give cosine scores and
ranks, and whether *all* aliases rank above every other candidate. Further cases of the same
kind (typos, acronyms, same surface but different type) ship in ``ranking_cases.json``; they are
ours, not the paper's. Figure 4 (t-SNE / UMAP of entity types) is :mod:`pearl.display.figure4`.

Left out: interactive plots (see :mod:`pearl.display.explorer`).
"""
from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Sequence

import numpy as np

from ..encode import encode, torch_threads
from ..models import label as model_label
from ..guard import OPEN, Guard
from ..models import MODEL_FIX, verified_folders
from ..tabular import Table, cell
from .figure4 import _wrap  # one way to wrap a model's label under a panel, in both figures

# --------------------------------------------------------------------------- models


def default_models(with_glove: bool = True, guard: Guard = OPEN) -> list[str]:
    """Model names for the figures: averaged GloVe, MiniLM, and every trained PEARL seed folder that
    verifies (a folder that would be refused at load is left out with a warning, never listed as found),
    each through ``guard.check_input`` (a full-size figure never draws a tiny model)."""
    folders = verified_folders()
    for folder in folders:
        guard.check_input(folder, MODEL_FIX)
    return (["glove"] if with_glove else []) + ["minilm"] + [str(p) for p in folders]


# --------------------------------------------------------------------------- Figure 1


def ranking_cases(path: str | Path | None = None) -> list[dict]:
    """The Figure-1-style cases: the paper's example first, then ours (shipped JSON).

    Each case is ``{"case", "kind", "query", "aliases", "others"}``; ``aliases`` name the
    query's entity, ``others`` are different entities that look alike.
    """
    text = Path(path).read_text(encoding="utf8") if path else \
        resources.files("pearl.display").joinpath("ranking_cases.json").read_text(encoding="utf8")
    cases = json.loads(text)
    for c in cases:
        missing = {"case", "kind", "query", "aliases", "others"} - set(c)
        if missing or not c["aliases"] or not c["others"]:
            raise ValueError(f"ranking case {c.get('case')!r} needs query, aliases and others (missing {sorted(missing)})")
    return cases


def rank_candidates(query_vec: np.ndarray, cand_vecs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Cosine scores (vectors are L2-normalised) and 1-based ranks, best first; ties keep input order.

    >>> s, r = rank_candidates(np.array([1.0, 0.0]), np.array([[0.0, 1.0], [1.0, 0.0], [0.6, 0.8]]))
    >>> s.round(2).tolist(), r.tolist()
    ([0.0, 1.0, 0.6], [3, 1, 2])
    """
    scores = cand_vecs @ query_vec
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores), dtype=int)
    ranks[order] = np.arange(1, len(scores) + 1)
    return scores, ranks


def figure1_table(models: dict, cases: Sequence[dict]):
    """Long table: one row per (case, model, candidate) with cosine, rank and ``aliases_first``.

    ``models`` maps display names to loaded :class:`pearl.encode.Encoder` objects.
    """
    import pandas as pd

    rows = []
    for label, model in models.items():
        for c in cases:
            cands = list(c["aliases"]) + list(c["others"])
            with torch_threads(1):  # a handful of phrases: threads only wait for each other
                vecs = encode(model, [c["query"]] + cands)
            scores, ranks = rank_candidates(vecs[0], vecs[1:])
            n = len(c["aliases"])
            first = bool(ranks[:n].max() == n)  # every alias above every other candidate
            for cand, s, r, i in zip(cands, scores, ranks, range(len(cands))):
                rows.append(dict(case=c["case"], kind=c["kind"], model=label, query=c["query"], candidate=cand,
                                 is_alias=i < n, cosine=round(float(s), 4), rank=int(r), aliases_first=first))
    return pd.DataFrame(rows)


def figure1_markdown(table) -> Table:
    """The paper example as a candidate x model grid of "cosine (rank)", then a case x model summary."""
    first = table["case"].iloc[0]
    main = table[table["case"] == first].copy()
    main["cell"] = [cell(r["cosine"], digits=3, beside=r["rank"]) for r in main.to_dict("records")]
    main["candidate"] = [cell(r["candidate"], bold=r["is_alias"]) for r in main.to_dict("records")]
    grid = main.pivot_table(index="candidate", columns="model", values="cell", aggfunc="first", sort=False)
    summary = (table.groupby(["case", "model"], sort=False)["aliases_first"].first()
               .map({True: "yes", False: "no"}).unstack("model"))
    query = main["query"].iloc[0]
    return Table(grid, index=True, head=f"Query: *{query}* — aliases in bold; cell = cosine (rank).",
                 notes=["All aliases ranked first, per case:", Table(summary, index=True)])


def plot_figure1(table):
    """Top: the paper example, one bar panel per model (green = alias, grey = other entity),
    titled with the model's Table-1 label and the ranks its aliases get. Bottom: every case x
    model as a grid of ✓ (all aliases above every other candidate) or ✗, with how many of the
    n aliases are in the top n. Colours mark aliases, not verdicts; nothing is drawn in red."""
    import matplotlib.pyplot as plt

    models = list(dict.fromkeys(table["model"]))
    cases = list(dict.fromkeys(table["case"]))
    main = table[table["case"] == cases[0]]
    fig = plt.figure(figsize=(max(2.9 * len(models) + 2.2, 9), 4.3 + 0.36 * len(cases)), layout="constrained")
    top, bottom = fig.subfigures(2, 1, height_ratios=[3.6, 0.9 + 0.36 * len(cases)])
    axes = np.atleast_1d(top.subplots(1, len(models), sharex=True, sharey=True))
    n_alias = int(main[main["model"] == models[0]]["is_alias"].sum())
    for ax, m in zip(axes, models):
        d = main[main["model"] == m]
        y = np.arange(len(d))[::-1]
        ax.barh(y, d["cosine"], color=["tab:green" if a else "tab:gray" for a in d["is_alias"]])
        for yi, (s, r) in zip(y, zip(d["cosine"], d["rank"])):
            ax.text(max(s, 0) + 0.01, yi, f"#{r}", va="center", fontsize=8)
        ax.set_yticks(y, d["candidate"])
        ax.set_xlim(0, 1.15)
        ranks = ", ".join(str(r) for r in sorted(d.loc[d["is_alias"], "rank"]))
        ax.set_title(f"{_wrap(model_label(m), 26)}\naliases ranked {ranks} of {len(d)}", fontsize=9)
        ax.set_xlabel("cosine to query")
    top.suptitle(f"Query \u201c{main['query'].iloc[0]}\u201d (the paper's Figure 1): green bars are its "
                 f"{n_alias} aliases, grey bars other entities; #k = rank", fontsize=10)
    ax = bottom.subplots()
    grouped = table.groupby(["case", "model"], sort=False)
    first = grouped["aliases_first"].first().unstack("model").loc[cases, models]
    # how many of the n aliases are among the n best-ranked candidates
    in_top = grouped.apply(lambda d: int((d["rank"][d["is_alias"]] <= d["is_alias"].sum()).sum()), include_groups=False)
    in_top = in_top.unstack("model").loc[cases, models]
    n_of = table.groupby("case", sort=False)["is_alias"].sum() // len(models)
    ok = first.astype(float).to_numpy()
    from matplotlib.colors import ListedColormap

    ax.imshow(ok, cmap=ListedColormap(["#f0f0f0", "#a6d96a"]), vmin=0, vmax=1, aspect="auto")
    for (i, j), v in np.ndenumerate(ok):
        ax.text(j, i, f"{'✓' if v else '✗'}  {in_top.iat[i, j]}/{n_of[cases[i]]}", ha="center", va="center",
                fontsize=9, color="black")
    ax.set_xticks(range(len(models)), [_wrap(model_label(m), 24) for m in models], fontsize=8)
    ax.xaxis.tick_top()
    queries = table.groupby("case", sort=False)["query"].first()
    ax.set_yticks(range(len(cases)), [_wrap(f"{queries[c]}", 40) for c in cases], fontsize=8)
    ax.set_title("Every case: ✓ = all aliases ranked above every other entity; k/n = aliases among the top n",
                 fontsize=9)
    return fig


def figure1_metrics(table, cases: Sequence[dict], models) -> dict:
    """Notebook 05's Figure-1 numbers per model: whether all aliases rank first in the paper's case
    (the first of ``cases``), in how many of the cases they do, and how many cases there are."""
    verdicts = table.groupby(["model", "case"], sort=False)["aliases_first"].first()
    return {"figure1_aliases_first": {m: bool(verdicts[m][cases[0]["case"]]) for m in models},
            "figure1_cases_with_aliases_first": {m: int(verdicts[m].sum()) for m in models},
            "figure1_cases": len(cases)}
