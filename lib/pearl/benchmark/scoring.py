"""Score models on any tasks of the registry (:data:`pearl.benchmark.tasks.TASKS`): the one route
every table's numbers take (Table 1's nine tasks, Table 2's short-text sets, the experiments).

>>> from pearl.models import load_model
>>> rows = run_model("minilm", load_model("minilm"), ["bird"])   # doctest: +SKIP
>>> rows[0]["dataset"], round(rows[0]["score"], 1)              # doctest: +SKIP
('bird', 67.3)

- :func:`run_model` scores one model on the tasks asked for: it encodes every distinct
  text of all the tasks once, in one pass, behind the embedding cache (:mod:`pearl.cache`),
  so a model that has not changed is never encoded again; a task whose model, data and
  scoring code are unchanged is not scored again (:class:`pearl.cache.ScoreStore`).
- :func:`run_models` does it for several models (a table's rows, or the seeds of each
  experiment's recipe, grouped), side by side in one-thread processes with ``workers`` > 1
  (:mod:`pearl.workers`).

What it leaves out: tables (:mod:`pearl.benchmark.table`); models that need a download run by
name on a connected machine (``load_model("intfloat/e5-small-v2")``); nothing here downloads.
"""
from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Callable, Mapping, Sequence

from .. import models
from .. import workers as workers_
from ..cache import ScoreStore, cached, score_store, scoring_version
from ..encode import Encoder, encode, torch_threads
from ..backbones.fingerprint import fingerprint
from . import evaluate
from .tasks import DATASETS, task


def run_model(name: str, model, datasets: Sequence[str] = DATASETS, size: str = "full",
              log: Callable[[str], None] = print, threads: int = 0, reuse_scores: bool = True) -> list[dict]:
    """Score one model; one row per dataset: model, dataset, score, std, n, seconds, note, details.

    ``datasets`` are task names of any suite (:data:`pearl.benchmark.tasks.SUITES`: Table 1's
    nine, Table 2's four short-text sets). ``size`` is ``"full"`` (default), ``"sweep"`` (the
    sweep suite, noted in every row) or ``"tiny"``; see :mod:`pearl.benchmark.tasks`. With
    ``reuse_scores`` a task whose model, data and scoring code are unchanged since it was last
    scored is not scored again (:class:`pearl.cache.ScoreStore`; the row says ``score_reused``).

    ``threads`` > 0 sets torch's CPU threads for the run. On cores shared with other jobs one
    thread encodes faster than two: waiting threads spin. On a quiet machine leave it at 0 (torch's default).
    """
    with torch_threads(threads):
        return _run_model(name, model, datasets, size, log, reuse_scores)


def _run_one(label: str, name: str, datasets, size: str, group: str | None = None, threads: int = 0,
             log=print) -> list[dict]:
    """:func:`run_model` on the model loaded by ``name`` (a job of :func:`pearl.workers.each`);
    in a ``group``, every row says which group and folder it scored."""
    rows = run_model(label, models.load_model(name), datasets, size=size, threads=threads, log=log)
    return rows if group is None else [{**row, "group": group, "folder": name} for row in rows]


def run_models(names: Mapping[str, str | Path | Sequence[str | Path]], datasets: Sequence[str] = DATASETS,
               size: str = "full", log: Callable[[str], None] = print, threads: int = 0,
               workers: int = 1) -> list[dict]:
    """:func:`run_model` for every model of ``names``, rows in that order: the one many-model
    scorer (Tables 1 and 2, the experiments' recipes).

    ``names`` is ``{label: model name or folder}`` (a table's rows), or ``{group: [model, ...]}``
    (a recipe's seeds; the same model may sit in two groups): then each model is labelled by
    :func:`pearl.models.label` and its rows carry ``group`` and ``folder`` (the name as given).
    ``workers`` > 1 scores the models side by side in that many one-thread processes (the same
    scores: every evaluator is seeded; the vectors agree to float rounding)."""
    jobs = []
    for key, value in names.items():
        if isinstance(value, (str, Path)):
            jobs.append((key, str(value), tuple(datasets), size, None))
        else:  # a group: its models under their own labels
            jobs += [(models.label(name), str(name), tuple(datasets), size, key) for name in value]
    found = workers_.each(_run_one, jobs, workers, log, threads,
                          done=lambda job, _: f"{job[0]:>24} scored in a worker process")
    return [row for rows in found for row in rows]


def run_model_sets(sets: Mapping[str, Mapping[str, Sequence[str | Path]]], **kwargs) -> dict[str, list[dict]]:
    """:func:`run_models` on several ``{group: [model, ...]}`` at once (a table's original encoders,
    its trained models, a control), rows handed back per set as each set alone would give them.

    One pool for all: a pool per set would wait on its slowest model (an original me5-small, say)
    with its other workers idle. The sets may share group names."""
    tagged = {(name, group): models_ for name, groups in sets.items() for group, models_ in groups.items()}
    out: dict[str, list[dict]] = {name: [] for name in sets}
    for row in run_models(tagged, **kwargs):
        name, group = row["group"]
        out[name].append({**row, "group": group})
    return out


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
    for row in rows:  # which weights every row scored (Table 2's record keeps them)
        row["details"].setdefault("fingerprint", fp)
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


def _key(row: dict) -> str:
    return f"{row['model']}/{row['dataset']}"


def table1_record(table, rows: list[dict]) -> dict:
    """What notebook 04 saves of Table 1, keyed ``model/dataset``: the table's scores (``metrics``)
    and, from the scored ``rows``, the retrieval ``dictionaries``, the other ``details`` and the ``seconds``."""
    return {"metrics": {_key(r): r["score"] for r in table.to_dict("records")},
            "dictionaries": {_key(r): r["details"]["dictionary"] for r in rows if "dictionary" in r["details"]},
            "details": {_key(r): {k: v for k, v in r["details"].items() if k != "dictionary"} for r in rows},
            "seconds": {_key(r): r["seconds"] for r in rows}}


def table2_record(table, rows: list[dict], sets: list[dict], short_queries: int) -> dict:
    """What notebook 07 saves of Table 2, keyed ``model/dataset``: the table's scores (``metrics``)
    and ``std``; the ``sets``' summaries and the count of short ATIS training queries; from the scored
    ``rows`` the ``runs`` and ``seconds``; per model, the encoding seconds (``encode_s``, where
    recorded) and the vectors' ``fingerprints``."""
    records = table.to_dict("records")
    return {"metrics": {_key(r): r["score"] for r in records}, "std": {_key(r): r["std"] for r in records},
            "sets": sets, "atis_train_queries_up_to_3_tokens": short_queries,
            "runs": {_key(r): r["details"]["runs"] for r in rows},
            "seconds": {_key(r): r["seconds"] for r in rows},
            "encode_s": {r["model"]: r["details"]["encode_all_s"] for r in rows if "encode_all_s" in r["details"]},
            "fingerprints": {r["model"]: r["details"]["fingerprint"] for r in rows}}
