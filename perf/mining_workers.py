"""Hard-negative mining in worker processes against one process, on the training corpus of data/derived.

    .venv/bin/python perf/mining_workers.py [--workers N] [--phrases 0] [--out FILE]

:func:`pearl.corpus.hard_negatives.mine` with ``workers=1`` (the obvious way: one process) and with
``workers=N`` (default: every core), for every phrase of the corpus that notebooks 01-02 built under
``data/derived`` (``--phrases``: only the most frequent ones), with its augmentation lexicons. The
vectors are given (random, fixed seed), so what is timed is the part a GPU does not do: candidates by
edit distance, exclusions and the selection of the lowest cosines. Encoding is the model's and is timed
by ``perf/hard_negative_mining.py``. Printed: each run's seconds, the speedup and its ideal (N, the
floor of a split with no overhead), and whether the two gave the same lists (they must).
"""
from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

RECORD = Path(__file__).resolve().parents[1] / "results" / "perf" / "mining_workers.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--phrases", type=int, default=0, help="SMOKE: the most frequent phrases only (0: all)")
    ap.add_argument("--k", type=int, default=12)
    ap.add_argument("--out", default=str(RECORD), help="a JSON file for the record")
    args = ap.parse_args()
    if args.phrases and Path(args.out).resolve() == RECORD:
        ap.error("--phrases is a SMOKE run: pass --out a scratch file, not the committed record")

    from pearl.corpus import hard_negatives as hn
    from pearl.corpus.augment import load_lexicons
    from pearl.corpus.store import read_rows
    from pearl.provenance import hardware, stamp, write_json

    phrases = [r["phrase"] for r in read_rows()][: args.phrases or None]
    lexicons = load_lexicons()
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(len(phrases), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    hn.blocks(phrases[:10])  # imports (spaCy's stop words) before the clock starts
    load = [os.getloadavg()]
    runs, lists = {}, {}
    for workers in (1, args.workers):
        t0 = time.perf_counter()
        lists[workers], stats = hn.mine(phrases, None, k=args.k, lexicons=lexicons, vectors=vectors, workers=workers)
        runs[workers] = {"seconds": round(time.perf_counter() - t0, 2), "candidates_and_exclusions_s": stats["candidates_s"]}
        load.append(os.getloadavg())
    one, many = runs[1]["seconds"], runs[args.workers]["seconds"]
    record = {
        "what": "hard negatives for every phrase with given vectors (candidates, exclusions, selection): one process "
                f"against {args.workers} forked workers",
        "phrases": len(phrases), "smoke": bool(args.phrases), "k": args.k, "cpu_count": os.cpu_count(),
        "runs": {str(w): r for w, r in runs.items()}, "speedup": round(one / many, 2),
        "ideal_speedup": args.workers, "share_of_ideal": round(one / many / args.workers, 2),
        "same_lists": list(lists[1].items()) == list(lists[args.workers].items()),
        "load_average": load, "hardware": hardware(), **stamp(),
    }
    print(f"{len(phrases):,} phrases: 1 process {one} s, {args.workers} workers {many} s: "
          f"{record['speedup']}x (ideal {args.workers}x, {record['share_of_ideal']:.0%}); same lists: {record['same_lists']}")
    write_json(Path(args.out), record)


if __name__ == "__main__":
    main()
