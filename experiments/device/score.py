"""Device: score models on Table-1 datasets; writes $OUT/scores_<tag>.json (rows as table1.run_model)."""
import json, os, sys, time
from pearl.benchmark import table1
tag, models = sys.argv[1], sys.argv[2:]
datasets = os.environ.get("DATASETS", ",".join(table1.DATASETS)).split(",")
rows = []
for m in models:
    t0 = time.perf_counter()
    rows += table1.run_model(os.path.basename(m.rstrip("/")), table1.load_benchmark_model(m), datasets)
    print(f"{m}: {time.perf_counter() - t0:.1f} s", flush=True)
    json.dump(rows, open(os.path.join(os.environ["OUT"], f"scores_{tag}.json"), "w"), indent=1, default=str)
