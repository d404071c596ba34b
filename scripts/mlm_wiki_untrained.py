"""Untrained ``mlm-wiki`` (the raw masked LM) against untrained MiniLM, on the development subset
and the sweep suite.

Usage::

    nice -n 5 .venv/bin/python scripts/mlm_wiki_untrained.py                 # dev subset + sweep suite
    nice -n 5 .venv/bin/python scripts/mlm_wiki_untrained.py --no-sweep      # dev subset only
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/mlm_wiki_untrained.py --size smoke   # checks the script runs

The model is a small masked LM pretrained here on the shipped Wikipedia (stand-in for a raw
language model such as BERT; :mod:`pearl.backbones.mlm`). Both models are scored the same way, mean
pooling, in the same run:

- the development subset used for tuning (``scripts/tuning/tune_cpu_profile.py``:
  :func:`dev_inputs`, :func:`dev_scores`: Turney, BIRD, CoNLL, BC5CDR, YAGO and UMLS retrieval
  against their gold names only), as its ``--backbone-only`` rows are;
- the sweep suite that Table 4 scores backbones on (notebook 09 through
  :func:`pearl.benchmark.scoring.run_models`, i.e. :func:`pearl.benchmark.scoring.run_model`
  at ``size="sweep"`` on Table 1's nine tasks).

Beside them, the paper's five raw LMs' "Original" row of Table 4 (a five-task average on the
paper's suite, not this one: context, not a comparison of numbers). Writes
``results/mlm_wiki_untrained.{csv,md,tex}`` and ``results/mlm_wiki_untrained.json``; it never
touches Table 1 or Table 4.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

NAME = "mlm_wiki_untrained"
MODELS = ("mlm-wiki", "minilm")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", choices=("full", "smoke"), default="full", help="smoke: tiny subsets, checks the script")
    ap.add_argument("--no-sweep", action="store_true", help="the development subset only")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (one is faster on shared cores)")
    args = ap.parse_args()

    import pandas as pd

    sys.path.insert(0, str(Path(__file__).parent / "tuning"))
    from tune_cpu_profile import DEV, dev_inputs, dev_scores

    from pearl import models
    from pearl.backbones import mlm
    from pearl.benchmark import paper, scoring
    from pearl.benchmark.tasks import DATASETS
    from pearl.encode import torch_threads
    from harness.outputs import save_table
    from harness.record import Run
    from harness.scale import FULL, SMOKE
    from pearl.tabular import Table, cell, render

    smoke = args.size == "smoke"
    scale = SMOKE if smoke else FULL
    run = Run(NAME, {"SMOKE": smoke, "size": args.size, "sweep": not args.no_sweep, "threads": args.threads,
                     "models": list(MODELS)})
    rows = []
    inputs = dev_inputs(scale.scaled("full"))
    for name in MODELS:
        with run.timer(f"dev/{name}"), torch_threads(args.threads):
            scores = dev_scores(models.load_model(name), inputs)
        rows += [{"suite": "dev", "model": name, "dataset": k, "score": scores[k]} for k in (*DEV, "dev_avg")]
        print(name, "dev", round(scores["dev_avg"], 2), flush=True)
    if not args.no_sweep:
        size = scale.scaled("sweep")
        for name in MODELS:
            with run.timer(f"sweep/{name}"):
                got = scoring.run_model(name, models.load_model(name), DATASETS, size=size, threads=args.threads)
            rows += [{"suite": size, "model": name, "dataset": r["dataset"], "score": r["score"]} for r in got]
            avg = sum(r["score"] for r in got) / len(got)
            rows.append({"suite": size, "model": name, "dataset": "average", "score": avg})
            print(name, size, round(avg, 2), flush=True)
    table = pd.DataFrame(rows)
    wide = table.pivot_table(index=["suite", "dataset"], columns="model", values="score", sort=False).reset_index()
    wide["mlm_wiki_minus_minilm"] = wide["mlm-wiki"] - wide["minilm"]
    raw = paper.table(4)
    raw = raw[raw["model"] == "Original"].set_index("column")["value"].to_dict()
    md = Table(wide, floatfmt=".1f", head=(
        f"**Untrained {mlm.LABEL}** against untrained {models.label('minilm')}, mean pooling, scored in one run by "
        "`scripts/mlm_wiki_untrained.py` (dev: the tuning subset of `scripts/tuning/tune_cpu_profile.py`, "
        "YAGO/UMLS against gold names only; sweep: Table 4's suite, Table 1's nine tasks)."), notes=[
        "The paper's raw LMs, untrained (Table 4 'Original', its five-task average on its own suite): "
        + ", ".join(f"{k} {cell(v)}" for k, v in raw.items()) + "."])
    save_table(wide, NAME, markdown=md, smoke=smoke)
    metrics = {f"{r['suite']}/{r['model']}/{r['dataset']}": r["score"] for r in rows}
    run.save(metrics=metrics, label=mlm.LABEL, weights_sha256=mlm.meta().get("weights_sha256"),
             paper_raw_lm_original=raw)
    print(render(md, "md"))


if __name__ == "__main__":
    main()
