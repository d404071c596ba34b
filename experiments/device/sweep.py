"""Device: cpu-profile variants (fp32 on the GPU, as on a CPU), each scored on Table-1 datasets.
argv: tag then variants 'name:key=json;key=json'; writes $OUT/sweep_<tag>.jsonl."""
import json, os, sys, time
import numpy as np
from pearl.benchmark import table1
from pearl.corpus.phrases import LABELS
from pearl.training.recipe import augmenter_factory, config_for, load_training_data
from pearl.training.train import train
tag = sys.argv[1]
datasets = os.environ.get("DATASETS", ",".join(table1.DATASETS)).split(",")
out = os.path.join(os.environ["OUT"], f"sweep_{tag}.jsonl")
for spec in sys.argv[2:]:
    name, _, sets = spec.partition(":")
    over = {k: json.loads(v) for k, v in (kv.split("=", 1) for kv in sets.split(";") if kv)}
    cfg, data = config_for("cpu", bf16=False, **over)  # data options (anchors_only, max_phrases) go to data
    corpus, negs, tables = load_training_data(hard_negatives=cfg.hard_negatives > 0, seed=cfg.seed, **data)
    t0 = time.perf_counter()
    res = train(cfg, corpus, negs, augmenter_factory(tables=tables), labels=list(LABELS), progress=False)
    train_s = time.perf_counter() - t0
    rows = table1.run_model(name, res.model.as_encoder(res.tokenizer, cfg.max_length, name=name), datasets)
    sc = {r["dataset"]: round(float(r["score"]), 2) for r in rows}
    rec = {"name": name, "set": sets, "train_s": round(train_s, 1), "eval_s": round(time.perf_counter() - t0 - train_s, 1),
           "phrases": len(corpus), "avg": round(float(np.mean(list(sc.values()))), 2), **sc}
    print(json.dumps(rec), flush=True)
    open(out, "a").write(json.dumps(rec) + "\n")
