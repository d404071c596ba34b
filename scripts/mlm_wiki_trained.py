"""PEARL and SimCSE on the raw masked LM ``mlm-wiki``, scored on Table 4's sweep suite.

Usage::

    nice -n 5 .venv/bin/python scripts/mlm_wiki_trained.py                  # seeds 0 1 2, both methods
    nice -n 5 .venv/bin/python scripts/mlm_wiki_trained.py --seeds 0 --methods pearl

The backbone is a small masked LM pretrained here on the shipped Wikipedia (stand-in for a raw
language model such as BERT; :mod:`pearl.backbones.mlm`). Each model is trained by the cpu profile's
recipe exactly as ``python -m pearl.training.profiles --profile cpu --backbone mlm-wiki --seed N
[--objective simcse]`` trains it (the same settings as every other backbone; no learning rate
tuned for this one), into ``models/<method>-mlmwiki-seed<N>`` (a folder already there is
reused), then scored on the sweep suite (:func:`pearl.benchmark.scoring.run_model`,
``size="sweep"``, Table 1's nine tasks), as notebook 09 scores Table 4's backbones. The
untrained row comes from ``results/mlm_wiki_untrained.json`` (same suite).

Models run in the order pearl 0, simcse 0, pearl 1, ...; the record
``results/mlm_wiki_trained.json`` (and ``.csv``/``.md``/``.tex``) is rewritten after each one, so
a run stopped early still leaves what it finished. It never touches Table 4.
"""
from __future__ import annotations

import argparse
import json
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    ap.add_argument("--methods", nargs="+", default=["pearl", "simcse"], choices=("pearl", "simcse"))
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads (one is faster on shared cores)")
    args = ap.parse_args()

    import numpy as np
    import pandas as pd
    import torch

    from pearl import models, paths
    from pearl.backbones import mlm
    from pearl.benchmark import scoring
    from pearl.benchmark.tasks import DATASETS
    from harness.outputs import save_table
    from harness.record import Run
    from pearl.training import profiles

    torch.set_num_threads(args.threads)
    run = Run("mlm_wiki_trained", {"SMOKE": False, "profile": "cpu", "backbone": mlm.NAME, "seeds": args.seeds,
                                   "methods": args.methods, "threads": args.threads, "size": "sweep"})
    untrained = json.loads(paths.results_dir("mlm_wiki_untrained.json").read_text())["metrics"]
    original = {d: untrained[f"sweep/{mlm.NAME}/{d}"] for d in DATASETS}
    rows = [{"method": "original", "seed": None, "dataset": d, "score": s} for d, s in original.items()]
    train_s = {}  # folder -> the training time its pearl.json records (also for a folder trained earlier)
    for seed in args.seeds:
        for method in args.methods:
            folder = paths.models_dir(models.folder_name(method, mlm.NAME, seed))
            if not (folder / "pearl.json").is_file():
                with run.timer(f"train/{method}/seed{seed}"):
                    profiles.main(["--profile", "cpu", "--backbone", mlm.NAME, "--seed", str(seed)]
                                  + (["--objective", method] if method != "pearl" else []))
            with run.timer(f"score/{method}/seed{seed}"):
                got = scoring.run_model(folder.name, models.load_model(str(folder)), DATASETS, size="sweep",
                                        threads=args.threads)
            rows += [{"method": method, "seed": seed, "dataset": r["dataset"], "score": r["score"]} for r in got]
            train_s[folder.name] = json.loads((folder / "pearl.json").read_text()).get("train_seconds")
            save(run, rows, original, mlm, pd, np, save_table, train_s)
            print(method, seed, round(np.mean([r["score"] for r in got]), 2), flush=True)


def save(run, rows, original, mlm, pd, np, save_table, train_s) -> None:
    """The per-seed rows, and per method: mean average over seeds, its std, gain over the original."""
    from scipy import stats

    frame = pd.DataFrame(rows)
    avg = frame.groupby(["method", "seed"], dropna=False)["score"].mean().reset_index()
    base = float(np.mean(list(original.values())))
    summary = []
    for method, group in avg[avg["method"] != "original"].groupby("method"):
        values = group["score"].to_numpy()
        p = float(stats.ttest_1samp(values, base).pvalue) if len(values) > 1 else float("nan")
        summary.append({"method": method, "n": len(values), "original": base, "mean": float(values.mean()),
                        "std": float(values.std(ddof=1)) if len(values) > 1 else float("nan"),
                        "gain": float(values.mean() - base), "p_one_sample": p})
    frame["model"] = [m if s is None or s != s else f"{m} seed {int(s)}" for m, s in zip(frame["method"], frame["seed"])]
    wide = frame.pivot_table(index="dataset", columns="model", values="score", sort=False)
    from pearl.tabular import Table

    md = Table(pd.DataFrame(summary), floatfmt=".2f", head=(
        f"**PEARL and SimCSE on {mlm.LABEL}**, cpu profile, sweep suite (Table 1's nine tasks), "
        "`scripts/mlm_wiki_trained.py`. Gain: mean over seeds of the nine-task average minus the untrained "
        "model's; p: one-sample t-test of the seeds' averages against the untrained average (one untrained score)."),
        notes=["Per seed and task:", Table(wide, index=True, floatfmt=".1f")])
    save_table(frame, "mlm_wiki_trained", markdown=md, smoke=False)
    run.save(metrics={f"{s['method']}/{k}": s[k] for s in summary for k in ("n", "mean", "std", "gain", "p_one_sample")}
             | {"original/average": base}, label=mlm.LABEL, weights_sha256=mlm.meta().get("weights_sha256"),
             train_seconds=train_s, per_seed={f"{r['method']}/seed{r['seed']}": r["score"] for r in avg.to_dict("records")
                       if r["method"] != "original"}, rows=rows)


if __name__ == "__main__":
    main()
