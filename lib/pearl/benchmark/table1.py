"""Table 1 end to end: score models on the nine tasks (:data:`pearl.benchmark.tasks.TASKS`),
tidy the scores, put the paper's rows beside ours and write the table.

>>> from pearl.models import load_model
>>> rows = run_model("minilm", load_model("minilm"), ["bird"])   # doctest: +SKIP
>>> rows[0]["dataset"], round(rows[0]["score"], 1)              # doctest: +SKIP
('bird', 67.3)

- :func:`run_model` scores one model on the tasks asked for: it encodes every distinct
  phrase of all the tasks once, in one pass, behind the embedding cache (:mod:`pearl.cache`),
  so a model that has not changed is never encoded again. :func:`run_models` does it for
  several models, side by side in one-thread processes with ``workers`` > 1 (:mod:`pearl.workers`).
- :func:`tidy`, :func:`seed_mean`, :func:`markdown` make the tables; :func:`report` writes
  ``results/table1.{csv,md,tex}`` from this run's rows alone, or, with ``update=True``,
  replaces the rows of the models it scored in the existing table and keeps the others.

What it leaves out: models that need a download run by name on a connected machine
(``load_model("intfloat/e5-small-v2")``); nothing here downloads.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from .. import models, paths
from .. import workers as workers_
from ..cache import ScoreStore, cached, fingerprint, score_store, scoring_version
from ..encode import Encoder, encode, torch_threads
from ..provenance import save_table
from ..training.export import write_card
from . import evaluate, paper
from .tasks import DATASETS, GROUPS, TASKS, task

COLUMNS = {name: t.column for name, t in TASKS.items()}
#: the PPDB columns again under the paper's own probe (patience 5), shown beside the table and
#: left out of its average: the main PPDB columns use the probe trained to convergence
PAPER_PROBE_COLUMNS = {d: f"{COLUMNS[d]} (paper probe)" for d in GROUPS["paraphrase classification"]}


def run_model(name: str, model, datasets: Sequence[str] = DATASETS, smoke: bool = False,
              log: Callable[[str], None] = print, threads: int = 0, size: str | None = None,
              reuse_scores: bool = True) -> list[dict]:
    """Score one model; one row per dataset: model, dataset, score, std, n, seconds, note, details.

    ``size`` is ``"full"`` (default), ``"sweep"`` (the sweep suite, noted in every row) or
    ``"smoke"`` (same as ``smoke=True``); see :mod:`pearl.benchmark.tasks`. With
    ``reuse_scores`` a task whose model, data and scoring code are unchanged since it was last
    scored is not scored again (:class:`pearl.cache.ScoreStore`; the row says ``score_reused``).

    ``threads`` > 0 sets torch's CPU threads for the run. On cores shared with other jobs one
    thread encodes 2-2.5x faster than two (measured, load average ~9 on 2 cores): waiting
    threads spin. On a quiet machine leave it at 0 (torch's default).
    """
    with torch_threads(threads):
        return _run_model(name, model, datasets, size or ("smoke" if smoke else "full"), log, reuse_scores)


def _run_one(label: str, name: str, datasets, size: str, threads: int = 0, log=print) -> list[dict]:
    """:func:`run_model` on the model loaded by ``name`` (a job of :func:`pearl.workers.each`)."""
    return run_model(label, models.load_model(name), datasets, size=size, threads=threads, log=log)


def run_models(names: dict[str, str], datasets: Sequence[str] = DATASETS, size: str = "full",
               log: Callable[[str], None] = print, threads: int = 0, workers: int = 1) -> list[dict]:
    """:func:`run_model` for each ``{label: model name or folder}``, rows in that order.

    ``workers`` > 1 scores the models side by side in that many one-thread processes (the same
    scores: every evaluator is seeded; the vectors agree to float rounding)."""
    jobs = [(label, str(name), tuple(datasets), size) for label, name in names.items()]
    found = workers_.each(_run_one, jobs, workers, log, threads,
                          done=lambda job, _: f"{job[0]:>24} scored in a worker process")
    return [row for rows in found for row in rows]


def _run_model(name, model, datasets, size, log, reuse_scores) -> list[dict]:
    if isinstance(model, Encoder):
        model = cached(model)
    scores = score_store() if reuse_scores else None
    fp = fingerprint(model) if isinstance(model, Encoder) else type(model).__name__
    keys = {d: ScoreStore.key(fp, d, size, scoring_version(d) if scores is not None else "") for d in datasets}
    reused = {d: row for d in datasets if scores is not None and (row := scores.get_row(keys[d])) is not None}
    todo = [d for d in datasets if d not in reused]
    inputs = {d: task(d).load(size) for d in todo}
    encode_s = 0.0
    if isinstance(model, Encoder) and todo:
        # every distinct phrase of every task, encoded once in one length-sorted pass (AutoFJ
        # titles are also YAGO distractors); the evaluators then read the cached vectors
        start = time.perf_counter()
        encode(model, list(dict.fromkeys(p for d in todo for p in task(d).texts(inputs[d]))))
        encode_s = time.perf_counter() - start
        log(f"{name:>24} encoded every phrase once ({encode_s:.1f} s)")
    rows = []
    for dataset in datasets:
        if dataset in reused:  # same weights, same data, same scoring code: the same score
            row = {**reused[dataset], "model": name}
            row["details"] = {**row["details"], "score_reused": True}
            rows.append(row)
            log(f"{name:>24} {dataset:<14} {row['score']:6.2f}  (reused: model, data and scoring code unchanged)")
            continue
        rows.append(_score(name, model, dataset, size, inputs[dataset], log))
        if scores is not None:
            scores.put_row(keys[dataset], rows[-1])
    if rows:
        rows[0]["details"]["encode_all_s"] = round(encode_s, 2)
    return rows


def _score(name, model, dataset, size, inputs, log) -> dict:
    t0 = time.perf_counter()
    try:
        result, info = task(dataset).run(model, inputs=inputs)
        note = ""
    except evaluate.NotApplicable as err:
        result, info, note = {"score": math.nan}, None, f"n/a: {err}"
    seconds = time.perf_counter() - t0
    details = {k: v for k, v in result.items() if k not in ("score", "std")}
    if size != "full":
        note = f"{size} size" + (f"; {note}" if note else "")
    row = {"model": name, "dataset": dataset, "score": result["score"], "std": result.get("std", math.nan),
           "n": result.get("n"), "seconds": round(seconds, 2), "note": note, "details": details, "size": size}
    if "paper_probe" in result:  # PPDB: the paper's patience-5 probe on the same vectors, a column of its own
        row.update(paper_probe_score=result["paper_probe"]["score"], paper_probe_std=result["paper_probe"]["std"])
    if info is not None:  # retrieval: which dictionary, kept in the tidy table
        details["dictionary"] = info
        row.update(dictionary=info["kind"], dictionary_size=result.get("dictionary_size", math.nan),
                   gold_only_score=result.get("gold_only_score", math.nan))
    log(f"{name:>24} {dataset:<14} {result['score']:6.2f}  ({seconds:.1f} s)")
    return row


# --------------------------------------------------------------------------- tables


def tidy(rows: list[dict]):
    """Tidy frame (one row per model x dataset) plus an ``average`` row per model.

    The average is the plain mean of the nine scores, as in the paper; it is NaN unless
    all nine are present.
    """
    import pandas as pd

    df = pd.DataFrame([{k: v for k, v in r.items() if k != "details"} for r in rows])
    return add_average(df)


def add_average(df):
    import pandas as pd

    df = df[df["dataset"] != "average"]
    avg = []
    for model, group in df.groupby("model", sort=False):
        scores = group.set_index("dataset")["score"].reindex(list(DATASETS))
        avg.append({"model": model, "dataset": "average", "score": scores.mean() if scores.notna().all() else math.nan,
                    "std": math.nan, "n": len(DATASETS), "seconds": group["seconds"].sum(),
                    "note": "" if scores.notna().all() else "needs all 9 scores"})
    return pd.concat([df, pd.DataFrame(avg)], ignore_index=True)


def seed_mean(df, keys: Sequence[str], label: str):
    """One row per dataset: mean and sample std over the seed models ``keys`` (e.g. PEARL runs)."""
    import pandas as pd

    sub = df[df["model"].isin(keys) & (df["dataset"] != "average")]
    agg = sub.groupby("dataset", sort=False)["score"].agg(["mean", "std", "count"]).reset_index()
    out = pd.DataFrame({"model": label, "dataset": agg["dataset"], "score": agg["mean"],
                        "std": agg["std"], "n": agg["count"], "seconds": math.nan,
                        "note": [f"mean ± std over {c} seeds" if c != 1 else "one seed" for c in agg["count"]]})
    # retrieval rows keep their dictionary (the same for every seed) and the mean gold-only score
    # and the paper probe's PPDB scores their mean and std over the seed models, as the main columns
    extra = {"dictionary": ("dictionary", "first"), "dictionary_size": ("dictionary_size", "first"),
             "gold_only_score": ("gold_only_score", "mean"), "paper_probe_score": ("paper_probe_score", "mean"),
             "paper_probe_std": ("paper_probe_score", "std")}
    extra = {k: v for k, v in extra.items() if v[0] in sub}
    if extra:
        out = out.merge(sub.groupby("dataset", sort=False).agg(**extra).reset_index(), on="dataset", how="left")
    return add_average(out)


#: the paper's Table 1 as printed, one row per model (``"released"``: the authors' README rows)
paper_table = paper.labelled
NOTES = ("Scores in percent. Rows marked *paper* are the paper's Table 1 as printed (mean ± std over its 3 seeds where "
         "it prints one; its Avg for Phrase-BERT, UCTopic and E5-base differs from the mean of their rows: "
         "`pearl/benchmark/paper_slips.csv`); rows marked *released checkpoint* are the authors' README's numbers for "
         "their released models, not the paper's; rows marked *this run* were computed by notebooks/04_benchmark.ipynb. "
         "PPDB columns: mean ± std over 3 probe seeds of the probe trained to convergence (standardised inputs, lr "
         "1e-3, patience 10, at most 50 epochs; `pearl.benchmark.probe`); the columns marked *paper probe*, after Avg "
         "and not in it, are the paper's protocol (lr 1e-4, patience 5), the one the paper's own rows come from. n/a: "
         "the model cannot do the task (string similarity: no vectors) or the task was not run; Avg needs all nine scores.")


def _cell(score, std) -> str:
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return "n/a"
    return f"{score:.1f} ± {std:.1f}" if std == std and std is not None and std > 0 else f"{score:.1f}"


def _paper_probe(g, dataset: str, field: str = "score") -> float:
    """A model's paper-probe PPDB score (or std) from its tidy rows; NaN when it was not run."""
    column = f"paper_probe_{field}"
    return float(g[column].get(dataset, math.nan)) if column in g else math.nan


def markdown(ours, retrieval_kind: str = "rebuilt dictionary", deltas: tuple[str, str] | None = None) -> str:
    """Paper rows, then ours (labelled by :func:`pearl.models.label`); retrieval columns say which
    dictionary was used; after Avg, outside it, the PPDB columns under the paper's probe
    (:data:`PAPER_PROBE_COLUMNS`); ``deltas=(a, b)`` adds the row a − b."""
    cols = [COLUMNS[d] if d not in ("yago", "umls") else f"{COLUMNS[d]} ({retrieval_kind})" for d in DATASETS]
    cols += ["Avg", *PAPER_PROBE_COLUMNS.values()]
    lines = ["| Model | Source | " + " | ".join(cols) + " |", "|" + "---|" * (len(cols) + 2)]
    for which, source in ((1, paper.PAPER), ("released", paper.RELEASED)):
        for _, r in paper_table(which).iterrows():  # the paper's PPDB numbers are its own probe's: in both places
            vals = [paper.cell(which, r["_key"], c) for c in [*(COLUMNS[d] for d in DATASETS), "Avg"]]
            vals += [paper.cell(which, r["_key"], COLUMNS[d]) for d in PAPER_PROBE_COLUMNS]
            lines.append(f"| {r['Model']} | {source} | " + " | ".join(vals) + " |")
    wide = {m: g.set_index("dataset") for m, g in ours.groupby("model", sort=False)}
    for model, g in wide.items():
        vals = [_cell(g["score"].get(d, math.nan), g["std"].get(d, math.nan)) for d in (*DATASETS, "average")]
        vals += [_cell(_paper_probe(g, d), _paper_probe(g, d, "std")) for d in PAPER_PROBE_COLUMNS]
        lines.append(f"| {models.label(model)} | this run | " + " | ".join(vals) + " |")
    if deltas and deltas[0] in wide and deltas[1] in wide:
        new, base = wide[deltas[0]], wide[deltas[1]]
        diff = [new["score"].get(d, math.nan) - base["score"].get(d, math.nan) for d in (*DATASETS, "average")]
        diff += [_paper_probe(new, d) - _paper_probe(base, d) for d in PAPER_PROBE_COLUMNS]
        vals = ["n/a" if math.isnan(x) else f"{x:+.1f}" for x in diff]
        lines.append(f"| Δ {models.label(deltas[0])} − {models.label(deltas[1])} | this run | " + " | ".join(vals) + " |")
    return "\n".join(lines)


def group_scores(df):
    """Mean score per model and task group (the paper's Table 3 columns) plus their average."""
    import pandas as pd

    sub = df[df["dataset"] != "average"]
    out = {}
    for model, g in sub.groupby("model", sort=False):
        s = g.set_index("dataset")["score"]
        row = {grp: float(np.mean([s.get(d, math.nan) for d in names])) for grp, names in GROUPS.items()}
        row["average"] = float(np.mean(list(row.values())))
        out[model] = row
    return pd.DataFrame.from_dict(out, orient="index")


def report(rows: list[dict], pearl_keys: Sequence[str] = (), backbone: str = "minilm", update: bool = False,
           smoke: bool = False, name: str = "table1"):
    """Write ``results/table1.{csv,md,tex}`` (:func:`write`) and return ``(tidy table, markdown)``: this
    run's rows, the mean ± std over ``pearl_keys`` (trained seeds) and its difference from ``backbone``.
    ``update=True`` replaces in the existing CSV the rows of the models scored now and keeps the others."""
    import pandas as pd

    table = tidy(rows)
    csv = paths.results_dir(f"{name}.csv")
    if update and csv.is_file():
        old = pd.read_csv(csv)
        old = old[~old["model"].isin(set(table["model"]))]
        table = add_average(pd.concat([old, table], ignore_index=True))
    mean_key = models.mean_label("pearl", backbone)
    keys = [k for k in pearl_keys if k in set(table["model"])] or \
        [m for m in table["model"].unique() if (models.parse_folder_name(m) or {}).get("method") == "pearl"
         and not (models.parse_folder_name(m) or {}).get("variant")]
    table = table[table["model"] != mean_key]
    if keys:
        table = add_average(pd.concat([table, seed_mean(table, keys, mean_key)], ignore_index=True))
    return write(table, backbone, smoke, name)


def rewrite(name: str = "table1", backbone: str = "minilm"):
    """Write ``results/<name>.*`` again from the committed CSV, no scoring (the paper's rows afresh)."""
    import pandas as pd

    return write(pd.read_csv(paths.results_dir(f"{name}.csv"), float_precision="round_trip"), backbone, False, name)


def write(table, backbone: str = "minilm", smoke: bool = False, name: str = "table1"):
    """``results/<name>.{csv,md,tex}`` from the tidy ``table`` (seed mean included); ``(table, markdown)``."""
    mean_key = models.mean_label("pearl", backbone)
    keys = mean_key in set(table["model"])
    if "dictionary" not in table:  # no retrieval task was run
        table = table.assign(dictionary=None, dictionary_size=math.nan, gold_only_score=math.nan)
    retrieval = table[table["dataset"].isin(["yago", "umls"]) & table["score"].notna() & table["dictionary"].notna()]
    kind = "real dictionary" if set(retrieval["dictionary"]) == {"real"} else "rebuilt dictionary"
    md = markdown(table, retrieval_kind=kind, deltas=(mean_key, backbone) if keys else None)
    notes = ["", NOTES,
             "YAGO/UMLS: top-1 retrieval against the dictionary named in the column header; "
             "a rebuilt (stand-in) dictionary is far smaller than the paper's 572K/750K-name ones.", "",
             "| Model | Retrieval set | Dictionary size | Accuracy | Accuracy, gold names only |", "|---|---|---|---|---|"]
    for r in retrieval.to_dict("records"):
        notes.append(f"| {models.label(r['model'])} | {r['dataset']} ({r['dictionary']}) | "
                     f"{int(r['dictionary_size']):,} | {r['score']:.1f} | {r['gold_only_score']:.1f} |")
    md = md + "\n" + "\n".join(notes)
    if smoke:
        md = "**SMOKE run: tiny subsets of every dataset; these numbers are not results.**\n\n" + md
    save_table(table, name, markdown=md, latex=latex(table, smoke), smoke=smoke)
    return table, md


def update_cards(table, folders: Sequence[Path]) -> None:
    """Write each trained folder's Table-1 row into its model card (``README.md``)."""
    for folder in folders:
        rows = table[table["model"] == Path(folder).name].set_index("dataset")["score"]
        if len(rows):
            write_card(folder, {COLUMNS.get(d, "Avg"): float(rows.get(d, math.nan)) for d in (*DATASETS, "average")})


def latex(table, smoke: bool = False) -> str:
    """Our rows of the table as a booktabs LaTeX tabular (scores in percent)."""
    wide = table.pivot_table(index="model", columns="dataset", values="score", sort=False)
    wide = wide.reindex(columns=[*DATASETS, "average"])
    wide.index = [models.label(m) for m in wide.index]
    wide.columns = [*(COLUMNS[d] for d in DATASETS), "Avg"]
    for d, column in PAPER_PROBE_COLUMNS.items():  # beside the average, not in it
        rows = table[table["dataset"] == d].set_index("model")
        wide[column] = [rows["paper_probe_score"].get(m, math.nan) if "paper_probe_score" in rows else math.nan
                        for m in table.drop_duplicates("model")["model"]]
    caption = ("SMOKE run (not results): " if smoke else "") + "Table 1 re-run (this run; stand-ins as in the README)."
    return wide.to_latex(float_format="%.1f", na_rep="n/a", caption=caption, label="tab:table1")
