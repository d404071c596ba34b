"""Table-1 scoring against its physical floor, cold and warm cache, and the sweep suite's agreement.

In one run, on this machine:

1. **The floor.** The sustained fp32 matmul rate (2048x2048, median of 10, the faster of two
   measurements: before and after the per-dataset pass) and, per dataset,
   the encoder FLOPs really needed: for every distinct phrase (its tokens, special tokens
   included) ``2 * layers * (4 d^2 + 2 d d_ff)`` per token for the projections and feed-forward
   plus ``4 * layers * n * d`` per token for attention; divided by the rate, that is the
   fastest the encoding could possibly go. Everything else (padding, tokenising, the probe,
   the exact search, KMeans) counts against the ratio. Beside it, diagnostics: the rate of the encoder's
   own matrix products (a batch of encode()'s CPU token budget through hidden size 384), which says how much
   of the gap is the thin shapes rather than the code around them; a kernel bound, the encoder's
   products at that rate plus the PPDB probes' (counted from the epochs they ran) at the rate of
   their own shapes, every other step taken as free (a lower bound for any implementation of the same protocol
   on this machine's BLAS); and the PPDB probe timed on one thread against ``--threads``, on the same vectors.
2. **Exact pass, per dataset** (fresh cache): each dataset encodes the phrases no earlier
   dataset brought (AutoFJ titles are YAGO distractors) and is evaluated; floor / actual / ratio.
3. **Exact pass as Table 1 runs it** (fresh cache): every distinct phrase encoded once up
   front, then the nine evaluators; and again with the cache warm, twice: with the vectors
   cached but every task scored again (the probe, the exact search and KMeans still run), and with the
   scores reused as well (what a second ``make reproduce`` on an unchanged model does).
4. **Sweep suite** (fresh cache) for the same model, and for a PEARL folder if given: its
   seconds, and the Table-1 average and each task group against the exact pass (the pools are
   built before the clock starts: they are data, built once per checkout).

    python perf/scoring_floor.py --pearl models/pearl-minilm-seed0 --out results/perf/scoring_floor.json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from pearl import models
from pearl.benchmark import scoring
from pearl.benchmark.tasks import DATASETS, GROUPS, TASKS
from pearl.benchmark.probe import ProbeConfig, probe_scores
from pearl.data import read_ppdb
from pearl.encode import TOKENS_PER_BATCH, encode, torch_threads
from pearl.atomic import write_atomic
from pearl.provenance import git_sha, hardware, write_json


def sustained(work, flop: float, warmup: int, repeats: int, clock=time.perf_counter) -> float:
    """FLOP/s of ``work()``, which does ``flop`` floating-point operations: median of ``repeats``
    timed calls after ``warmup`` untimed ones, on ``clock`` (wall time unless told)."""
    for _ in range(warmup):
        work()
    times = []
    for _ in range(repeats):
        start = clock()
        work()
        times.append(clock() - start)
    return flop / statistics.median(times)


def matmul_rate(n: int = 2048, repeats: int = 10, clock=time.perf_counter) -> float:
    a, b = torch.randn(n, n), torch.randn(n, n)
    return sustained(lambda: a @ b, 2 * n**3, 3, repeats, clock)


def encoder_config(model):
    """The transformer config behind a loaded model (a PEARL folder wraps its backbone)."""
    inner = model.extra.get("inner", model)
    return inner.model.backbone.config if hasattr(inner.model, "backbone") else inner.model.config


def encoder_shapes_rate(cfg, tokens: int = TOKENS_PER_BATCH["cpu"], repeats: int = 5, clock=time.perf_counter) -> float:
    """Sustained fp32 rate on the encoder's own matrix products: a batch of ``tokens`` rows through
    the four d x d projections and the two feed-forward ones (d x f, f x d), FLOP-weighted.

    A diagnostic beside the 2048 x 2048 rate that defines the floor: it says how much of the
    gap is the shapes (hidden size 384 is a thin matrix) and not the code around them."""
    d, f = cfg.hidden_size, cfg.intermediate_size
    x, wd, wf, wb = torch.randn(tokens, d), torch.randn(d, d), torch.randn(d, f), torch.randn(f, d)
    h = torch.randn(tokens, f)

    def layer():
        for _ in range(4):
            x @ wd
        x @ wf
        h @ wb

    return sustained(layer, 2 * tokens * (4 * d * d + 2 * d * f), 2, repeats, clock)


def probe_shapes_rate(d_in: int, config: ProbeConfig = ProbeConfig(), seeds: int = 3) -> float:
    """Sustained fp32 rate on the probe's own matrix products: one training step's forward and
    weight gradient through the first layer, for ``seeds`` probes at once (batch 200, 768 -> 256)."""
    x = torch.randn(seeds, config.batch_size, d_in)
    w, grad = torch.randn(seeds, d_in, config.hidden), torch.randn(seeds, config.batch_size, config.hidden)

    def step():
        torch.bmm(x, w)
        torch.bmm(x.transpose(1, 2), grad)

    return sustained(step, 2 * 2 * seeds * config.batch_size * d_in * config.hidden, 5, 20)


def kernel_bound(rows: list[dict], rate: float, shapes: float, probe_rate: float) -> dict:
    """The exact pass's matrix products alone, every other step taken as free: the encoder's at
    the rate of its own shapes plus the probes' at theirs, and all of them at the square rate.
    Over the floor, a lower bound on the ratio any implementation of this protocol reaches here."""
    enc, probe = (sum(r.get(key, 0.0) for r in rows) * 1e9 for key in ("gflop", "probe_gflop"))
    bound, square = enc / shapes + probe / probe_rate, (enc + probe) / rate
    return {"probe_gflop": round(probe / 1e9, 1), "probe_shapes_gflops": round(probe_rate / 1e9, 1),
            "bound_s": round(bound, 1), "bound_ratio": round(bound / (enc / rate), 2),
            "bound_at_square_rate_s": round(square, 1), "bound_at_square_rate_ratio": round(square / (enc / rate), 2)}


def flops(model, phrases: list[str]) -> float:
    """Encoder FLOPs of one forward pass over ``phrases`` (no padding)."""
    inner = model.extra.get("inner", model)
    cfg = encoder_config(model)
    d, f, layers = cfg.hidden_size, cfg.intermediate_size, cfg.num_hidden_layers
    if not phrases:
        return 0.0
    n = np.array([len(ids) for ids in inner.tokenizer(phrases, truncation=True, max_length=inner.max_length)["input_ids"]],
                 dtype=np.float64)
    return float((n * 2 * layers * (4 * d * d + 2 * d * f) + n**2 * 4 * layers * d).sum())


def fresh(name: str, cache_file: Path):
    os.environ["PEARL_EMBEDDING_CACHE"] = str(cache_file)
    return models.load_model(name)


ORIGINAL_CACHE = os.environ.get("PEARL_EMBEDDING_CACHE")  # before fresh() points it at scratch files


def build_pools(log) -> None:
    """Build (or find) the sweep suite's pools with the checkout's own cache, before any clock:
    they are data, built once per checkout, from the untrained MiniLM's vectors."""
    if ORIGINAL_CACHE is None:
        os.environ.pop("PEARL_EMBEDDING_CACHE", None)
    else:
        os.environ["PEARL_EMBEDDING_CACHE"] = ORIGINAL_CACHE
    start = time.perf_counter()
    for dataset in ("yago", "umls", "autofj"):
        TASKS[dataset].load("sweep")
    log(f"sweep pools ready ({time.perf_counter() - start:.1f} s; built once per checkout)")


def per_dataset(name: str, cache_file: Path, log) -> tuple[list[dict], object]:
    """The per-dataset rows (encoder GFLOP, seconds, score; no floor yet), and the model they were
    measured with."""
    model, seen, rows = fresh(name, cache_file), set(), []
    for dataset in DATASETS:
        inputs = TASKS[dataset].load("full")
        new = [p for p in dict.fromkeys(TASKS[dataset].texts(inputs)) if p not in seen]
        seen.update(new)
        start = time.perf_counter()
        encode(model, new)
        enc_s = time.perf_counter() - start
        start = time.perf_counter()
        result, _ = TASKS[dataset].run(model, inputs=inputs)
        eval_s = time.perf_counter() - start
        rows.append({"dataset": dataset, "new_phrases": len(new), "gflop": round(flops(model, new) / 1e9, 1),
                     "encode_s": round(enc_s, 2), "evaluate_s": round(eval_s, 2), "actual_s": round(enc_s + eval_s, 2),
                     "score": result["score"]})
        if "matmul_flops" in result:  # the PPDB probes' matrix products (both protocols), for the kernel bound
            probe = result["matmul_flops"] + result.get("paper_probe", {}).get("matmul_flops", 0)
            rows[-1]["probe_gflop"] = round(probe / 1e9, 1)
        log(f"  {dataset:<14} {len(new):>8,} new phrases  {rows[-1]['gflop']:9.1f} GFLOP  encode {enc_s:7.1f} s  "
            f"evaluate {eval_s:6.1f} s")
    return rows, model


def add_floors(rows: list[dict], rate: float, log) -> None:
    """Each row's floor (its GFLOP at ``rate``) and its ratio of actual seconds to that floor."""
    for row in rows:
        floor = row["gflop"] * 1e9 / rate
        row.update(floor_s=round(floor, 2), ratio=round(row["actual_s"] / floor, 2) if floor else None)
        log(f"  {row['dataset']:<14} floor {floor:7.1f} s  actual {row['actual_s']:7.1f} s  ratio {row['ratio']}")


def probe_threads(model, threads: int, log) -> dict:
    """The converged probe (three seeds) on PPDB-filtered's cached vectors, on one thread (the
    obvious alternative) and on ``threads``: seconds of each, the ratio, and whether the scores agree."""
    pairs = read_ppdb(True)
    left, right = encode(model, [p[0] for p in pairs]), encode(model, [p[1] for p in pairs])
    labels = np.array([p[2] for p in pairs])
    out = {}
    for n in (1, threads):
        with torch_threads(n):
            start = time.perf_counter()
            result = probe_scores(left, right, labels)
            out[f"{n}_thread_s"] = round(time.perf_counter() - start, 1)
            out[f"{n}_thread_accuracies"] = [r["test_accuracy"] for r in result["runs"]]
    out["ratio"] = round(out["1_thread_s"] / out[f"{threads}_thread_s"], 2)
    out["same_accuracies"] = out["1_thread_accuracies"] == out[f"{threads}_thread_accuracies"]
    log(f"  converged probe, 3 seeds, PPDB filtered: {out['1_thread_s']} s on 1 thread, {out[f'{threads}_thread_s']} s "
        f"on {threads} ({out['ratio']}x); same accuracies: {out['same_accuracies']}")
    return out


def table1_pass(name: str, cache_file: Path, size: str, reuse_scores: bool = True) -> tuple[float, dict]:
    """Seconds of one Table-1 pass, model loading included, and its scores."""
    start = time.perf_counter()
    model = fresh(name, cache_file)
    rows = scoring.run_model(name, model, DATASETS, size=size, log=lambda _: None, reuse_scores=reuse_scores)
    return time.perf_counter() - start, {r["dataset"]: r["score"] for r in rows}


def exact_passes(name: str, tmp: Path, floor: float | None, log) -> dict:
    """Cold, warm (vectors cached) and warm (scores reused too) Table-1 passes on one cache file."""
    cold, exact = table1_pass(name, tmp / "exact.sqlite", "full")
    warm_vectors, again = table1_pass(name, tmp / "exact.sqlite", "full", reuse_scores=False)
    warm_all, reused = table1_pass(name, tmp / "exact.sqlite", "full")
    out = {"cold_s": round(cold, 1), "warm_vectors_s": round(warm_vectors, 1), "warm_scores_s": round(warm_all, 1),
           "warm_vectors_over_cold": round(warm_vectors / cold, 3), "warm_scores_over_cold": round(warm_all / cold, 3),
           "scores": exact, "rescored_equal": exact == again, "reused_equal": exact == reused}
    if floor:
        out.update(floor_s=round(floor, 1), ratio_cold=round(cold / floor, 2))
    log(f"exact pass as Table 1 runs it: cold {cold:.1f} s" + (f" (ratio to floor {cold / floor:.2f})" if floor else "")
        + f"; warm, vectors cached: {warm_vectors:.1f} s ({100 * warm_vectors / cold:.1f} % of cold); "
        f"warm, scores reused: {warm_all:.1f} s ({100 * warm_all / cold:.1f} %); same scores: {exact == again}, {exact == reused}")
    return out


def compare_with_table1(record: dict, model: str, pearl: str | None, table: str = "results/table1.csv") -> dict:
    """Largest |score difference| between this run's exact passes and the committed Table 1."""
    import pandas as pd

    committed = pd.read_csv(table)
    runs = {model: record["exact"]["scores"]}
    if pearl and "pearl_exact" in record:
        runs[Path(pearl).name] = record["pearl_exact"]["scores"]
    out = {}
    for name, scores in runs.items():
        old = committed[committed["model"] == name].set_index("dataset")["score"]
        diffs = {d: abs(s - old[d]) for d, s in scores.items() if d in old and s == s}
        if diffs:
            where = max(diffs, key=diffs.get)
            out[name] = {"max_abs": round(diffs[where], 3), "where": TASKS[where].column, "per_dataset": diffs}
    return out


def groups(scores: dict) -> dict:
    out = {g: float(np.mean([scores[d] for d in names])) for g, names in GROUPS.items()}
    out["table1_average"] = float(np.mean([scores[d] for d in DATASETS]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="minilm")
    ap.add_argument("--pearl", help="a trained PEARL folder to score exact and sweep as well")
    ap.add_argument("--out", default="results/perf/scoring_floor.json")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", choices=("all", "exact", "compare"), default="all",
                    help="'exact': only the cold and warm exact passes, merged into --out; "
                         "'compare': only the comparison of --out's exact scores with results/table1.csv")
    args = ap.parse_args()
    if args.only == "compare":
        record = json.loads(Path(args.out).read_text())
        record["table1_unchanged"] = compare_with_table1(record, args.model, args.pearl)
        write_json(args.out, record)
        print(json.dumps(record["table1_unchanged"]))
        return
    torch.set_num_threads(args.threads)
    log = lambda msg: print(msg, flush=True)  # noqa: E731
    record = {"hardware": hardware(), "git_sha": git_sha(), "load_average_start": os.getloadavg()}
    rate = matmul_rate()
    record["matmul_gflops"] = round(rate / 1e9, 1)
    log(f"sustained fp32 matmul: {rate / 1e9:.0f} GFLOPS on {args.threads} threads")
    if args.only == "exact":
        record = json.loads(Path(args.out).read_text()) if Path(args.out).is_file() else record
        with tempfile.TemporaryDirectory() as tmp:
            record["exact"] = exact_passes(args.model, Path(tmp), record.get("per_dataset", {}).get("floor_s"), log)
        write_json(args.out, record)
        log(f"wrote {args.out}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        log(f"{args.model}: exact pass, dataset by dataset (fresh cache)")
        rows, model = per_dataset(args.model, tmp / "per_dataset.sqlite", log)
        # This machine's rate drifts during a run (207 GFLOPS at the start and 257 on the encoder's thin
        # shapes later in one run): the floor takes the faster of two measurements, before and after
        # the per-dataset pass, so that a slow moment does not flatter the ratio.
        again = matmul_rate()
        record["matmul_gflops_measured"] = [round(rate / 1e9, 1), round(again / 1e9, 1)]
        rate = max(rate, again)
        record["matmul_gflops"] = round(rate / 1e9, 1)
        log(f"sustained fp32 matmul again: {again / 1e9:.0f} GFLOPS; the floor uses {rate / 1e9:.0f}")
        add_floors(rows, rate, log)
        floor, actual = sum(r["floor_s"] for r in rows), sum(r["actual_s"] for r in rows)
        shapes = encoder_shapes_rate(encoder_config(model))
        record["probe_threads"] = probe_threads(model, args.threads, log)
        bound = kernel_bound(rows, rate, shapes, probe_shapes_rate(2 * model.dim))
        encode_s = sum(r["encode_s"] for r in rows)
        record["per_dataset"] = {"rows": rows, "floor_s": round(floor, 1), "actual_s": round(actual, 1),
                                 "ratio": round(actual / floor, 2), "encode_s": round(encode_s, 1),
                                 "encode_ratio": round(encode_s / floor, 2),
                                 "encoder_shapes_gflops": round(shapes / 1e9, 1),
                                 "floor_at_encoder_shapes_s": round(floor * rate / shapes, 1), "kernel_bound": bound}
        log(f"  total: floor {floor:.1f} s, actual {actual:.1f} s, ratio {actual / floor:.2f}; encoding alone "
            f"{encode_s:.1f} s, ratio {encode_s / floor:.2f}")
        log(f"  the encoder's own matrix shapes ({TOKENS_PER_BATCH['cpu']:,} tokens a batch) run at {shapes / 1e9:.0f} GFLOPS: "
            f"at that rate the floor is {floor * rate / shapes:.1f} s and encoding runs at "
            f"{encode_s / (floor * rate / shapes):.2f} times it")
        log(f"  kernel bound: the encoder's products at that rate plus the probes' {bound['probe_gflop']:,.0f} GFLOP at "
            f"{bound['probe_shapes_gflops']:.0f} GFLOPS (their shapes), every other step free: {bound['bound_s']:.1f} s, "
            f"{bound['bound_ratio']:.2f}x the floor ({bound['bound_at_square_rate_ratio']:.2f}x with every product at the "
            f"square rate)")
        record["exact"] = exact_passes(args.model, tmp, floor, log)
        exact = record["exact"]["scores"]
        models_to_compare = {args.model: exact}
        if args.pearl:
            seconds, pearl_exact = table1_pass(args.pearl, tmp / "pearl_exact.sqlite", "full")
            record["pearl_exact"] = {"seconds": round(seconds, 1), "scores": pearl_exact}
            models_to_compare[args.pearl] = pearl_exact
            log(f"{Path(args.pearl).name}: exact pass {seconds:.1f} s")
        build_pools(log)
        record["sweep"] = {}
        for name, exact_scores in models_to_compare.items():
            seconds, sweep = table1_pass(name, tmp / f"sweep_{Path(name).name}.sqlite", "sweep")
            ex, sw = groups(exact_scores), groups(sweep)
            record["sweep"][Path(name).name] = {"seconds": round(seconds, 1), "scores": sweep, "groups_exact": ex,
                                                "groups_sweep": sw,
                                                "average_difference": round(sw["table1_average"] - ex["table1_average"], 2)}
            log(f"{Path(name).name}: sweep {seconds:.1f} s; Table-1 average {sw['table1_average']:.2f} "
                f"(exact {ex['table1_average']:.2f}, difference {sw['table1_average'] - ex['table1_average']:+.2f})")
    if args.pearl:
        a, b = (record["sweep"][Path(n).name] for n in models_to_compare)
        same = {g: math.copysign(1, b["groups_exact"][g] - a["groups_exact"][g]) ==
                math.copysign(1, b["groups_sweep"][g] - a["groups_sweep"][g]) for g in a["groups_exact"]}
        record["sweep_same_sign_of_pearl_minus_backbone"] = same
        log(f"same sign of PEARL − {args.model} per group, sweep vs exact: {same}")
    record["table1_unchanged"] = compare_with_table1(record, args.model, args.pearl)
    record["load_average_end"] = os.getloadavg()
    write_json(args.out, record)
    log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
