"""Device: cpu-profile variants (fp32 on the GPU, as on a CPU), each trained once and scored on Table-1 datasets.

    python3 scripts/device/sweep.py --out OUT/sweep_cpu_profile.jsonl "base:" "b64:batch_size=64;steps=125"

A variant is ``name:key=json;key=json``: overrides of the cpu profile (pearl.training.profiles.config_for;
the data options anchors_only and max_phrases go to the data). One JSON line per variant is
appended to ``--out``.
"""
import argparse
import json
import time


def main(argv=None) -> None:
    import numpy as np

    from pearl.benchmark import scoring
    from pearl.benchmark.tasks import DATASETS
    from pearl.corpus.phrases import LABELS
    from pearl.provenance import append_jsonl, git_sha
    from pearl.training.methods import augmenter_factory
    from pearl.training.profiles import config_for, load_training_data
    from pearl.training.train import train

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("variants", nargs="+", help="name:key=json;key=json ('base:' = the profile as is)")
    ap.add_argument("--out", required=True, help="JSON lines file to append to")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default: all nine)")
    ap.add_argument("--profile", default="cpu", help="the profile the variants change (default: cpu)")
    args = ap.parse_args(argv)
    datasets = args.datasets.split(",")
    for spec in args.variants:
        name, _, sets = spec.partition(":")
        over = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in sets.split(";") if kv)}
        cfg, data = config_for(args.profile, **{"bf16": False, **over})
        corpus, negs, lexicons = load_training_data(seed=cfg.seed, **data)
        t0 = time.perf_counter()
        res = train(cfg, corpus, negs, augmenter_factory(lexicons=lexicons), labels=list(LABELS), progress=False)
        train_s = time.perf_counter() - t0
        rows = scoring.run_model(name, res.model.as_encoder(res.tokenizer, cfg.max_length, name=name), datasets)
        sc = {r["dataset"]: round(float(r["score"]), 2) for r in rows}
        rec = {"name": name, "set": sets, "train_s": round(train_s, 1),
               "eval_s": round(time.perf_counter() - t0 - train_s, 1), "phrases": len(corpus),
               "avg": round(float(np.mean(list(sc.values()))), 2), **sc}
        print(json.dumps(rec), flush=True)
        append_jsonl(args.out, {**rec, "git_sha": git_sha()})


if __name__ == "__main__":
    main()
