"""What the notebooks read of this repository's committed records, beside what they compute: the
one GPU run's gains per task group (:func:`gpu_points`), the whole corpus's phrase counts
(:func:`whole_corpus`), the untrained backbone's BIRD score from Table 1 (:func:`untrained_bird`)
and the two views' section of the discrepancy study (:func:`views_section`).

What it leaves out: the numbers' computation and display (:mod:`pearl.experiments.references`,
:mod:`pearl.corpus.summary`, :mod:`pearl.display.figure5`, :mod:`pearl.display.discrepancy`), and
tables and figures written again from the records (:mod:`harness.redraw`).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from pearl import paths
from pearl.benchmark.tasks import GROUPS
from pearl.provenance import read_record
from harness.record import writer

#: the committed record of the whole corpus's build, under ``results/`` (``scripts/whole_corpus.py``)
WHOLE_CORPUS = "wikipedia_whole_corpus"
WHOLE_CORPUS_RECORD = f"results/{WHOLE_CORPUS}.json"


def gpu_points(path) -> list[dict]:
    """The one GPU run (``results/gpu/table1_gpu_profile_seed0.json``: MiniLM and PEARL seed 0 at
    the gpu profile, WikiText-2, the exact Table 1 suite) as gains per group; [] if absent."""
    path = Path(path)
    if not path.is_file():
        return []
    rows = read_record(path, writer(path))["rows"]
    return [{"label": "GPU run: MiniLM · WikiText-2 · gpu profile, 214K views (n=1, exact Table 1 suite)", **group_gains(rows)}]


def group_gains(rows: list[dict], reference: str = "minilm") -> dict:
    """Table 1 rows of one trained model and its ``reference`` (``model``, ``dataset``, ``score``) as the
    trained model's gain per task group (the mean over the group's datasets) and their mean, ``average``:
    the like-for-like average of the ledger and the budget curve."""
    score = {(r["model"], r["dataset"]): r["score"] for r in rows}
    trained = next(m for m, _ in score if m != reference)
    diff = {d: score[(trained, d)] - score[(reference, d)] for names in GROUPS.values() for d in names}
    out = {g: float(np.mean([diff[d] for d in names])) for g, names in GROUPS.items()}
    out["average"] = float(np.mean([out[g] for g in GROUPS]))
    return out


def whole_corpus() -> dict:
    """The whole corpus's phrase counts from its committed record (:data:`WHOLE_CORPUS`): where
    the record is, its sample, distinct phrases, those kept and their share, and the commit that
    built it; or, when there is none, the record's path and how to make it."""
    path = paths.ROOT / WHOLE_CORPUS_RECORD
    about = {"record": WHOLE_CORPUS_RECORD}
    if not path.is_file():
        return {**about, "measured": False, "how": "run scripts/whole_corpus.py (resumable: run it again after a kill)"}
    record = read_record(path, writer(path))
    m = record["metrics"]
    return {**about, "measured": True, "description": m["description"], "tokens": m["tokens"],
            "distinct_phrases": m["distinct_phrases"], "min_freq": m["min_freq"], "kept_phrases": m["kept_phrases"],
            "kept_share_pct": m["kept_share_pct"], "commit": record["provenance"].get("commit")}


def untrained_bird(backbone: str = "minilm") -> float:
    """The untrained backbone's BIRD score from Table 1's results (``results/table1.csv``, notebook
    04: the same full BIRD set as Figure 5's points); NaN when Table 1 has not been run."""
    import pandas as pd

    csv = paths.results_dir("table1.csv")
    if not csv.is_file():
        return math.nan
    t = pd.read_csv(csv)
    row = t[(t["model"] == backbone) & (t["dataset"] == "bird")]["score"]
    return float(row.iloc[0]) if len(row) else math.nan


def views_section(path) -> tuple[str, object]:
    """(Markdown, figure) of ``results/views_mechanism.json`` (``scripts/views_mechanism.py``
    writes it): BC5CDR's view table, the development subset's scores of each join, and
    :func:`pearl.display.discrepancy.plot_views`; a line naming the script, and no figure, when the
    record is absent."""
    import pandas as pd

    from pearl.display.discrepancy import plot_views, views_frame
    from pearl.tabular import Table, render

    path = Path(path)
    if not path.is_file():
        return f"`{path.name}` is not there yet: `.venv/bin/python scripts/views_mechanism.py` writes it.", None
    record = read_record(path, writer(path))
    dev = pd.DataFrame(record["dev"])
    md = Table(views_frame(record).round(3), head="**BC5CDR** (NMI x100; the character part's share of the joined "
               "embedding's variance):", notes=[
                   "**BC5CDR's 2-means split at step 0, old join** (share of mentions starting with a capital, "
                   "holding an all-capitals token, mean length):", Table(pd.DataFrame(record["bc5cdr_split_step0"]).round(3)),
                   "**Development subset** (the join is chosen here, never on a test set alone):", Table(dev.round(2))])
    return render(md, "md"), plot_views(record)
