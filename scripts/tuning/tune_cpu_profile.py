"""Tuning the ``cpu`` training profile on a fast development subset of Table 1.

Usage::

    .venv/bin/python scripts/tuning/tune_cpu_profile.py --tag base                      # the profile as is
    .venv/bin/python scripts/tuning/tune_cpu_profile.py --tag lr3e-4 --set lr=3e-4 --set steps=400
    .venv/bin/python scripts/tuning/tune_cpu_profile.py --tag minilm --backbone-only    # the reference row
    .venv/bin/python scripts/tuning/tune_cpu_profile.py --tag check --backbone-only --size tiny --out /tmp/t.jsonl

Scoring all nine datasets costs about 20 minutes per model on 2 cores (the retrieval
dictionaries are 320K names), so variants are compared on a development subset that costs
about a minute: Turney, BIRD, CoNLL, BC5CDR, and YAGO/UMLS retrieval against the gold names
only (10K names each). The data come from the benchmark's own task loaders
(:data:`pearl.benchmark.tasks.TASKS`); the retrieval rows keep the task's mentions and swap
its dictionary for the gold names. The winning variant is then scored on all nine by notebook 04.

One training run is scored several ways without retraining: weight averaging ratios
(:func:`pearl.training.model.average_and_centre`, as training applies it) and the character
part's weight in the concatenation (``--grid average:char_weight,...``; average = the share
of the fine-tuned weights, the rest the backbone's original ones). Each line of
results/tuning/cpu_profile.jsonl is one (run, averaging, char weight) with its scores
(``dev_avg`` is their mean). ``--size tiny`` only checks that the script runs: it needs
``--out`` so that its lines never land in the tuning log.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

#: development subset: result key -> benchmark task; ``*_gold`` = retrieval against the gold names only
DEV = {"turney": "turney", "bird": "bird", "conll": "conll", "bc5cdr": "bc5cdr", "yago_gold": "yago", "umls_gold": "umls"}


def dev_inputs(size: str = "full") -> dict:
    """Each development task's evaluate() arguments, from the benchmark's task loaders."""
    from pearl.benchmark.tasks import TASKS

    inputs = {}
    for key, name in DEV.items():
        args = TASKS[name].load(size)
        args.pop("info", None)
        if key.endswith("_gold"):
            args["dictionary"] = list(dict.fromkeys(g for _, g in args["pairs"]))
            args["gold_only"] = False  # the dictionary already is the gold names
        inputs[key] = args
    return inputs


def dev_scores(enc, inputs: dict) -> dict:
    from pearl.benchmark.tasks import TASKS
    from pearl.cache import cached

    enc = cached(enc)  # a phrase in two datasets, or in two runs of the same weights, is encoded once
    out = {key: TASKS[DEV[key]].evaluate(enc, **args)["score"] for key, args in inputs.items()}
    out["dev_avg"] = float(np.mean([out[k] for k in DEV]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tag", required=True)
    ap.add_argument("--set", action="append", default=[], help="TrainConfig override, key=value (JSON value)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--grid", default="0.5:0.5,0.5:0,1:0.5,1:0",
                    help="comma-separated average:char_weight pairs to score the one trained model at")
    ap.add_argument("--backbone-only", action="store_true")
    ap.add_argument("--backbone", default="minilm", help="the backbone a --backbone-only row scores (a trained run: --set backbone=...)")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None, help="JSON lines file to append to (default: results/tuning/cpu_profile.jsonl)")
    ap.add_argument("--size", default="full", choices=("full", "tiny"),
                    help="task data size (tiny: a small subset for checking the script, not for tuning)")
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    from pearl import paths
    from pearl.provenance import append_jsonl, git_sha
    from pearl.corpus.phrases import LABELS
    from pearl.models import load_backbone, load_model
    from pearl.training.methods import augmenter_factory
    from pearl.training.profiles import config_for, load_training_data
    from pearl.training.model import average_and_centre
    from pearl.training.train import train

    if args.size != "full" and args.out is None:
        ap.error("--size tiny needs --out: tiny scores do not belong in results/tuning/cpu_profile.jsonl")
    out = paths.results_dir("tuning") / "cpu_profile.jsonl" if args.out is None else args.out
    inputs = dev_inputs(args.size)

    def record(row):
        print(json.dumps(row), flush=True)
        append_jsonl(out, {**row, "git_sha": git_sha()})

    if args.backbone_only:
        t0 = time.perf_counter()
        record({"tag": args.tag, "backbone_only": True, **({"size": args.size} if args.size != "full" else {}),
                **({"backbone": args.backbone} if args.backbone != "minilm" else {}),
                **dev_scores(load_model(args.backbone), inputs),
                "eval_s": round(time.perf_counter() - t0, 1)})
        return
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    aug = {k: overrides.pop(f"aug_{k}", 1.0) for k in ("char", "token", "phrase")}  # augmentation levels
    cfg, data_opts = config_for("cpu", seed=args.seed, **{**overrides, "average": 1.0})
    corpus, negs, lexicons = load_training_data(seed=args.seed, **data_opts)
    result = train(cfg, corpus, negs, augmenter_factory(**aug, lexicons=lexicons), labels=list(LABELS), progress=False)
    model = result.model
    tuned = {k: v.detach().clone() for k, v in model.backbone.state_dict().items()}
    original = load_backbone(cfg.backbone)[0].state_dict()  # the weights training started from
    grid = [tuple(float(x) for x in pair.split(":")) for pair in args.grid.split(",")]
    if model.char_encoder is None:
        grid = list(dict.fromkeys((avg, 0.0) for avg, _ in grid))
    for avg, cw in grid:
        model.backbone.load_state_dict(tuned)  # each grid point averages from the fine-tuned weights
        average_and_centre(model, result.tokenizer, original, [p for p, _ in corpus], cfg, avg)  # as training ends
        model.char_scale.fill_(cw)
        t0 = time.perf_counter()
        scores = dev_scores(model.as_encoder(result.tokenizer, cfg.max_length, name="dev"), inputs)
        record({"tag": args.tag, "set": args.set, "seed": args.seed, "average": avg, "char_weight": cw,
                **({"size": args.size} if args.size != "full" else {}),
                "train_s": round(result.seconds, 1), "eval_s": round(time.perf_counter() - t0, 1),
                "loss_last50": float(np.mean([r["loss"] for r in result.log[-50:]])),
                "type_last50": float(np.mean([r.get("type", np.nan) for r in result.log[-50:]])), **scores})


if __name__ == "__main__":
    main()
