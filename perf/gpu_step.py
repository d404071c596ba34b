"""PEARL's training step fed from arrays, as the gpu profile runs it, against the device's own matmul rate.

Usage: PYTHONPATH=lib:perf .venv/bin/python perf/gpu_step.py [--device cuda] [--batch-size 512] [--steps 20]
       [--backbones minilm me5-small] [--compile] [--out FILE]

Per backbone: the model of the recipe (character encoder, type head, 4 length buckets), batches drawn
once into arrays (:mod:`pearl.training.arrays`: 2 hard negatives, widths rounded to a multiple of 8 and
the length buckets decided on the host on CUDA) and moved with ``non_blocking`` from pinned memory, bf16 autocast on CUDA (fp32 on a CPU), the
trainer's fused Adam (:func:`pearl.training.train.make_optimizer`), with the row-wise word-embedding
update and, on CUDA, also the dense one (the same weights up to float rounding, pearl.training.optim;
the row-wise one reads its step and active rows back from the device every step; the record's
``backbones`` row is the faster, ``by_update`` holds both),
and the loss read once at the end (``compute_loss(lazy=True)``: no host wait per step). Timed over
``--steps`` steps after 3 warm-up steps (``--compile``: ``torch.compile`` of the backbone, 5),
synchronised only at the two ends.

The FLOPs per phrase are counted in code (:func:`pearl.training.flops.step_flops`, on each step's
real lengths), and the share is the achieved FLOP/s over the device's own dense matmul rate measured
in the same run: bf16 8192 x 8192 on CUDA, fp32 2048 x 2048 on one CPU thread (this CPU's floor, not
a GPU number; a CPU run uses ``--batch-size 64`` by default and says so).

A backbone whose weights are not on the machine (me5-small travels to a lent GPU only as a pruned
copy, if at all) is built from its shapes with random weights: the step's cost does not depend on
the weights' values (the record says ``random_weights``). Writes ``results/perf/gpu_step_<device>.json``.
"""
from __future__ import annotations

import argparse
import os
import statistics
import time

import torch

#: the shapes of the backbones when their weights are absent (their config.json's)
SHAPES = {"minilm": dict(num_hidden_layers=6, hidden_size=384, intermediate_size=1536, num_attention_heads=12,
                         vocab_size=30522),
          "me5-small": dict(num_hidden_layers=12, hidden_size=384, intermediate_size=1536, num_attention_heads=12,
                            vocab_size=250037)}


def matmul_rate(device: str, repeats: int = 10) -> float:
    """The device's sustained dense matmul FLOP/s: bf16 8192 x 8192 on CUDA, fp32 2048 x 2048 on a CPU."""
    if device.startswith("cuda"):
        n, dtype = 8192, torch.bfloat16
    else:
        n, dtype = 2048, torch.float32
    a, b = torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype)
    times = []
    for i in range(repeats + 3):
        sync(device)
        t0 = time.perf_counter()
        a @ b
        sync(device)
        if i >= 3:
            times.append(time.perf_counter() - t0)
    return 2 * n ** 3 / statistics.median(times)


def sync(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def backbone_for(name: str):
    """``(module, tokenizer, random_weights)``: the backbone, or its shapes with random weights and
    MiniLM's tokenizer when its weights cannot be loaded here."""
    from pearl.models import load_backbone

    try:
        module, tok = load_backbone(name)
        return module, tok, False
    except Exception as err:  # noqa: BLE001 (any missing piece: weights, a converter's package)
        from transformers import BertConfig, BertModel

        print(f"{name}: weights not loadable here ({type(err).__name__}: {err}); random weights of its shapes")
        _, tok = load_backbone("minilm")
        return BertModel(BertConfig(**SHAPES[name]), add_pooling_layer=False), tok, True


def time_backbone(name: str, data, device: str, batch_size: int, steps: int, compile_: bool, update: str = "rows") -> dict:
    from pearl.training import arrays
    from pearl.training.batches import BatchPlan, Collator
    from pearl.training.flops import step_flops
    from pearl.training.model import build_model
    from pearl.training.optim import sparse_embedding_grads
    from pearl.training.train import TrainConfig, compute_loss, make_optimizer, read_parts, uses_bf16

    phrases, labels, negs, augmenter, _ = data
    module, tok, random_weights = backbone_for(name)
    torch.manual_seed(0)
    model = build_model(module).to(device).train()
    warm = 5 if compile_ else 3
    plan = BatchPlan(len(phrases), batch_size, seed=0, epochs=max(1, -(-(steps + warm) * batch_size // len(phrases))))
    collator = Collator(tok, phrases, labels, negs, augmenter, k=2, use_char=True, seed=0)
    t0 = time.perf_counter()
    drawn = arrays.draw(collator, plan, steps + warm, workers=os.cpu_count() or 1)
    draw_s = time.perf_counter() - t0
    cuda = device.startswith("cuda")
    feed = arrays.StepArrays(drawn, pad_multiple=8 if cuda else 1, buckets=4 if cuda else 1)
    cfg = TrainConfig(length_buckets=4, bf16=None, embedding_update=update)
    use_bf16 = uses_bf16(device, cfg)
    if compile_:
        model.backbone = torch.compile(model.backbone, dynamic=True)
    opt = make_optimizer(model, cfg)
    flops, parts = [], []
    with sparse_embedding_grads(model.backbone, update == "rows" and not compile_):
        for t in range(steps + warm):
            batch = feed.batch(t)
            if t == warm:
                sync(device)
                start = time.perf_counter()
            if t >= warm:
                flops.append(step_flops(model, batch))
            batch["inputs"] = {k: (v.pin_memory() if cuda else v).to(device, non_blocking=True) if torch.is_tensor(v)
                               else v for k, v in batch["inputs"].items()}
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
                loss, p = compute_loss(model, batch, cfg, lazy=True)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
            parts.append(p)
    sync(device)
    seconds = time.perf_counter() - start
    rate = matmul_rate(device)
    per_phrase = statistics.mean(flops) / batch_size
    phrases_per_s = batch_size * steps / seconds
    return {"random_weights": random_weights, "draw_s": round(draw_s, 2), "steps": steps, "step_s": round(seconds / steps, 4),
            "phrases_per_s": round(phrases_per_s, 1), "gflop_per_phrase": round(per_phrase / 1e9, 3),
            "achieved_tflops": round(phrases_per_s * per_phrase / 1e12, 3),
            "matmul_tflops": round(rate / 1e12, 3), "share_of_matmul_rate": round(phrases_per_s * per_phrase / rate, 4),
            "last_loss": round(read_parts(parts[-1])["loss"], 4), "bf16": use_bf16, "compiled": compile_,
            "embedding_update": update}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--batch-size", type=int, default=None, help="default 512 on CUDA, 64 on a CPU")
    ap.add_argument("--steps", type=int, default=None, help="timed steps (default 20 on CUDA, 2 on a CPU)")
    ap.add_argument("--backbones", nargs="+", default=["minilm", "me5-small"])
    ap.add_argument("--threads", type=int, default=1, help="torch threads on a CPU (the matmul rate uses the same)")
    ap.add_argument("--compile", action="store_true")
    ap.add_argument("--updates", nargs="+", choices=("rows", "dense"), default=None,
                    help="word-embedding updates to time (default both on CUDA: the row-wise one reads the step count "
                         "and the active rows back from the device, the dense one does not; rows on a CPU)")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    cuda = args.device.startswith("cuda")
    batch_size = args.batch_size or (512 if cuda else 64)
    steps = args.steps or (20 if cuda else 2)
    torch.set_num_threads(args.threads if not cuda else torch.get_num_threads())

    from batch_builder import inputs
    from pearl.paths import results_dir
    from pearl.provenance import hardware, stamp, write_json

    data = inputs(None)
    record = {"device": args.device, "gpu": torch.cuda.get_device_name() if cuda else None,
              "kind": "measured on CUDA" if cuda else "measured on a CPU: fp32 against this CPU's fp32 matmul floor, "
                                                      "not a GPU number",
              "batch_size": batch_size, "hard_negatives": 2, "source": data[-1],
              "load_average_start": [round(x, 2) for x in os.getloadavg()], "backbones": {}}
    updates = args.updates or (["rows", "dense"] if cuda else ["rows"])
    record["by_update"] = {}
    for name in args.backbones:
        rows = record["by_update"][name] = {u: time_backbone(name, data, args.device, batch_size, steps, args.compile, u)
                                            for u in updates}
        row = record["backbones"][name] = max(rows.values(), key=lambda r: r["phrases_per_s"])  # the faster update
        print(f"{name}: " + ", ".join(f"{u} update {r['phrases_per_s']:,.0f}" for u, r in rows.items()) + " phrases/s")
        print(f"{name}: {row['phrases_per_s']:,.0f} phrases/s at batch {batch_size}, {row['gflop_per_phrase']} GFLOP a "
              f"phrase, {row['achieved_tflops']} TFLOP/s = {row['share_of_matmul_rate']:.1%} of the measured "
              f"{'bf16' if cuda else 'fp32'} matmul rate ({row['matmul_tflops']} TFLOP/s)", flush=True)
    record["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    record.update(hardware=hardware(), **stamp())
    out = args.out or results_dir("perf", f"gpu_step_{'cuda' if cuda else 'cpu'}.json")
    write_json(out, record, indent=1)
    return record


if __name__ == "__main__":
    main()
