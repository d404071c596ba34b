"""Device: score models on Table-1 datasets (rows as pearl.benchmark.scoring.run_model) into one JSON file.

    python3 scripts/device/score.py --out OUT/table1_gpu_profile_seed0.json MODEL_FOLDER minilm

Each model is named by its folder's last part (or its alias); the file is rewritten after
each model, so a run cut short keeps the models it finished.
"""
import argparse
import json
import os
import time


def main(argv=None) -> None:
    from pearl.benchmark import scoring
    from pearl.benchmark.tasks import DATASETS
    from pearl.models import load_model
    from pearl.provenance import git_sha, nulled, write_json

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="+", help="aliases or model folders (pearl.models.load_model)")
    ap.add_argument("--out", required=True, help="JSON file for the rows")
    ap.add_argument("--datasets", default=",".join(DATASETS), help="comma-separated (default: all nine)")
    ap.add_argument("--tiny", action="store_true", help="the tasks' tiny-size data (checks the script only)")
    args = ap.parse_args(argv)
    rows = []
    for m in args.models:
        t0 = time.perf_counter()
        rows += scoring.run_model(os.path.basename(m.rstrip("/")), load_model(m), args.datasets.split(","), size="tiny" if args.tiny else "full")
        print(f"{m}: {time.perf_counter() - t0:.1f} s", flush=True)
        clean, undefined = nulled(rows)  # strict JSON: a score without seeds has no std (null, said why)
        write_json(args.out, {"git_sha": git_sha(), "rows": clean, "undefined": {
            k: "no value (a score without probe seeds has no std)" for k in undefined}}, indent=1)


if __name__ == "__main__":
    main()
