"""One round of the clustering evaluator's KMeans starts, run together, against the per-start loop,
scikit-learn's ``KMeans(n_init=...)`` and the physical floor, in one run.

The hot path of :mod:`pearl.benchmark.clustering`'s default protocol: ``--starts`` k-means++ starts
(one round, :data:`~pearl.benchmark.clustering.RESTARTS`), each run by Lloyd's algorithm until no
label changes, in float64, on BC5CDR's test mentions encoded by the untrained MiniLM (``--data
minilm``, encoded first and timed apart; ``--data random``: a random matrix of the same shape,
9,658 x 384 unit rows, k = 2, when encoding is too slow). In one run:

1. **Batched** (:func:`pearl.benchmark.clustering.lloyd_round`, what the evaluator runs): every
   running start's centres in one matrix, one GEMM per Lloyd iteration; on 1 BLAS thread and on 2,
   whose labels must be the same.
2. **Per-start loop** (the evaluator before it): ``KMeans(k, n_init=1, tol=0, random_state=s)`` per
   start seed on one OpenMP thread; its labels must be the batched ones, start by start.
3. **scikit-learn's own restarts**: ``KMeans(k, n_init=starts, tol=0, random_state=0)`` on one
   OpenMP thread (other starts: only its time and its lowest inertia are comparable).
4. **The floor**: the arithmetic the protocol cannot avoid, at this machine's measured 2048 x 2048
   matmul rate (numpy, the BLAS the evaluator uses; fp64, the evaluator's precision, and fp32 beside
   it): each start's k-means++ candidate distances (``2 n d`` FLOPs per candidate row) and, for each
   Lloyd iteration it actually ran, the assignment's ``2 n k d`` and the update's ``n d``. The batched
   code's ratio to the floor counts its update (a one-hot product while many labels move, then a
   sparse one of the rows that moved), the argmins, the label checks, the thin products of the last
   few running starts and the memory traffic.

Each timing is the fastest of ``--repeats`` runs, after one untimed start of each (imports, first
BLAS call). The machine is shared: the one-minute load average is recorded beside every timing,
and at the start and end.

    python perf/clustering_starts.py                       # results/perf/clustering_starts.json
    python perf/clustering_starts.py --data random --starts 100
"""
from __future__ import annotations

import argparse
import math
import os
import time

import numpy as np
from threadpoolctl import threadpool_limits

from scoring_floor import sustained  # noqa: E402  (perf/ is the script's directory)

from pearl.benchmark import clustering
from pearl.provenance import hardware, stamp, write_json


def matmul_rates(threads: int, n: int = 2048) -> dict:
    """numpy's sustained fp64 and fp32 ``n x n`` matmul rate on ``threads`` BLAS threads, FLOP/s."""
    out = {}
    with threadpool_limits(limits=threads, user_api="blas"):
        for dtype in ("float64", "float32"):
            a, b = (np.random.default_rng(0).standard_normal((n, n)).astype(dtype) for _ in range(2))
            out[dtype] = sustained(lambda: a @ b, 2 * n**3, 2, 5)
    return out


def bc5cdr_vectors(data: str) -> tuple[np.ndarray, int, str]:
    """BC5CDR's test mentions (``"minilm"``: untrained MiniLM's vectors; ``"random"``: a random matrix
    of that shape), k, and a line saying which."""
    if data == "random":
        x = np.random.default_rng(0).standard_normal((9658, 384))
        return x / np.linalg.norm(x, axis=1, keepdims=True), 2, "random 9,658 x 384 unit rows (BC5CDR's shape), k = 2"
    from pearl.benchmark.tasks import task
    from pearl.encode import encode
    from pearl.models import load_model

    mentions = task("bc5cdr").load("full")["mentions"]
    vectors = encode(load_model("minilm"), [m for m, _ in mentions])
    return (np.asarray(vectors, np.float64), len({t for _, t in mentions}),
            "BC5CDR test mentions, untrained MiniLM (load_model('minilm'))")


def timed(work, repeats: int = 1):
    """The fastest of ``repeats`` runs of ``work()`` in seconds, and its result."""
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        out = work()
        best = min(best, time.perf_counter() - start)
    return best, out


def loaded(record: dict, name: str, seconds: float) -> None:
    """``record[name]``: the seconds, rounded, with the one-minute load average beside them."""
    record[name] = round(seconds, 2)
    record[name.removesuffix("_s") + "_load_average"] = round(os.getloadavg()[0], 2)


def per_start(x: np.ndarray, k: int, seeds) -> tuple[np.ndarray, np.ndarray]:
    """The per-start loop: one scikit-learn KMeans start per seed, one OpenMP thread."""
    from sklearn.cluster import KMeans

    fits = []
    with threadpool_limits(limits=1, user_api="openmp"), threadpool_limits(limits=1, user_api="blas"):
        for s in seeds:
            fits.append(KMeans(n_clusters=k, init="k-means++", n_init=1, tol=0.0, random_state=int(s)).fit(x))
    return np.array([f.inertia_ for f in fits]), np.array([f.labels_ for f in fits])


def sklearn_restarts(x: np.ndarray, k: int, starts: int) -> float:
    """scikit-learn's lowest inertia of ``starts`` starts from one seed, one OpenMP thread."""
    from sklearn.cluster import KMeans

    with threadpool_limits(limits=1, user_api="openmp"), threadpool_limits(limits=1, user_api="blas"):
        return float(KMeans(n_clusters=k, init="k-means++", n_init=starts, tol=0.0, random_state=0).fit(x).inertia_)


def floor_flops(n: int, d: int, k: int, iterations: np.ndarray) -> dict:
    """The protocol's unavoidable FLOPs for starts that ran ``iterations`` Lloyd iterations each."""
    trials = 2 + int(math.log(k))
    seeding = len(iterations) * (1 + (k - 1) * trials) * 2 * n * d
    lloyd = int(iterations.sum()) * (2 * n * k * d + n * d)
    return {"seeding": seeding, "lloyd": lloyd, "floor": seeding + lloyd}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", choices=("minilm", "random"), default="minilm")
    ap.add_argument("--starts", type=int, default=clustering.RESTARTS)
    ap.add_argument("--repeats", type=int, default=2, help="each timing is the fastest of this many runs")
    ap.add_argument("--out", default="results/perf/clustering_starts.json")
    args = ap.parse_args()
    log = lambda msg: print(msg, flush=True)  # noqa: E731

    record = {"hardware": hardware(), **stamp(), "load_average_start": os.getloadavg(), "starts": args.starts,
              "repeats": args.repeats, "cores": os.cpu_count()}
    encode_s, (x, k, source) = timed(lambda: bc5cdr_vectors(args.data))
    n, d = x.shape
    # encode_s: encoding, or reading the embedding cache when an earlier run filled it
    record["data"] = {"source": source, "n": n, "d": d, "k": k, "encode_s": round(encode_s, 1)}
    log(f"{source}: {n} x {d}, k = {k} (vectors in {encode_s:.1f} s: encoded or from the embedding cache)")
    seeds = np.random.SeedSequence(0).generate_state(args.starts)

    # one start of each first, untimed: the imports and BLAS's first call are no part of a round
    clustering.lloyd_round(x, k, seeds[:1])
    per_start(x, k, seeds[:1])
    batched = {}
    for threads in (1, 2):
        with threadpool_limits(limits=threads, user_api="blas"):
            seconds, batched[threads] = timed(lambda: clustering.lloyd_round(x, k, seeds), args.repeats)
        loaded(record, f"batched_{threads}_thread_s", seconds)
        log(f"batched round, {threads} BLAS thread(s): {seconds:.2f} s")
    inertia, labels, iterations = batched[1]
    record["same_labels_1_2_threads"] = bool((batched[1][1] == batched[2][1]).all())
    record["iterations"] = {"total": int(iterations.sum()), "mean": round(float(iterations.mean()), 1),
                            "max": int(iterations.max())}

    loop_s, (ref_inertia, ref_labels) = timed(lambda: per_start(x, k, seeds), args.repeats)
    loaded(record, "per_start_loop_s", loop_s)
    record["per_start_same_labels"] = bool((ref_labels == labels).all())
    record["per_start_inertia_max_rel_diff"] = float(np.abs(ref_inertia / inertia - 1).max())
    log(f"per-start loop (scikit-learn, 1 thread): {loop_s:.2f} s; same labels: {record['per_start_same_labels']}, "
        f"inertias within {record['per_start_inertia_max_rel_diff']:.1e}")
    sk_s, sk_inertia = timed(lambda: sklearn_restarts(x, k, args.starts), args.repeats)
    loaded(record, "sklearn_n_init_s", sk_s)
    record["sklearn_n_init_lowest_inertia"] = sk_inertia
    record["batched_lowest_inertia"] = float(inertia.min())
    log(f"KMeans(n_init={args.starts}) (scikit-learn, 1 thread): {sk_s:.2f} s; lowest inertia {sk_inertia:.6f} "
        f"(batched: {inertia.min():.6f})")

    flops = floor_flops(n, d, k, iterations)
    rates = {threads: matmul_rates(threads) for threads in (1, 2)}
    record["flops"] = flops
    record["matmul_gflops"] = {f"{t}_thread": {dt: round(r / 1e9, 1) for dt, r in rates[t].items()} for t in rates}
    best = min(record["batched_1_thread_s"], record["batched_2_thread_s"])
    threads = 1 if record["batched_1_thread_s"] <= record["batched_2_thread_s"] else 2
    floors = {dt: flops["floor"] / max(rates[t][dt] for t in rates) for dt in ("float64", "float32")}
    record["floor_s"] = {dt: round(s, 3) for dt, s in floors.items()}
    record["ratios"] = {
        "per_start_loop_over_batched": round(loop_s / best, 2),
        "sklearn_n_init_over_batched": round(sk_s / best, 2),
        "batched_1_over_2_threads": round(record["batched_1_thread_s"] / record["batched_2_thread_s"], 2),
        "batched_over_fp64_floor": round(best / floors["float64"], 2),
        "batched_over_fp32_floor": round(best / floors["float32"], 2)}
    record["batched_best_threads"] = threads
    record["load_average_end"] = os.getloadavg()
    for name, ratio in record["ratios"].items():
        log(f"  {name}: {ratio}")
    log(f"floor: {flops['floor'] / 1e9:.1f} GFLOP ({record['iterations']['total']} Lloyd iterations) at "
        f"{record['matmul_gflops']} GFLOPS -> fp64 {floors['float64']:.3f} s, fp32 {floors['float32']:.3f} s; "
        f"load average {record['load_average_start']} -> {record['load_average_end']}")
    write_json(args.out, record, indent=1)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
