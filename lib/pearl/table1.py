"""Table 1 end to end: load each dataset, run its evaluator, tidy the scores, compare with the paper.

>>> rows = run_model("minilm", load_benchmark_model("minilm"), ["bird"])   # doctest: +SKIP
>>> rows[0]["dataset"], round(rows[0]["score"], 1)                          # doctest: +SKIP
('bird', 61.5)

- :func:`load_inputs` reads one dataset (``smoke=True``: a small deterministic subset).
- :func:`run_model` scores one model on the datasets asked for, with a per-run phrase
  cache (:class:`PhraseCache`): a phrase shared by two datasets (AutoFJ titles are also
  YAGO stand-in distractors) is encoded once.
- :func:`tidy`, :func:`merge`, :func:`paper_table`, :func:`markdown` make the tables.

What it leaves out: models that need a download run by name on a connected machine
(``load_benchmark_model("intfloat/e5-small-v2")``); nothing here downloads.
"""
from __future__ import annotations

import math
import random
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from . import data, dictionaries, evaluate
from .encode import Encoder, encode, load_model

DATASETS = ("ppdb", "ppdb_filtered", "turney", "bird", "yago", "umls", "conll", "bc5cdr", "autofj")
COLUMNS = {"ppdb": "PPDB", "ppdb_filtered": "PPDB filtered", "turney": "Turney", "bird": "BIRD",
           "yago": "YAGO", "umls": "UMLS", "conll": "CoNLL", "bc5cdr": "BC5CDR", "autofj": "AutoFJ"}
LABELS = {
    "char3gram-jaccard": "Char 3-gram Jaccard (string similarity)",
    "glove": "GloVe 6B 50-d (stand-in for the paper's 300-d)",
    "minilm": "all-MiniLM-L6-v2 (Sentence-BERT family, 22M)",
}
#: smoke subset sizes: enough rows for every code path, seconds on a CPU
SMOKE = {"ppdb": 300, "turney": 100, "bird": 200, "retrieval": 200, "distractors": 1000,
         "clustering": 300}
#: the two smallest AutoFJ tables (324 and 555 left records)
SMOKE_AUTOFJ = ("TennisTournament", "Galaxy")
PEARL_LABEL = "PEARL (ours, MiniLM backbone)"


def load_benchmark_model(name: str):
    """A model by short name, hub name or folder; ``"char3gram-jaccard"`` is the string baseline."""
    if name == "char3gram-jaccard":
        from .baselines import CharJaccard

        return CharJaccard()
    return load_model(name)


class PhraseCache:
    """Wraps an Encoder so each distinct phrase is encoded once per run, across datasets."""

    def __init__(self, encoder: Encoder):
        self.encoder, self.vectors = encoder, {}

    def __call__(self, phrases: list[str]) -> np.ndarray:
        missing = [p for p in phrases if p not in self.vectors]
        if missing:
            self.vectors.update(zip(missing, encode(self.encoder, missing)))
        return np.stack([self.vectors[p] for p in phrases]) if phrases else np.zeros((0, self.encoder.dim), np.float32)

    def as_encoder(self) -> Encoder:
        return Encoder(name=self.encoder.name, dim=self.encoder.dim, fn=self, extra={"cached": True})


def pearl_model_dirs(pattern: str = "pearl-*") -> list[Path]:
    """Trained PEARL model folders under ``models/`` (those holding a ``pearl.json``), sorted."""
    from . import paths

    root = paths.models_dir()
    return sorted(p for p in root.glob(pattern) if (p / "pearl.json").is_file())


def _sample(rows: list, n: int, seed: int = 0) -> list:
    return rows if len(rows) <= n else random.Random(seed).sample(rows, n)


def load_inputs(dataset: str, smoke: bool = False) -> dict:
    """Keyword arguments of the dataset's evaluator (plus ``info`` for retrieval)."""
    if dataset in ("ppdb", "ppdb_filtered"):
        pairs = data.read_ppdb(dataset == "ppdb_filtered")
        return {"pairs": _sample(pairs, SMOKE["ppdb"]) if smoke else pairs}
    if dataset == "turney":
        items = data.read_turney()
        return {"items": _sample(items, SMOKE["turney"]) if smoke else items}
    if dataset == "bird":
        rows = data.read_bird()
        return {"rows": _sample(rows, SMOKE["bird"]) if smoke else rows}
    if dataset in ("yago", "umls"):
        pairs = data.read_retrieval(dataset)
        pairs = _sample(pairs, SMOKE["retrieval"]) if smoke else pairs
        names, info = dictionaries.load_dictionary(dataset, [g for _, g in pairs],
                                                   SMOKE["distractors"] if smoke else None)
        return {"pairs": pairs, "dictionary": names, "info": info}
    if dataset in ("conll", "bc5cdr"):
        mentions = data.read_typed_mentions(dataset, "test")
        return {"mentions": _sample(mentions, SMOKE["clustering"]) if smoke else mentions}
    if dataset == "autofj":
        names = list(SMOKE_AUTOFJ) if smoke else data.autofj_names()
        return {"sets": {n: data.read_autofj(n) for n in names}}
    raise ValueError(f"unknown dataset {dataset!r}; choose from {', '.join(DATASETS)}")


def evaluate_dataset(model, dataset: str, inputs: dict) -> dict:
    inputs = {k: v for k, v in inputs.items() if k != "info"}
    if dataset in ("ppdb", "ppdb_filtered"):
        return evaluate.evaluate_ppdb(model, inputs["pairs"])
    if dataset == "turney":
        return evaluate.evaluate_turney(model, inputs["items"])
    if dataset == "bird":
        return evaluate.evaluate_bird(model, inputs["rows"])
    if dataset in ("yago", "umls"):
        return evaluate.evaluate_retrieval(model, **inputs)
    if dataset in ("conll", "bc5cdr"):
        return evaluate.evaluate_clustering(model, inputs["mentions"])
    return evaluate.evaluate_autofj(model, inputs["sets"])


def run_model(name: str, model, datasets: Sequence[str] = DATASETS, smoke: bool = False,
              log: Callable[[str], None] = print, threads: int = 0) -> list[dict]:
    """Score one model; one row per dataset: model, dataset, score, std, n, seconds, note, details.

    ``threads`` > 0 sets torch's CPU threads for the run. On cores shared with other jobs one
    thread encodes 2-2.5x faster than two (measured, load average ~9 on 2 cores): waiting
    threads spin. On a quiet machine leave it at 0 (torch's default).
    """
    from .encode import torch_threads

    with torch_threads(threads):
        return _run_model(name, model, datasets, smoke, log)


def _run_model(name, model, datasets, smoke, log) -> list[dict]:
    scored = PhraseCache(model).as_encoder() if isinstance(model, Encoder) else model
    rows = []
    for dataset in datasets:
        t0 = time.perf_counter()
        inputs = load_inputs(dataset, smoke)
        try:
            result, note = evaluate_dataset(scored, dataset, inputs), ""
        except evaluate.NotApplicable as err:
            result, note = {"score": math.nan}, f"n/a: {err}"
        seconds = time.perf_counter() - t0
        details = {k: v for k, v in result.items() if k not in ("score", "std")}
        if "info" in inputs:
            details["dictionary"] = inputs["info"]
        row = {"model": name, "dataset": dataset, "score": result["score"], "std": result.get("std", math.nan),
               "n": result.get("n"), "seconds": round(seconds, 2), "note": note, "details": details}
        if "info" in inputs:  # kept in the tidy table so re-runs of other models keep them
            row.update(dictionary=inputs["info"]["kind"], dictionary_size=len(set(inputs["dictionary"])),
                       gold_only_score=result.get("gold_only_score", math.nan))
        rows.append(row)
        log(f"{name:>24} {dataset:<14} {result['score']:6.2f}  ({seconds:.1f} s)")
    return rows


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


def merge(old, new):
    """Rows of ``new`` replace same (model, dataset) rows of ``old``; other rows are kept."""
    import pandas as pd

    if old is None or old.empty:
        return add_average(new)
    key = set(zip(new["model"], new["dataset"]))
    kept = old[[(m, d) not in key for m, d in zip(old["model"], old["dataset"])]]
    return add_average(pd.concat([kept, new], ignore_index=True))


def seed_mean(df, models: Sequence[str], label: str):
    """One row per dataset: mean and sample std over seed models (e.g. PEARL runs)."""
    import pandas as pd

    sub = df[df["model"].isin(models) & (df["dataset"] != "average")]
    agg = sub.groupby("dataset", sort=False)["score"].agg(["mean", "std", "count"]).reset_index()
    out = pd.DataFrame({"model": label, "dataset": agg["dataset"], "score": agg["mean"],
                        "std": agg["std"], "n": agg["count"], "seconds": math.nan,
                        "note": [f"mean ± std over {c} seeds" for c in agg["count"]]})
    # retrieval rows keep their dictionary (the same for every seed) and the mean gold-only score
    extra = {"dictionary": "first", "dictionary_size": "first", "gold_only_score": "mean"}
    extra = {k: v for k, v in extra.items() if k in sub}
    if extra:
        out = out.merge(sub.groupby("dataset", sort=False).agg(extra).reset_index(), on="dataset", how="left")
    return add_average(out)


def paper_table():
    """The paper's Table 1 (as in the PEARL README), one row per model, scores in percent."""
    import pandas as pd

    return pd.read_csv(Path(__file__).with_name("paper_table1.csv"))


def _cell(score, std) -> str:
    if score is None or (isinstance(score, float) and math.isnan(score)):
        return "n/a"
    return f"{score:.1f} ± {std:.1f}" if std == std and std is not None and std > 0 else f"{score:.1f}"


def markdown(ours, labels: dict | None = None, retrieval_kind: str = "rebuilt dictionary",
             deltas: tuple[str, str] | None = None) -> str:
    """Paper rows, then ours; retrieval columns say which dictionary was used."""
    labels = {**LABELS, **(labels or {})}
    cols = [COLUMNS[d] if d not in ("yago", "umls") else f"{COLUMNS[d]} ({retrieval_kind})" for d in DATASETS]
    head = "| Model | Source | " + " | ".join(cols) + " | Avg |"
    lines = [head, "|" + "---|" * (len(cols) + 3)]
    for _, r in paper_table().iterrows():
        vals = [f"{r[COLUMNS[d]]:.1f}" for d in DATASETS] + [f"{r['Avg']:.1f}"]
        lines.append(f"| {r['Model']} | paper | " + " | ".join(vals) + " |")
    wide = {m: g.set_index("dataset") for m, g in ours.groupby("model", sort=False)}
    for model, g in wide.items():
        vals = [_cell(g["score"].get(d, math.nan), g["std"].get(d, math.nan)) for d in (*DATASETS, "average")]
        lines.append(f"| {labels.get(model, model)} | this run | " + " | ".join(vals) + " |")
    if deltas and deltas[0] in wide and deltas[1] in wide:
        new, base = wide[deltas[0]]["score"], wide[deltas[1]]["score"]
        diff = [new.get(d, math.nan) - base.get(d, math.nan) for d in (*DATASETS, "average")]
        vals = ["n/a" if math.isnan(x) else f"{x:+.1f}" for x in diff]
        lines.append(f"| Δ {labels.get(deltas[0], deltas[0])} − {labels.get(deltas[1], deltas[1])} | this run | "
                     + " | ".join(vals) + " |")
    return "\n".join(lines)
