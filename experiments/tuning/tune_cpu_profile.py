"""Tuning the ``cpu`` training profile on a fast development subset of Table 1.

Usage::

    .venv/bin/python benchmarks/tune_cpu_profile.py --tag base                      # the profile as is
    .venv/bin/python benchmarks/tune_cpu_profile.py --tag lr3e-4 --set lr=3e-4 --set steps=400
    .venv/bin/python benchmarks/tune_cpu_profile.py --tag minilm --backbone-only    # the reference row

Scoring all nine datasets costs about 20 minutes per model on 2 cores (the retrieval
dictionaries are 320K names), so variants are compared on a development subset that costs
about a minute: Turney, BIRD, CoNLL, BC5CDR, and YAGO/UMLS retrieval against the gold names
only (10K names each). The winning variant is then scored on all nine by notebook 04.

One training run is scored several ways without retraining: weight averaging ratios
and the character part's weight in the concatenation (``--grid average:char_weight,...``;
average = the backbone's share of fine-tuned weights). Each line of results/tuning/cpu_profile.jsonl is
one (run, averaging, char weight) with its scores; the table printed at the end ranks them.
"""
from __future__ import annotations

import argparse
import json
import time

import numpy as np
import torch

DEV = ("turney", "bird", "conll", "bc5cdr", "yago_gold", "umls_gold")


def dev_inputs() -> dict:
    from pearl import data

    inputs = {"turney": data.read_turney(), "bird": data.read_bird(),
              "conll": data.read_typed_mentions("conll", "test"), "bc5cdr": data.read_typed_mentions("bc5cdr", "test")}
    for ds in ("yago", "umls"):
        pairs = data.read_retrieval(ds)
        inputs[f"{ds}_gold"] = (pairs, list(dict.fromkeys(g for _, g in pairs)))
    return inputs


def dev_scores(enc, inputs: dict) -> dict:
    from pearl.benchmark import evaluate
    from pearl.benchmark.table1 import PhraseCache

    enc = PhraseCache(enc).as_encoder()  # a phrase in two datasets is encoded once
    out = {"turney": evaluate.evaluate_turney(enc, inputs["turney"])["score"],
           "bird": evaluate.evaluate_bird(enc, inputs["bird"])["score"],
           "conll": evaluate.evaluate_clustering(enc, inputs["conll"])["score"],
           "bc5cdr": evaluate.evaluate_clustering(enc, inputs["bc5cdr"])["score"]}
    for ds in ("yago_gold", "umls_gold"):
        pairs, names = inputs[ds]
        out[ds] = evaluate.evaluate_retrieval(enc, pairs, names, gold_only=False)["score"]
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
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)

    from pearl import paths
    from pearl.models import load_model
    from pearl.corpus.phrases import LABELS
    from pearl.training.recipe import augmenter_factory, config_for, load_training_data
    from pearl.training.train import train

    out = paths.results_dir("tuning") / "cpu_profile.jsonl" if args.out is None else args.out
    inputs = dev_inputs()

    def record(row):
        print(json.dumps(row), flush=True)
        with open(out, "a") as f:
            f.write(json.dumps(row) + "\n")

    if args.backbone_only:
        t0 = time.perf_counter()
        record({"tag": args.tag, "backbone_only": True, **dev_scores(load_model("minilm"), inputs),
                "eval_s": round(time.perf_counter() - t0, 1)})
        return
    overrides = {k: json.loads(v) for k, v in (s.split("=", 1) for s in args.set)}
    aug = {k: overrides.pop(f"aug_{k}", 1.0) for k in ("char", "token", "phrase")}  # augmentation levels
    cfg, data_opts = config_for("cpu", seed=args.seed, **{**overrides, "average": 1.0})
    corpus, negs, tables = load_training_data(hard_negatives=cfg.hard_negatives > 0, seed=args.seed, **data_opts)
    result = train(cfg, corpus, negs, augmenter_factory(**aug, tables=tables), labels=list(LABELS), progress=False)
    model = result.model
    tuned = {k: v.detach().clone() for k, v in model.backbone.state_dict().items()}
    original = load_model("minilm").model.state_dict()
    grid = [tuple(float(x) for x in pair.split(":")) for pair in args.grid.split(",")]
    if model.char_encoder is None:
        grid = list(dict.fromkeys((avg, 0.0) for avg, _ in grid))
    for avg, cw in grid:
        with torch.no_grad():
            for name, tensor in model.backbone.state_dict().items():
                if tensor.is_floating_point():
                    tensor.copy_(avg * tuned[name] + (1 - avg) * original[name])
        model.char_weight = cw
        t0 = time.perf_counter()
        scores = dev_scores(model.as_encoder(result.tokenizer, cfg.max_length, name="dev"), inputs)
        record({"tag": args.tag, "set": args.set, "seed": args.seed, "average": avg, "char_weight": cw,
                "train_s": round(result.seconds, 1), "eval_s": round(time.perf_counter() - t0, 1),
                "loss_last50": float(np.mean([r["loss"] for r in result.log[-50:]])),
                "type_last50": float(np.mean([r.get("type", np.nan) for r in result.log[-50:]])), **scores})


if __name__ == "__main__":
    main()
