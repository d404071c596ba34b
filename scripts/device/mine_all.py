"""Mine hard negatives for every corpus phrase (the gpu profile's HN_ANCHORS=0), on this CPU.

    .venv/bin/python scripts/device/mine_all.py .cache/device/hn_all.json

Called by make_bundle.sh (about 5 minutes on 2 cores) and on the GPU machine for a corpus too large to
carry its hard negatives (full_size.sh); ``--workers`` processes (default every core) share the
candidates, exclusions and selection (:func:`pearl.corpus.hard_negatives.mine`, the same lists as one
process); the model encodes in this one. Prints the mining statistics as JSON.
"""
import argparse
import json
import os
import time


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out", help="JSON file for {phrase: [hard negative, ...]}")
    ap.add_argument("--k", type=int, default=12, help="negatives per phrase")
    ap.add_argument("--max-distance", type=float, default=0.5, help="edit-distance share for candidates")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes for all but the encoding")
    args = ap.parse_args(argv)

    from pearl.corpus.augment import load_lexicons
    from pearl.corpus.hard_negatives import mine, write_hard_negatives
    from pearl.corpus.store import read_rows
    from pearl.models import load_model

    phrases = [r["phrase"] for r in read_rows()]
    t0 = time.perf_counter()
    negs, stats = mine(phrases, load_model("minilm"), k=args.k, lexicons=load_lexicons(), max_distance=args.max_distance,
                       anchors=None, progress=False, workers=args.workers)
    stats["seconds"] = time.perf_counter() - t0
    write_hard_negatives(negs, args.out)
    print(json.dumps(stats))


if __name__ == "__main__":
    main()
