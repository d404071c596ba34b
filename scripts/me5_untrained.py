"""Untrained me5-small on Table 1 and Table 2, in files of their own.

Usage::

    .venv/bin/python scripts/me5_untrained.py                 # the exact Table 1 suite, Table 2
    .venv/bin/python scripts/me5_untrained.py --size sweep    # the sweep suite (cheaper), labelled so
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/me5_untrained.py --size smoke   # checks the script runs

The backbone is multilingual-E5-small, 4-bit weights dequantised (stand-in for E5-small)
(:mod:`pearl.backbones.me5`), scored exactly as notebooks 04 and 07 score MiniLM (``pearl.benchmark.scoring.run_model`` on
Table 1's and Table 2's task suites: same tasks, sizes, probe and classifier seeds). Writes
``results/me5_small_untrained.{csv,md,tex}`` (the rows, with the paper's E5-small and this
repository's MiniLM rows beside, from :mod:`pearl.benchmark.paper` and ``results/table1.csv`` /
``results/table2.csv``) and ``results/me5_small_untrained.json`` (provenance). It never
touches ``results/table1.*`` or ``results/table2.*``. A smoke run labels every file SMOKE.
"""
from __future__ import annotations

import argparse
import math

NAME = "me5_small_untrained"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=("full", "sweep", "smoke"), default="full")
    parser.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--skip-table2", action="store_true")
    parser.add_argument("--gold-only", nargs="*", default=[], choices=("yago", "umls"),
                        help="retrieval tasks scored instead on all their queries against their gold names alone "
                             "(table1.csv's gold_only_score; no dictionary or pool to encode); the average is then left out")
    args = parser.parse_args()

    import pandas as pd

    from pearl import models, paths
    from pearl.backbones import me5
    from pearl.benchmark import scoring, table
    from pearl.benchmark.tasks import DATASETS, SUITES
    from harness.outputs import save_table
    from harness.record import Run
    from harness.scale import FULL, SMOKE
    from pearl.tabular import render

    smoke = args.size == "smoke"
    scale = SMOKE if smoke else FULL  # pearl's "tiny" task size in a SMOKE run
    run = Run(NAME, dict(SMOKE=smoke, size=args.size, threads=args.threads, model=me5.NAME,
                         source=me5.SOURCE_FILE, input_prefix=me5.PREFIX, table2=not args.skip_table2))
    model = models.load_model(me5.NAME)
    with run.timer("table1"):
        rows1 = scoring.run_model(me5.NAME, model, [d for d in DATASETS if d not in args.gold_only],
                                  size=scale.scaled(args.size), threads=args.threads)
        rows1 += [gold_only(model, d, args.threads, smoke) for d in args.gold_only]
        rows1.sort(key=lambda r: DATASETS.index(r["dataset"]))
    rows2 = []
    if not args.skip_table2:
        with run.timer("table2"):  # Table 2 at full size (or smoke): its sweep size is for the experiments
            rows2 = scoring.run_model(me5.NAME, model, SUITES["table2"], size=scale.scaled("full"),
                                      threads=args.threads)

    t1 = table.tidy(rows1, table.TABLE1).assign(table="table1")
    if args.gold_only:  # mixed protocols: no average
        t1.loc[t1["dataset"] == "average", ["score", "note"]] = [math.nan, "left out: " + ", ".join(args.gold_only)
                                                                 + " scored against gold names only"]
    t2 = table.tidy(rows2, table.TABLE2).assign(table="table2") if rows2 else pd.DataFrame()
    ours = pd.concat([t1, t2], ignore_index=True)
    md = markdown(t1, t2, args.size, table, paths, models, me5)
    save_table(ours, NAME, markdown=md, smoke=smoke)
    metrics = {f"{r['table']}/{r['dataset']}": r["score"] for r in ours.to_dict("records")}
    run.save(metrics=metrics, std={f"{r['table']}/{r['dataset']}": r["std"] for r in ours.to_dict("records")},
             label=me5.LABEL, encode_s={"table1": rows1[0]["details"].get("encode_all_s"),
                                        "table2": rows2[0]["details"]["encode_all_s"] if rows2 else None},
             source_sha256=__import__("json").loads((me5.folder() / "me5.json").read_text())["source_sha256"])
    print(render(md, "md"))


def gold_only(model, dataset: str, threads: int, smoke: bool = False) -> dict:
    """Table 1's row for a retrieval task scored on all its queries against its gold names alone."""
    import time

    from pearl import data
    from pearl.backbones import me5
    from pearl.benchmark import evaluate
    from pearl.encode import torch_threads

    pairs = data.read_retrieval(dataset)[:200 if smoke else None]
    start = time.perf_counter()
    with torch_threads(threads):
        result = evaluate.evaluate_retrieval(model, pairs, [g for _, g in pairs], gold_only=False)
    return {"model": me5.NAME, "dataset": dataset, "score": result["score"], "std": math.nan, "n": result["n"],
            "seconds": round(time.perf_counter() - start, 2), "size": "full, gold names only",
            "note": f"all {result['n']:,} queries against the {result['dictionary_size']:,} gold names only",
            "dictionary": "gold names only", "dictionary_size": result["dictionary_size"],
            "gold_only_score": result["score"], "details": {}}


def markdown(t1, t2, size, table, paths, models, me5):
    """The untrained me5-small's rows beside the paper's E5-small and our untrained MiniLM (a
    :class:`pearl.tabular.Table`: Table 1, then Table 2 in its notes)."""
    import pandas as pd

    from pearl.benchmark import paper
    from pearl.benchmark.tasks import DATASETS, SHORT_TEXT_SEEDS
    from pearl.tabular import cell, rows

    cols = [table.COLUMNS[d] for d in DATASETS] + ["Avg"]
    suite = {"full": "exact Table 1 suite", "sweep": "Table 1 SWEEP suite (`pearl.benchmark.tasks`: one probe seed, "
             "2,000 retrieval queries against pools of gold and hard names, pooled AutoFJ; pooled retrieval scores are "
             "upper bounds, tightest for MiniLM, whose confusions build the pools)", "smoke": "SMOKE suite"}[size]
    head = (f"**Untrained {me5.LABEL}**, scored on the {suite} by `scripts/me5_untrained.py` (inputs prefixed "
            "\"query: \", E5's convention for symmetric tasks). Beside it: the paper's E5-small and this repository's "
            "untrained MiniLM on the exact suite (results/table1.csv).")
    e5 = paper.labelled(1).set_index("Model").loc["E5-small (34M)"]
    body = [["E5-small (34M)", "paper", *(cell(e5[c]) for c in cols)]]
    mini = paths.results_dir("table1.csv")
    if mini.is_file() and size != "smoke":
        m = pd.read_csv(mini)
        m = m[m["model"] == "minilm"].set_index("dataset")["score"]
        body.append([models.label("minilm"), "results/table1.csv (exact suite)", *(cell(m.get(d)) for d in (*DATASETS, "average"))])
    s = t1.set_index("dataset")["score"]
    body.append([me5.LABEL, f"this run ({size})", *(cell(s.get(d)) for d in (*DATASETS, "average"))])
    notes = []
    for r in t1[t1["dictionary"] == "gold names only"].to_dict("records") if "dictionary" in t1 else []:
        line = f"{table.COLUMNS[r['dataset']]} in the row above: {r['note']} (the dictionary and its pool were not encoded)"
        if mini.is_file():
            m = pd.read_csv(mini).set_index(["model", "dataset"])
            line += (f"; MiniLM on the same protocol: {cell(m.loc[('minilm', r['dataset']), 'gold_only_score'])} "
                     "(results/table1.csv, gold_only_score)")
        notes.append(line + "; the average is left out.")
    if len(t2):
        sets = list(t2["dataset"])
        notes.append(f"Table 2 ({'full' if size != 'smoke' else 'SMOKE'} size; short-text classification, mean ± std "
                     f"test accuracy over {len(SHORT_TEXT_SEEDS['tiny' if size == 'smoke' else 'full'])} classifier seeds), beside this repository's untrained MiniLM (results/table2.csv):")
        body2 = []
        mini2 = paths.results_dir("table2.csv")
        if mini2.is_file():
            m2 = pd.read_csv(mini2)
            m2 = m2[m2["model"] == "minilm"].set_index("dataset")
            body2.append([models.label("minilm"), "results/table2.csv",
                          *(cell(m2["score"].get(d), m2["std"].get(d)) for d in sets)])
        g = t2.set_index("dataset")
        body2.append([me5.LABEL, "this run", *(cell(g["score"][d], g["std"][d]) for d in sets)])
        notes.append(rows(["Model", "Source", *(table.COLUMNS[d] for d in sets)], body2))
    return rows(["Model", "Source", *cols], body, head=head, notes=notes)


if __name__ == "__main__":
    main()
