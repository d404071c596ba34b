"""Table 2 end to end: frozen embeddings of each model, the MLP of :mod:`pearl.benchmark.classifier`
on top (10 seeds), test accuracy on Twitter-S/L and ATIS-S/L (:mod:`pearl.benchmark.short_text`).

>>> from pearl.models import load_model
>>> sets = short_text.build("smoke")                                   # doctest: +SKIP
>>> rows = run_model("minilm", load_model("minilm"), sets, seeds=(0, 1))   # doctest: +SKIP
>>> [r["dataset"] for r in rows]                                       # doctest: +SKIP
['twitter_s', 'twitter_l', 'atis_s', 'atis_l']

- :func:`run_model` encodes every distinct text of the four sets once, behind the embedding
  cache (a model that has not changed is never encoded again), then trains the classifiers.
  A set's row is kept in the score cache under (model fingerprint, set, :func:`set_version`):
  the same model on the same texts, labels, seeds and classifier code is not trained again
  (notebook 11 reuses notebook 07's rows this way).
- :func:`report` writes ``results/table2.{csv,md,tex}``: the paper's rows as printed (mean ±
  std over its 10 runs, :mod:`pearl.benchmark.paper`), ours, the mean over trained PEARL seeds,
  and how each set was built.

What it leaves out: models that need a download (load them by name on a connected machine).
"""
from __future__ import annotations

import hashlib
import json
import math
import time
from pathlib import Path
from typing import Callable, Sequence

from .. import models, paths
from .. import workers as workers_
from ..cache import ScoreStore, cached, fingerprint, score_store
from ..encode import Encoder, encode, torch_threads
from ..provenance import save_table
from . import paper
from .classifier import ClassifierConfig, classify_scores
from .short_text import COLUMNS, SETS, ShortTextSet

SEEDS = tuple(range(10))


def set_version(s: ShortTextSet, seeds: Sequence[int], config: ClassifierConfig) -> str:
    """sha256 of everything besides the model that decides a set's row: its texts and labels,
    the classifier seeds and settings, and the classifier's source."""
    h = hashlib.sha256(json.dumps([s.name, s.parts, list(seeds), repr(config)], default=str).encode())
    for code in ("classifier.py", "mlp.py"):
        h.update(Path(__file__).with_name(code).read_bytes())
    return h.hexdigest()


def run_model(name: str, model, sets: dict[str, ShortTextSet], seeds: Sequence[int] = SEEDS,
              config: ClassifierConfig = ClassifierConfig(), log: Callable[[str], None] = print,
              threads: int = 0, size: str = "full", reuse_scores: bool = True) -> list[dict]:
    """One row per set: model, dataset, score (mean test accuracy, percent), std, n_test, seconds, details.

    ``threads`` > 0 sets torch's CPU threads for the encoding (the classifiers always use one).
    With ``reuse_scores`` a set already scored for the same model, data, seeds and classifier
    code is read back from the score cache (its row says ``score_reused``)."""
    if not isinstance(model, Encoder):
        raise TypeError(f"{name} gives no vectors ({type(model).__name__}): Table 2 needs an encoder")
    model = cached(model)
    fp = fingerprint(model.extra["inner"])
    store = score_store() if reuse_scores else None
    keys = {k: ScoreStore.key(fp, f"short_text/{k}", size, set_version(s, seeds, config)) for k, s in sets.items()}
    reused = {k: row for k in sets if store is not None and (row := store.get_row(keys[k])) is not None}
    todo = [k for k in sets if k not in reused]
    start = time.perf_counter()
    with torch_threads(threads):  # every distinct text of the sets still to score, in one length-sorted pass
        texts = list(dict.fromkeys(t for k in todo for t in sets[k].texts()))
        vectors = dict(zip(texts, encode(model, texts))) if texts else {}
    encode_s = time.perf_counter() - start
    if texts:
        log(f"{name:>24} encoded {len(texts):,} texts ({encode_s:.1f} s)")
    rows = []
    for key, s in sets.items():
        if key in reused:
            row = {**reused[key], "model": name}
            row["details"] = {**row["details"], "score_reused": True}
            rows.append(row)
            log(f"{name:>24} {COLUMNS[key]:<10} {row['score']:6.2f} ± {row['std']:.2f}  (reused: same model, data and seeds)")
            continue
        t0 = time.perf_counter()
        x = {part: _stack([vectors[t] for t in texts_]) for part, (texts_, _) in s.parts.items()}
        y = {part: labels for part, (_, labels) in s.parts.items()}
        result = classify_scores(x, y, tuple(seeds), config)
        seconds = time.perf_counter() - t0
        rows.append({"model": name, "dataset": key, "score": result["score"], "std": result["std"],
                     "n": result["n_test"], "seconds": round(seconds, 2), "size": size,
                     "note": "" if size == "full" else f"{size} size",
                     "details": {"runs": result["runs"], "n_train": result["n_train"], "encode_all_s": round(encode_s, 2),
                                 "fingerprint": fp}})
        if store is not None:
            store.put_row(keys[key], rows[-1])
        log(f"{name:>24} {COLUMNS[key]:<10} {result['score']:6.2f} ± {result['std']:.2f}  ({seconds:.1f} s)")
    return rows


def _run_one(label: str, name: str, sets, seeds, config, size: str, threads: int = 0, log=print) -> list[dict]:
    """:func:`run_model` on the model loaded by ``name`` (a job of :func:`pearl.workers.each`)."""
    return run_model(label, models.load_model(name), sets, seeds, config, log=log, threads=threads, size=size)


def run_models(names: dict[str, str], sets: dict[str, ShortTextSet], seeds: Sequence[int] = SEEDS,
               config: ClassifierConfig = ClassifierConfig(), size: str = "full", log: Callable[[str], None] = print,
               threads: int = 0, workers: int = 1) -> list[dict]:
    """:func:`run_model` for each ``{label: model name or folder}``, rows in that order; with
    ``workers`` > 1 side by side in one-thread processes (:mod:`pearl.workers`)."""
    jobs = [(label, str(name), sets, tuple(seeds), config, size) for label, name in names.items()]
    found = workers_.each(_run_one, jobs, workers, log, threads,
                          done=lambda job, _: f"{job[0]:>24} classified in a worker process")
    return [row for rows in found for row in rows]


def _stack(vectors):
    import numpy as np

    return np.stack(vectors).astype(np.float32)


def tidy(rows: list[dict]):
    """One row per model x set (the ``details`` left out)."""
    import pandas as pd

    return pd.DataFrame([{k: v for k, v in r.items() if k != "details"} for r in rows])


def seed_mean(df, keys: Sequence[str], label: str):
    """One row per set: mean and sample std over the trained seed models ``keys`` of their mean accuracy."""
    import pandas as pd

    agg = df[df["model"].isin(keys)].groupby("dataset", sort=False)["score"].agg(["mean", "std", "count"]).reset_index()
    return pd.DataFrame({"model": label, "dataset": agg["dataset"], "score": agg["mean"], "std": agg["std"],
                         "n": math.nan, "seconds": math.nan,
                         "note": [f"mean ± std over {c} trained seeds" for c in agg["count"]]})


def paper_table():
    """The paper's Table 2 as printed: one row per model, one column per set plus ``Avg``."""
    return paper.wide(2)


def _cell(score, std) -> str:
    if score is None or score != score:
        return "n/a"
    return f"{score:.1f} ± {std:.1f}" if std is not None and std == std else f"{score:.1f}"  # ± 0.0 is shown


def markdown(table, summary=None) -> str:
    """Paper rows (or the sentence saying they are missing), then ours, then how each set was built."""
    head = "| Model | Source | " + " | ".join(COLUMNS[d] for d in SETS) + " |"
    lines = [head, "|" + "---|" * (len(SETS) + 2)]
    sizes = paper.table(2).drop_duplicates("model").set_index("model")["size"]
    for model in paper_table().index:
        lines.append(f"| {model} ({sizes[model]}) | paper | " + " | ".join(paper.cell(2, model, COLUMNS[d]) for d in SETS) + " |")
    for model, g in table.groupby("model", sort=False):
        g = g.set_index("dataset")
        vals = [_cell(g["score"].get(d, math.nan), g["std"].get(d, math.nan)) for d in SETS]
        lines.append(f"| {models.label(model)} | this run | " + " | ".join(vals) + " |")
    notes = ["", "Test accuracy in percent, mean ± std over 10 classifier seeds (an MLP with ReLU on frozen "
             "embeddings); the PEARL (ours) row is the mean ± std over trained seeds of their means. "
             "Twitter = Sentiment140 tweets (stand-in for the paper's Twitter data). Rows marked *paper* are "
             "the paper's Table 2 as printed (its E5 and PEARL rows are E5-small/base and PEARL-small/base, "
             "not the MiniLM backbone run here; our sets are built from other data, so absolute accuracies do not compare)."]
    if summary is not None:
        notes += ["", "| Set | Token range | Train / valid / test | Mean tokens (this run) | Mean tokens (paper) "
                  "| Classes | Test labels unseen in training |", "|---|---|---|---|---|---|---|"]
        for r in summary:
            notes.append(f"| {r['set']} | {r['band']} | {r['n_train']:,} / {r['n_valid']:,} / {r['n_test']:,} | "
                         f"{r['mean_tokens']:.2f} | {r['paper_mean_tokens']} | {r['classes']} | {r['test_unseen_label']} |")
    return "\n".join(lines + notes)


def latex(table, smoke: bool = False) -> str:
    """Our rows as a booktabs LaTeX tabular (mean accuracy, percent)."""
    wide = table.pivot_table(index="model", columns="dataset", values="score", sort=False).reindex(columns=list(SETS))
    wide.index = [models.label(m) for m in wide.index]
    wide.columns = [COLUMNS[d] for d in SETS]
    caption = ("SMOKE run (not results): " if smoke else "") + \
        "Table 2 re-run: short-text classification accuracy (this run; Sentiment140 stands in for Twitter)."
    return wide.to_latex(float_format="%.1f", na_rep="n/a", caption=caption, label="tab:table2")


def report(rows: list[dict], pearl_keys: Sequence[str] = (), backbone: str = "minilm", summary=None,
           smoke: bool = False, name: str = "table2"):
    """Write ``results/table2.{csv,md,tex}`` from this run's rows plus the mean over ``pearl_keys``;
    returns ``(tidy table, markdown)``. At ``smoke`` size every header says SMOKE."""
    import pandas as pd

    table = tidy(rows)
    keys = [k for k in pearl_keys if k in set(table["model"])]
    if keys:
        table = pd.concat([table, seed_mean(table, keys, models.mean_label("pearl", backbone))], ignore_index=True)
    return write(table, summary, smoke, name)


def rewrite(name: str = "table2", record: str = "07_short_text"):
    """Write ``results/<name>.*`` again from the committed CSV and the sets' summary in
    ``results/<record>.json``, classifying nothing (the paper's rows afresh)."""
    import json

    import pandas as pd

    summary = json.loads(paths.results_dir(f"{record}.json").read_text())["sets"]
    return write(pd.read_csv(paths.results_dir(f"{name}.csv"), float_precision="round_trip"), summary, False, name)


def write(table, summary=None, smoke: bool = False, name: str = "table2"):
    """``results/<name>.{csv,md,tex}`` from the tidy ``table``; returns ``(table, markdown)``."""
    md = markdown(table, summary)
    if smoke:
        md = "**SMOKE run: a few hundred texts per set; these numbers are not results.**\n\n" + md
    save_table(table, name, markdown=md, latex=latex(table, smoke), smoke=smoke)
    return table, md
