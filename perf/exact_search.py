"""Exact top-1 search for entity retrieval: ``pearl.benchmark.evaluate.top1`` against faiss's
``IndexFlatIP`` and against the FLOP floor, in one run.

    .venv/bin/python perf/exact_search.py [--repeats 3] [--out results/perf/exact_search.json]

The shapes are Table 1's: 10,000 YAGO mentions against the 235,270-name stand-in dictionary,
and the UMLS mentions against its 85,949 names, in 384 dimensions (MiniLM). The vectors are
random unit vectors: an exact search does the same work whatever their values. The floor is
``2 * queries * names * dim`` FLOPs at the sustained fp32 rate of a 2048x2048 matmul measured in
the same run. Both searches run on torch's thread count (``--threads``, default all cores);
rounds alternate, and the script prints the median seconds, the ratio of each to the floor, the
speed-up, and whether the two agree on every query (they may differ only on near-ties, where
two BLAS libraries round differently).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from pearl.benchmark.evaluate import top1
from pearl.atomic import write_atomic
from pearl.provenance import git_sha, hardware, write_json
from scoring_floor import matmul_rate

SHAPES = {"yago": (10_000, 235_270), "umls": (10_000, 85_949)}


def faiss_top1(queries: np.ndarray, keys: np.ndarray) -> np.ndarray:
    import faiss

    index = faiss.IndexFlatIP(keys.shape[1])
    index.add(keys)
    return index.search(queries, 1)[1][:, 0]


def unit(rng, rows: int, dim: int) -> np.ndarray:
    x = rng.standard_normal((rows, dim), dtype=np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=3, help="alternating rounds of both searches")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--out", default=None, help="a JSON file for the figures")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    import faiss

    faiss.omp_set_num_threads(args.threads)
    rate = matmul_rate()
    record = {"hardware": hardware(), "git_sha": git_sha(), "threads": args.threads,
              "load_average_start": os.getloadavg(), "matmul_gflops": round(rate / 1e9, 1), "rows": []}
    print(f"sustained fp32 matmul (2048^2): {rate / 1e9:.1f} GFLOPS on {args.threads} threads")
    rng = np.random.default_rng(0)
    for task, (nq, nk) in SHAPES.items():
        queries, keys = unit(rng, nq, args.dim), unit(rng, nk, args.dim)
        floor = 2 * nq * nk * args.dim / rate
        times, answers = {"top1": [], "faiss": []}, {}
        for _ in range(args.repeats):
            for label, search in (("top1", top1), ("faiss", faiss_top1)):
                start = time.perf_counter()
                answers[label] = search(queries, keys)
                times[label].append(time.perf_counter() - start)
        agree = float(np.mean(answers["top1"] == answers["faiss"]))
        med = {k: statistics.median(v) for k, v in times.items()}
        row = {"task": task, "queries": nq, "names": nk, "floor_s": round(floor, 2),
               "top1_s": [round(t, 2) for t in times["top1"]], "faiss_s": [round(t, 2) for t in times["faiss"]],
               "top1_ratio": round(med["top1"] / floor, 2), "faiss_ratio": round(med["faiss"] / floor, 2),
               "speedup": round(med["faiss"] / med["top1"], 2), "same_answers": agree}
        record["rows"].append(row)
        print(f"{task}: {nq:,} queries x {nk:,} names, floor {floor:.2f} s | top1 {med['top1']:.2f} s "
              f"({row['top1_ratio']}x floor) | faiss IndexFlatIP {med['faiss']:.2f} s ({row['faiss_ratio']}x floor) "
              f"| faiss / top1 {row['speedup']}x | same answer on {100 * agree:.2f} % of queries")
    record["load_average_end"] = os.getloadavg()
    if args.out:
        write_json(Path(args.out), record)


if __name__ == "__main__":
    main()
