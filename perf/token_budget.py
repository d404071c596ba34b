"""The encoder's batch size on the CPU: ``encode()`` at several token budgets against the FLOP
floor, in one run.

    .venv/bin/python perf/token_budget.py [--pearl models/pearl-minilm-seed0] [--out results/perf/token_budget.json]

``encode()`` sorts phrases by token length and fills each batch up to a budget of tokens
(:data:`pearl.encode.TOKENS_PER_BATCH`). A large budget makes large matrix products, but its
activations (8,192 tokens x 1,536 feed-forward units is 50 MB) leave the caches, and every step
slows down: the products themselves as well as the bias, GELU and attention between them. This script times each budget on the same phrases: a seeded sample of
``--n`` distinct phrases of Table 1's nine tasks (mostly YAGO names, as in the real pass),
alternating budgets for ``--repeats`` rounds, and prints the median seconds, the ratio to the
floor (the encoder FLOPs of those phrases, no padding, at the sustained rate of a 2048x2048
matmul measured in the same run) and the largest difference of the vectors from the first
budget's (batching changes only the order of float sums).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time
from pathlib import Path

import numpy as np
import torch

from pearl import encode as encoding
from pearl import models
from pearl.benchmark.tasks import DATASETS, TASKS
from pearl.atomic import write_atomic
from pearl.provenance import git_sha, hardware, write_json
from scoring_floor import flops, matmul_rate


def table1_phrases(n: int, seed: int = 0) -> list[str]:
    """A seeded sample of ``n`` distinct phrases of the nine Table-1 tasks."""
    phrases = list(dict.fromkeys(p for d in DATASETS for p in TASKS[d].texts(TASKS[d].load("full"))))
    return random.Random(seed).sample(phrases, min(n, len(phrases)))


def time_budgets(model, phrases: list[str], budgets: list[int], repeats: int, log) -> dict:
    """Median seconds of ``encode()`` per budget (rounds alternate) and each budget's largest
    vector difference from the first budget's."""
    seconds, vectors = {b: [] for b in budgets}, {}
    before = encoding.TOKENS_PER_BATCH["cpu"]
    try:
        encoding.encode(model, phrases[:512], progress=False)  # warm-up (allocator, kernels)
        for r in range(repeats):
            for b in budgets:
                encoding.TOKENS_PER_BATCH["cpu"] = b
                start = time.perf_counter()
                vectors[b] = encoding.encode(model, phrases, progress=False)
                seconds[b].append(time.perf_counter() - start)
                log(f"  round {r + 1}: budget {b:>6,} tokens  {seconds[b][-1]:6.2f} s")
    finally:
        encoding.TOKENS_PER_BATCH["cpu"] = before
    first = vectors[budgets[0]]
    return {b: {"seconds": [round(s, 2) for s in seconds[b]], "median_s": round(statistics.median(seconds[b]), 2),
                "max_abs_diff": float(np.abs(vectors[b] - first).max())} for b in budgets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000, help="distinct Table-1 phrases to encode")
    parser.add_argument("--budgets", type=int, nargs="+", default=[1024, 2048, 4096, 8192])
    parser.add_argument("--repeats", type=int, default=3, help="alternating rounds of every budget")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--pearl", default=None, help="a trained PEARL folder to time as well")
    parser.add_argument("--out", default=None, help="a JSON file for the figures")
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    log = lambda s: print(s, flush=True)  # noqa: E731

    rate = matmul_rate()
    phrases = table1_phrases(args.n)
    record = {"hardware": hardware(), "git_sha": git_sha(), "threads": args.threads,
              "load_average_start": os.getloadavg(), "matmul_gflops": round(rate / 1e9, 1), "phrases": len(phrases),
              "default_budget": encoding.TOKENS_PER_BATCH["cpu"], "models": {}}
    log(f"{len(phrases):,} distinct Table-1 phrases, {args.threads} threads; sustained fp32 matmul "
        f"{rate / 1e9:.0f} GFLOPS; encode()'s CPU budget is {record['default_budget']:,} tokens")
    for name in ["minilm"] + ([args.pearl] if args.pearl else []):
        model = models.load_model(name, device="cpu", cache=False)  # no cache: every round encodes
        floor = flops(model, phrases) / rate
        log(f"{Path(name).name}: floor {floor:.2f} s")
        rows = time_budgets(model, phrases, args.budgets, args.repeats, log)
        for b, row in rows.items():
            row["ratio_to_floor"] = round(row["median_s"] / floor, 2)
        best = min(rows, key=lambda b: rows[b]["median_s"])
        record["models"][Path(name).name] = {"floor_s": round(floor, 2), "budgets": rows, "fastest": best}
        log(f"{'budget':>8} {'median s':>9} {'x floor':>8} {'max |diff|':>11}")
        for b, row in rows.items():
            log(f"{b:>8,} {row['median_s']:>9.2f} {row['ratio_to_floor']:>8.2f} {row['max_abs_diff']:>11.1e}")
        log(f"fastest: {best:,} tokens, {rows[args.budgets[-1]]['median_s'] / rows[best]['median_s']:.2f}x "
            f"faster than {args.budgets[-1]:,}")
    record["load_average_end"] = os.getloadavg()
    if args.out:
        write_json(Path(args.out), record)
        log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
