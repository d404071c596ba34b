"""One PEARL training step against its FLOP floor, per backbone, and what freezing the word embeddings saves.

Usage: .venv/bin/python perf/train_step_floor.py [--backbones minilm me5-small] [--steps 5] [--threads 2]

For each backbone it builds the cpu recipe's model and times, over ``--steps`` steps after two
warm-up ones on the same batches (batch 32: phrases, augmented copies and 2 hard negatives each, as
:func:`pearl.training.train.compute_loss` sees them), the forward pass, the backward pass and the
fused Adam step, in two settings:

- **trained** (the recipe): every parameter trained, so the word-embedding matrix gets a dense
  gradient and a dense Adam update every step (me5-small's 250K x 384 matrix is 96M of its 118M
  parameters, while a batch touches a few hundred rows);
- **frozen word embeddings**: the same step with the word-embedding matrix's ``requires_grad`` off.

The floor is ``6 x (non-embedding parameters) x (tokens in the step)`` FLOPs (forward 2, backward
4; attention's own products are small at these lengths and left out) at ``--gflops`` (the machine's
sustained fp32 rate: 240 on this 2-core CPU, see the README's notes). Writes
``results/perf/train_step_floor.json``. Timings drift with the machine's load: compare ratios
within one run, never across runs.
"""
from __future__ import annotations

import argparse
import json
import time

import torch


def step_times(model, batch, cfg, steps: int, frozen: bool) -> dict:
    """Median seconds of forward, backward and Adam over ``steps`` timed steps on one batch."""
    from pearl.training.train import compute_loss

    emb = model.backbone.get_input_embeddings().weight
    emb.requires_grad_(not frozen)
    opt = torch.optim.Adam([p for p in model.parameters() if p.requires_grad], lr=3e-5, fused=True)
    times = {"forward": [], "backward": [], "adam": []}
    for i in range(steps + 2):
        t0 = time.perf_counter()
        loss, _ = compute_loss(model, batch, cfg)
        t1 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        t2 = time.perf_counter()
        opt.step()
        t3 = time.perf_counter()
        if i >= 2:  # two warm-up steps: allocations, Adam's state
            for k, dt in zip(times, (t1 - t0, t2 - t1, t3 - t2)):
                times[k].append(dt)
    emb.requires_grad_(True)
    out = {k: float(torch.tensor(v).median()) for k, v in times.items()}
    return {**out, "step": sum(out.values())}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backbones", nargs="+", default=["minilm", "me5-small"])
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--gflops", type=float, default=240.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    from pearl.models import load_backbone
    from pearl.paths import results_dir
    from pearl.provenance import hardware, stamp, write_json
    from pearl.training.batches import BatchPlan, Collator
    from pearl.training.model import build_model
    from pearl.training.train import TrainConfig

    from train_throughput import timing_inputs  # the same phrases, stand-in negatives and augmenter

    phrases, labels, negs, augmenter, source = timing_inputs(4000)
    cfg = TrainConfig(length_buckets=4)
    record = {"threads": args.threads, "gflops": args.gflops, "steps": args.steps, "batch_size": 32, "phrases": source,
              "backbones": {},
              "hardware": hardware(), **stamp()}
    for name in args.backbones:
        backbone, tok = load_backbone(name)
        torch.manual_seed(0)
        model = build_model(backbone).train()
        collator = Collator(tok, phrases, labels, negs, augmenter, k=2, use_char=True)
        batch = collator(0, BatchPlan(len(phrases), 32, seed=0).indices(0))
        tokens = int(batch["inputs"]["attention_mask"].sum())
        emb = model.backbone.get_input_embeddings().weight.numel()
        dense = sum(p.numel() for p in model.parameters()) - emb
        floor = 6 * dense * tokens / (args.gflops * 1e9)
        trained = step_times(model, batch, cfg, args.steps, frozen=False)
        frozen = step_times(model, batch, cfg, args.steps, frozen=True)
        record["backbones"][name] = {
            "parameters": dense + emb, "word_embedding_parameters": emb, "tokens_per_step": tokens,
            "floor_s": round(floor, 4), "trained": {k: round(v, 4) for k, v in trained.items()},
            "frozen_word_embeddings": {k: round(v, 4) for k, v in frozen.items()},
            "trained_over_floor": round(trained["step"] / floor, 2),
            "frozen_over_floor": round(frozen["step"] / floor, 2),
            "frozen_speedup": round(trained["step"] / frozen["step"], 2)}
        print(name, json.dumps(record["backbones"][name]), flush=True)
    out = results_dir("perf", "train_step_floor.json") if args.out is None else args.out
    write_json(out, record, indent=1)
    return record


if __name__ == "__main__":
    main()
