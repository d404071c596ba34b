"""Mine hard negatives for every corpus phrase (the gpu profile's HN_ANCHORS=0), on this CPU."""
import json, sys, time
from pearl.corpus.augment import load_tables
from pearl.models import load_model
from pearl.corpus.hard_negatives import mine, write_hard_negatives
from pearl.corpus.phrases import read_rows
phrases = [r["phrase"] for r in read_rows()]
t0 = time.perf_counter()
negs, stats = mine(phrases, load_model("minilm"), k=12, tables=load_tables(), max_distance=0.5, anchors=None, progress=False)
stats["seconds"] = time.perf_counter() - t0
write_hard_negatives(negs, sys.argv[1])
print(json.dumps(stats))
