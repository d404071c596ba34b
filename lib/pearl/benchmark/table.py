"""One table module: every results table of the paper's Tables 1 and 2 from a suite description.

A :class:`Suite` says which tasks a table holds (:data:`pearl.benchmark.tasks.SUITES`), which
of the paper's tables stands beside it (:mod:`pearl.benchmark.paper`) and what it adds: an
average over its tasks, the released checkpoints' rows, Table 1's PPDB columns under the
paper's own probe. :data:`TABLE1` and :data:`TABLE2` are the two.

- :func:`tidy` makes one row per model x task (plus ``average`` where the suite has one),
  :func:`seed_mean` the mean ± std over trained seeds; every cell's text is
  :func:`pearl.tabular.cell`'s and every table a :class:`pearl.tabular.Table`;
- :func:`report` writes ``results/<suite>.{csv,md,tex}`` from :func:`pearl.benchmark.scoring.run_model`'s
  rows (``update=True`` replaces the rows of the models scored now and keeps the others).

What it leaves out: scoring (:mod:`pearl.benchmark.scoring`) and the experiment tables
(:mod:`pearl.experiments.tables`), whose rows are recipes, not models.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .. import models, paths
from ..guard import OPEN, Guard
from ..tabular import Table, cell, render, rows as table_rows
from . import paper
from .tasks import GROUPS, SUITES, TASKS

COLUMNS = {name: t.column for name, t in TASKS.items()}


@dataclass(frozen=True)
class Suite:
    """What one results table holds beside the scores themselves."""

    name: str  # results/<name>.{csv,md,tex}, and the suite in tasks.SUITES
    paper: int  # the paper's table printed above ours
    average: bool  # an Avg column: the plain mean of every task's score, NaN unless all are there
    released: bool  # the authors' README rows for their released checkpoints, under their own label
    paper_probe: bool  # Table 1's PPDB columns again under the paper's probe, after Avg and outside it
    notes: str
    caption: str

    @property
    def datasets(self) -> tuple[str, ...]:
        return SUITES[self.name]


#: Table 1's PPDB columns under the paper's own probe (patience 5): beside the table, out of its average
PAPER_PROBE_COLUMNS = {d: f"{COLUMNS[d]} (paper probe)" for d in GROUPS["paraphrase classification"]}

TABLE1 = Suite(
    "table1", 1, average=True, released=True, paper_probe=True,
    notes="Scores in percent. Rows marked *paper* are the paper's Table 1 as printed (mean ± std over its 3 seeds "
          "where it prints one; its Avg for Phrase-BERT, UCTopic and E5-base differs from the mean of their rows: "
          "`pearl/benchmark/paper_slips.csv`); rows marked *released checkpoint* are the authors' README's numbers for "
          "their released models, not the paper's; rows marked *this run* were computed by notebooks/04_benchmark.ipynb. "
          "PPDB columns: mean ± std over 3 probe seeds of the probe trained to convergence (standardised inputs, lr "
          "1e-3, patience 10, at most 50 epochs; `pearl.benchmark.probe`); the columns marked *paper probe*, after Avg "
          "and not in it, are the paper's protocol (lr 1e-4, patience 5), the one the paper's own rows come from. n/a: "
          "the model cannot do the task (string similarity: no vectors) or the task was not run; Avg needs all nine scores.",
    caption="Table 1 re-run (this run; stand-ins as in the README).")
TABLE2 = Suite(
    "table2", 2, average=False, released=False, paper_probe=False,
    notes="Test accuracy in percent, mean ± std over 10 classifier seeds (an MLP with ReLU on frozen embeddings); the "
          "PEARL (ours) row is the mean ± std over trained seeds of their means. Twitter = Sentiment140 tweets "
          "(stand-in for the paper's Twitter data). Rows marked *paper* are the paper's Table 2 as printed (its E5 and "
          "PEARL rows are E5-small/base and PEARL-small/base, not the MiniLM backbone run here; our sets are built from "
          "other data, so absolute accuracies do not compare).",
    caption="Table 2 re-run: short-text classification accuracy (this run; Sentiment140 stands in for Twitter).")
SUITE_TABLES = {s.name: s for s in (TABLE1, TABLE2)}


def tidy(rows: list[dict], suite: Suite = TABLE1):
    """One row per model x task (``details`` left out), plus an ``average`` row per model where the suite has one."""
    import pandas as pd

    df = pd.DataFrame([{k: v for k, v in r.items() if k != "details"} for r in rows])
    return add_average(df, suite)


def add_average(df, suite: Suite = TABLE1):
    """``df`` with one ``average`` row per model: the plain mean of the suite's scores, as in the
    paper, NaN unless every one is present (none for a suite without an average)."""
    import pandas as pd

    df = df[df["dataset"] != "average"]
    if not suite.average:
        return df.reset_index(drop=True)
    avg = []
    for model, group in df.groupby("model", sort=False):
        scores = group.set_index("dataset")["score"].reindex(list(suite.datasets))
        avg.append({"model": model, "dataset": "average", "score": scores.mean() if scores.notna().all() else math.nan,
                    "std": math.nan, "n": len(suite.datasets), "seconds": group["seconds"].sum(),
                    "note": "" if scores.notna().all() else f"needs all {len(suite.datasets)} scores"})
    return pd.concat([df, pd.DataFrame(avg)], ignore_index=True)


def seed_mean(df, keys: Sequence[str], label: str, suite: Suite = TABLE1):
    """One row per task: mean and sample std over the seed models ``keys`` (e.g. PEARL runs).

    Retrieval rows keep their dictionary (the same for every seed) and the mean gold-only
    score; the paper probe's PPDB scores get their mean and std over the seeds, as the main columns."""
    import pandas as pd

    sub = df[df["model"].isin(keys) & (df["dataset"] != "average")]
    agg = sub.groupby("dataset", sort=False)["score"].agg(["mean", "std", "count"]).reset_index()
    out = pd.DataFrame({"model": label, "dataset": agg["dataset"], "score": agg["mean"],
                        "std": agg["std"], "n": agg["count"], "seconds": math.nan,
                        "note": [f"mean ± std over {c} seeds" if c != 1 else "one seed" for c in agg["count"]]})
    extra = {"dictionary": ("dictionary", "first"), "dictionary_size": ("dictionary_size", "first"),
             "gold_only_score": ("gold_only_score", "mean"), "paper_probe_score": ("paper_probe_score", "mean"),
             "paper_probe_std": ("paper_probe_score", "std")}
    extra = {k: v for k, v in extra.items() if v[0] in sub}
    if extra:
        out = out.merge(sub.groupby("dataset", sort=False).agg(**extra).reset_index(), on="dataset", how="left")
    return add_average(out, suite)


def _paper_probe(g, dataset: str, field: str = "score") -> float:
    """A model's paper-probe PPDB score (or std) from its tidy rows; NaN when it was not run."""
    column = f"paper_probe_{field}"
    return float(g[column].get(dataset, math.nan)) if column in g else math.nan


def markdown(ours, suite: Suite = TABLE1, retrieval_kind: str = "rebuilt dictionary",
             deltas: tuple[str, str] | None = None) -> Table:
    """The paper's rows (and the released checkpoints', where the suite has them), then ours
    (labelled by :func:`pearl.models.label`); retrieval columns say which dictionary was used;
    ``deltas=(a, b)`` adds the row a − b."""
    cols = [f"{COLUMNS[d]} ({retrieval_kind})" if d in ("yago", "umls") else COLUMNS[d] for d in suite.datasets]
    body = [*suite.datasets, *(["average"] if suite.average else [])]
    probes = PAPER_PROBE_COLUMNS if suite.paper_probe else {}
    cols += [*(["Avg"] if suite.average else []), *probes.values()]
    lines = []
    printed = [*(COLUMNS[d] for d in suite.datasets), *(["Avg"] if suite.average else [])]
    for which, source in ((suite.paper, paper.PAPER), *((("released", paper.RELEASED),) if suite.released else ())):
        for _, r in paper.labelled(which).iterrows():  # the paper's PPDB numbers are its own probe's: in both places
            lines.append([r["Model"], source, *(paper.cell(which, r["_key"], c)
                                                for c in [*printed, *(COLUMNS[d] for d in probes)])])
    wide = {m: g.set_index("dataset") for m, g in ours.groupby("model", sort=False)}
    for model, g in wide.items():
        vals = [cell(g["score"].get(d, math.nan), g["std"].get(d, math.nan)) for d in body]
        vals += [cell(_paper_probe(g, d), _paper_probe(g, d, "std")) for d in probes]
        lines.append([models.label(model), "this run", *vals])
    if deltas and deltas[0] in wide and deltas[1] in wide:
        new, base = wide[deltas[0]], wide[deltas[1]]
        diff = [new["score"].get(d, math.nan) - base["score"].get(d, math.nan) for d in body]
        diff += [_paper_probe(new, d) - _paper_probe(base, d) for d in probes]
        lines.append([f"Δ {models.label(deltas[0])} − {models.label(deltas[1])}", "this run",
                      *(cell(x, sign=True) for x in diff)])
    return table_rows(["Model", "Source", *cols], lines)


def latex(table, suite: Suite = TABLE1) -> Table:
    """Our rows of the table as a booktabs LaTeX tabular (scores in percent)."""
    body = [*suite.datasets, *(["average"] if suite.average else [])]
    wide = table.pivot_table(index="model", columns="dataset", values="score", sort=False).reindex(columns=body)
    wide.index = [models.label(m) for m in wide.index]
    wide.columns = [*(COLUMNS[d] for d in suite.datasets), *(["Avg"] if suite.average else [])]
    for d, column in (PAPER_PROBE_COLUMNS if suite.paper_probe else {}).items():  # beside the average, not in it
        rows = table[table["dataset"] == d].set_index("model")
        wide[column] = [rows["paper_probe_score"].get(m, math.nan) if "paper_probe_score" in rows else math.nan
                        for m in table.drop_duplicates("model")["model"]]
    return Table(wide, index=True, float_format="%.1f", caption=suite.caption, label=f"tab:{suite.name}", escape=None)


def retrieval_notes(table) -> tuple[str, list]:
    """Which retrieval dictionary the table's YAGO/UMLS rows used: its kind, and a note and a
    table with each one's size."""
    retrieval = table[table["dataset"].isin(["yago", "umls"]) & table["score"].notna() & table["dictionary"].notna()]
    kind = "real dictionary" if set(retrieval["dictionary"]) == {"real"} else "rebuilt dictionary"
    note = ("YAGO/UMLS: top-1 retrieval against the dictionary named in the column header; "
            "a rebuilt (stand-in) dictionary is far smaller than the paper's 572K/750K-name ones.")
    sizes = table_rows(["Model", "Retrieval set", "Dictionary size", "Accuracy", "Accuracy, gold names only"],
                       [[models.label(r["model"]), f"{r['dataset']} ({r['dictionary']})",
                         cell(r["dictionary_size"], digits=",.0f"), cell(r["score"]), cell(r["gold_only_score"])]
                        for r in retrieval.to_dict("records")])
    return kind, [note, sizes]


def set_notes(summary: Sequence[dict]) -> Table:
    """How each short-text set was built (``ShortTextSet.summary()`` of each)."""
    return table_rows(["Set", "Token range", "Train / valid / test", "Mean tokens (this run)", "Mean tokens (paper)",
                       "Classes", "Test labels unseen in training"],
                      [[r["set"], r["band"], " / ".join(cell(r[k], digits=",") for k in ("n_train", "n_valid", "n_test")),
                        cell(r["mean_tokens"], digits=2), r["paper_mean_tokens"], r["classes"], r["test_unseen_label"]]
                       for r in summary])


def write(table, suite: Suite = TABLE1, backbone: str = "minilm", guard: Guard = OPEN, summary=None,
          name: str | None = None):
    """``results/<name>.{csv,md,tex}`` (the suite's name by default) from the tidy ``table`` (seed
    mean included); ``(table, markdown)``. ``summary``: Table 2's set descriptions, noted under it.
    Written by ``guard.table`` (:class:`pearl.guard.Guard`)."""
    mean_key = models.mean_label("pearl", backbone)
    kind, retrieval = "rebuilt dictionary", []
    if set(suite.datasets) & {"yago", "umls"}:
        if "dictionary" not in table:  # no retrieval task was run: the columns stay, empty
            table = table.assign(dictionary=None, dictionary_size=math.nan, gold_only_score=math.nan)
        kind, retrieval = retrieval_notes(table)
    deltas = (mean_key, backbone) if suite.average and mean_key in set(table["model"]) else None
    notes = ["\n".join([suite.notes, *retrieval[:1]]), *retrieval[1:], *([set_notes(summary)] if summary is not None else [])]
    md = dataclasses.replace(markdown(table, suite, retrieval_kind=kind, deltas=deltas), notes=notes)
    guard.table(table, name or suite.name, markdown=md, latex=latex(table, suite))
    return table, render(md, "md")


def report(rows: list[dict], suite: Suite = TABLE1, pearl_keys: Sequence[str] = (), backbone: str = "minilm",
           update: bool = False, guard: Guard = OPEN, summary=None, name: str | None = None):
    """Write ``results/<suite>.{csv,md,tex}`` (:func:`write`) and return ``(tidy table, markdown)``: this
    run's rows, the mean ± std over ``pearl_keys`` (trained seeds; by default every plain PEARL folder
    scored) and, where the suite has an average, its difference from ``backbone``. ``update=True``
    replaces in the existing CSV the rows of the models scored now and keeps the others."""
    import pandas as pd

    table = tidy(rows, suite)
    csv = paths.results_dir(f"{name or suite.name}.csv")
    if update and csv.is_file():
        old = pd.read_csv(csv)
        old = old[~old["model"].isin(set(table["model"]))]
        table = add_average(pd.concat([old, table], ignore_index=True), suite)
    mean_key = models.mean_label("pearl", backbone)
    keys = [k for k in pearl_keys if k in set(table["model"])] or \
        [m for m in table["model"].unique() if (models.parse_folder_name(m) or {}).get("method") == "pearl"
         and not (models.parse_folder_name(m) or {}).get("variant")]
    table = table[table["model"] != mean_key]
    if keys:
        table = add_average(pd.concat([table, seed_mean(table, keys, mean_key, suite)], ignore_index=True), suite)
    return write(table, suite, backbone, guard, summary, name)
