"""Which tables the rebuild moved (issue #69 item 5): each cell of the rebuilt tables against the same
cell at the commit before the rebuild, and whether the move is beyond the noise that could explain it.

Usage::

    .venv/bin/python scripts/rebuild_moves.py [--before 652954e]   # results/rebuild_moves.{csv,md,tex,json}

The rebuild changed three things at once: the clustering evaluator (one KMeans seed before, the
lowest-inertia solution over many starts now, :mod:`pearl.benchmark.clustering`), the view composition
(a fixed centred weight before, :mod:`pearl.training.composition` now) and the word-embedding update
(row-wise Adam, equal to dense up to rounding). What moves, read per kind of row:

- **a model scored once, untrained** (the baselines of Tables 1 and 2, Table 4's originals): only the
  evaluator can move it: the clustering evaluator on the clustering sets and the averages that hold
  them (its move there *is* the old evaluator's seed noise on that model), and elsewhere whatever a
  seeded probe or classifier does not hold still between two runs (the evaluator's own noise);
- **seeds of a trained recipe** (Tables 3 and 4, the methods table): the move of the mean over seeds
  against Welch's 95 % interval of the seeds before and after (from each side's mean, std and n), so
  "beyond the noise" means beyond what a rerun of either recipe would give;
- a table whose notebook record still names the commit ``--before`` (or one older) is not rebuilt
  yet and is listed as such, not compared.

What it leaves out: the claims ledger (it re-reads these tables), the figures, and cells without a
number on either side.
"""
from __future__ import annotations

import argparse
import io
import json
import math
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NAME = "rebuild_moves"
#: the commit before the rebuild: the last one whose tables read the old recipe and evaluator
BEFORE = "652954e"
#: the columns the clustering evaluator moves: its two sets, their group, and every average that holds them
CLUSTERING = ("conll", "bc5cdr", "entity clustering")


def clustering(column: str) -> bool:
    """Whether the clustering evaluator enters ``column`` (a clustering set or group, or an average).

    >>> clustering("bc5cdr"), clustering("gain (average)"), clustering("bird")
    (True, True, False)
    """
    return column in CLUSTERING or "average" in column
#: table -> (the notebook whose record says when it was written, how its rows are read)
TABLES = {"table1": ("04_benchmark", "once"), "table2": ("07_short_text", "once"), "table3": ("08_ablations", "seeds"),
          "table4": ("09_backbones", "gains"), "methods": ("11_methods", "seeds")}


def at(ref: str, rel: str) -> str | None:
    """The file ``rel`` as committed at ``ref`` (None when it was not there)."""
    out = subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{rel}"], capture_output=True, text=True)
    return out.stdout if out.returncode == 0 else None


def rebuilt(notebook: str, before: str) -> bool:
    """Whether ``results/<notebook>.json`` names a commit after ``before`` (its notebook ran since)."""
    from pearl.provenance import is_before

    sha = json.loads((ROOT / "results" / f"{notebook}.json").read_text())["provenance"]["git_sha"].removesuffix("-dirty")
    # ``before`` came before the record's commit (or git does not know that commit): written since
    return is_before(before, sha, ROOT) is not False


def seeds_move(old, new) -> dict:
    """The move of a mean over seeds, ``new - old``, with Welch's 95 % interval from both sides' mean, std
    and n (:func:`pearl.claims.rule.welch_se`, the ledger's test); no interval without two seeds a side.

    >>> r = seeds_move({"mean": 60.0, "std": 1.0, "n": 3}, {"mean": 62.0, "std": 1.0, "n": 3})
    >>> r["moved"], round(r["ci_low"], 3), round(r["ci_high"], 3), r["beyond_noise"]  # se = sqrt(2/3), 4 dof
    (2.0, -0.267, 4.267, False)
    """
    from pearl.claims.rule import interval, p_value, welch_se

    moved = float(new["mean"] - old["mean"])
    if min(old["n"], new["n"]) < 2 or not (math.isfinite(old["std"]) and math.isfinite(new["std"])):
        return {"moved": moved, "ci_low": math.nan, "ci_high": math.nan, "p": math.nan, "beyond_noise": None}
    se, df = welch_se(new["std"] ** 2, int(new["n"]), old["std"] ** 2 / old["n"], old["n"] - 1)
    lo, hi = interval(moved, se, df)
    return {"moved": moved, "ci_low": lo, "ci_high": hi, "p": p_value(moved, se, df),
            "beyond_noise": bool(lo > 0 or hi < 0)}


def aliases_dropped(frame):
    """``frame`` without a model whose every score repeats another model's row by row: Table 1 carries
    PEARL's seed 0 twice, under its folder's name and its display label, and one model is one row.

    >>> import pandas as pd
    >>> f = pd.DataFrame({"model": ["a", "a", "A (label)", "A (label)", "b", "b"], "dataset": ["x", "y"] * 3,
    ...                   "score": [1.0, 2.0, 1.0, 2.0, 1.0, 3.0]})
    >>> sorted(aliases_dropped(f)["model"].unique())
    ['a', 'b']
    """
    seen, keep = set(), []
    for model, g in frame.groupby("model", sort=False):
        scores = tuple(sorted((str(d), round(float(s), 9)) for d, s in zip(g["dataset"], g["score"]) if s == s))
        if scores and scores in seen:
            continue
        seen.add(scores)
        keep.append(model)
    return frame[frame["model"].isin(keep)]


def rows_once(old, new) -> list[dict]:
    """Table 1: one score per model and dataset; untrained models move by the evaluator alone."""
    key = ["model", "dataset"]
    old, new = aliases_dropped(old), aliases_dropped(new)
    both = old.merge(new, on=key, suffixes=("_old", "_new")).dropna(subset=["score_old", "score_new"])
    return [{"row": r.model, "column": r.dataset, "kind": "trained" if r.model.lower().startswith("pearl") else "untrained",
             "old": r.score_old, "new": r.score_new, "moved": r.score_new - r.score_old, "ci_low": math.nan,
             "ci_high": math.nan, "p": math.nan, "beyond_noise": None, "clustering": clustering(r.dataset)}
            for r in both.itertuples()]


def rows_seeds(old, new) -> list[dict]:
    """Tables 3 and the methods table: per recipe and task group, the mean over seeds before and after."""
    old, new = (f.assign(recipe=f["recipe"].fillna("full")) for f in (old, new))
    both = old.merge(new, on=["recipe", "column"], suffixes=("_old", "_new"))
    out = []
    for r in both.itertuples():
        m = seeds_move({"mean": r.mean_old, "std": r.std_old, "n": r.n_old}, {"mean": r.mean_new, "std": r.std_new, "n": r.n_new})
        out.append({"row": r.recipe, "column": r.column, "kind": "trained", "old": r.mean_old, "new": r.mean_new, **m,
                    "clustering": clustering(r.column)})
    return out


def rows_gains(old, new) -> list[dict]:
    """Table 4: per backbone, the untrained original (scored once), + PEARL's mean over seeds, and the gain."""
    both = old.merge(new, on="backbone", suffixes=("_old", "_new"))
    out = []
    for r in both.itertuples():
        out.append({"row": r.backbone, "column": "original (average)", "kind": "untrained", "old": r.original_old,
                    "new": r.original_new, "moved": r.original_new - r.original_old, "ci_low": math.nan,
                    "ci_high": math.nan, "p": math.nan, "beyond_noise": None, "clustering": True})
        m = seeds_move({"mean": r.pearl_old, "std": r.pearl_std_old, "n": r.n_old},
                       {"mean": r.pearl_new, "std": r.pearl_std_new, "n": r.n_new})
        out.append({"row": r.backbone, "column": "+ PEARL (average)", "kind": "trained", "old": r.pearl_old,
                    "new": r.pearl_new, **m, "clustering": True})
        out.append({"row": r.backbone, "column": "gain (average)", "kind": "trained", "old": r.gain_old,
                    "new": r.gain_new, "moved": r.gain_new - r.gain_old, "ci_low": math.nan, "ci_high": math.nan,
                    "p": math.nan, "beyond_noise": None, "clustering": True})
    return out


READERS = {"once": rows_once, "seeds": rows_seeds, "gains": rows_gains}


def moves(before: str):
    """``(frame of every compared cell, {table: "rebuilt" | "not rebuilt yet" | "no table"})``."""
    import pandas as pd

    rows, status = [], {}
    for table, (notebook, how) in TABLES.items():
        rel = f"results/{table}.csv"
        old = at(before, rel)
        if old is None or not (ROOT / rel).is_file():
            status[table] = "no table"
            continue
        if not rebuilt(notebook, before):
            status[table] = "not rebuilt yet"
            continue
        status[table] = "rebuilt"
        found = READERS[how](pd.read_csv(io.StringIO(old)), pd.read_csv(ROOT / rel))
        rows += [{"table": table, **r} for r in found]
    return pd.DataFrame(rows), status


def summary(frame) -> list[dict]:
    """Per table and kind of row, clustering cells apart: how many cells, the largest |move|, and (for
    seeds) how many moved beyond the noise."""
    out = []
    for (table, kind, clustering), g in frame.groupby(["table", "kind", "clustering"], sort=False):
        tested = g["beyond_noise"].dropna()
        out.append({"table": table, "rows": kind, "cells": "clustering" if clustering else "other",
                    "n": len(g), "largest |move|": float(g["moved"].abs().max()),
                    "mean move": float(g["moved"].mean()),
                    "beyond the seed noise": f"{int(tested.sum())} of {len(tested)}" if len(tested) else "–"})
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", default=BEFORE, help=f"the commit before the rebuild (default {BEFORE})")
    args = ap.parse_args()
    import pandas as pd

    from harness.outputs import save_table
    from harness.record import Run
    from pearl.tabular import Table, render

    frame, status = moves(args.before)
    run = Run(NAME, {"before": args.before})
    if frame.empty:
        raise SystemExit(f"no table is rebuilt since {args.before} yet ({status}): run the notebooks first")
    summ = pd.DataFrame(summary(frame))
    head = (f"# Which tables the rebuild moved: every rebuilt cell against commit {args.before}\n\n"
            "Made by `scripts/rebuild_moves.py`. The rebuild changed the clustering evaluator (one KMeans seed before, "
            "the lowest-inertia solution now), the view composition (the rule of `pearl.training.composition` for a "
            "fixed centred weight) and the word-embedding update (row-wise, equal to dense up to rounding). An "
            "untrained model (scored once) can move only by its evaluators: on the clustering cells by the old "
            "evaluator's single-seed noise, elsewhere by what a seeded probe or classifier does not hold still between "
            "two runs. A trained recipe's mean over seeds is judged by Welch's 95 % interval of the seeds before and "
            "after; a trained model scored once (Tables 1 and 2) gets no verdict, only its move.\n\n"
            "Tables: " + ", ".join(f"`{t}` {s}" for t, s in status.items()) + ".")
    notes = ["## Every compared cell", Table(frame.round(3))]
    save_table(frame, NAME, markdown=Table(summ.round(3), head=head, notes=notes), smoke=False)
    run.save(metrics={f"{r['table']}/{r['rows']}/{r['cells']}/largest_move": r["largest |move|"] for r in summ.to_dict("records")},
             status=status, summary=summ.to_dict("records"))
    print(render(Table(summ.round(3), head=head), "md"))


if __name__ == "__main__":
    main()
