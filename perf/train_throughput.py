"""Training throughput (phrases/s) of the PEARL trainer against a naive loop, in one run.

Usage: .venv/bin/python perf/train_throughput.py [--steps 30] [--batch-size 32] [--threads 2]

Both loops do the same work per step on the same batches: augment each phrase, draw 2 hard
negatives per phrase, embed phrases + copies + negatives with all-MiniLM-L6-v2 and the
character encoder, InfoNCE + type loss, backward, Adam step; both in fp32 on CPU.

- **naive** (the reference code's pattern): tokenisation inside the model's forward, one
  forward per group (phrases, copies, negatives), each padded to its own longest phrase;
- **ours** (:mod:`pearl.training.train`): tokenised in the collate of a DataLoader worker (which
  overlaps with the model's compute), one forward over the whole batch split into
  length-sorted slices (``length_buckets``), and a fused Adam (one kernel for every parameter).

It also times one Adam step alone on the same model's parameters: torch's CPU default (a loop
over the tensors), ``foreach`` and ``fused``.

Phrases/s counts the training phrases (not copies or negatives) per second, after one
warm-up step. Writes results/perf/train_throughput.json (or ``--out``). On a GPU (``--device cuda``) "ours"
also uses bf16 autocast, as in training.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import torch


def timing_inputs(n: int):
    """``n`` training phrases, their phrase-type labels, 3 stand-in hard negatives each (a fixed
    stride through the list: the step's cost, not their quality, matters here), a cheap augmenter
    (no synonym tables) and where the phrases came from: corpus phrases or, before the data
    notebook ran, PPDB phrases (a labelled stand-in). ``perf/train_step_floor.py`` times on them too."""
    from pearl.corpus.augment import Augmenter
    from pearl.corpus.phrases import LABELS

    try:
        from pearl.corpus.store import read_corpus

        corpus, source = read_corpus(), "phrases.tsv"
    except FileNotFoundError:
        from pearl.data import read_ppdb

        texts = list(dict.fromkeys(t for row in read_ppdb(True) for t in row[:2]))
        corpus, source = [(t, "NP-OTHER") for t in texts], "PPDB phrases (stand-in: no phrases.tsv yet)"
    corpus = corpus[:n]
    phrases, labels = [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus]
    negs = {p: [phrases[(i + j * 7919) % len(phrases)] for j in (1, 2, 3)] for i, p in enumerate(phrases)}
    augmenter = lambda rng: Augmenter(1, 1, 1, rng).augment  # noqa: E731
    return phrases, labels, negs, augmenter, source


def _adam_steps(model, device: str, repeat: int = 10) -> dict:
    """Seconds per Adam step over ``model``'s parameters (random gradients), per implementation."""
    params = [p for p in model.parameters() if p.requires_grad]
    grads = [torch.randn_like(p) for p in params]
    out = {}
    for name, kw in {"for_loop": dict(foreach=False), "foreach": dict(foreach=True), "fused": dict(fused=True)}.items():
        copies = [torch.nn.Parameter(p.detach().clone()) for p in params]
        for c, g in zip(copies, grads):
            c.grad = g
        opt = torch.optim.Adam(copies, lr=1e-5, **kw)
        opt.step()  # state allocated outside the clock
        t0 = time.perf_counter()
        for _ in range(repeat):
            opt.step()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        out[name] = round((time.perf_counter() - t0) / repeat, 4)
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--compile", action="store_true", help="CUDA: also time ours with torch.compile (after 3 warm-up steps)")
    ap.add_argument("--out", default=None, help="where the JSON record goes (default: results/perf/train_throughput.json)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)

    from pearl.training.batches import BatchPlan, Collator, StepDataset
    from pearl.models import load_backbone
    from pearl.paths import results_dir
    from pearl.provenance import write_json
    from pearl.training.model import build_model
    from pearl.training.train import TrainConfig, compute_loss, uses_bf16

    phrases, labels, negs, augmenter, source = timing_inputs(args.batch_size * (args.steps + 1) * 2)
    backbone, tok = load_backbone("minilm")
    torch.manual_seed(0)
    model = build_model(backbone).to(args.device).train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-5)
    adam = _adam_steps(model, args.device)
    plan = BatchPlan(len(phrases), args.batch_size, seed=0)
    n = args.steps + 1  # + warm-up
    results = {}

    def clock():  # CUDA work is asynchronous: wait for it before reading the clock
        if args.device.startswith("cuda"):
            torch.cuda.synchronize()
        return time.perf_counter()

    # naive: everything inside the step, tokenising inside forward, one forward per group
    collator = Collator(tok, phrases, labels, negs, augmenter, k=2, use_char=True)
    naive_cfg = TrainConfig(length_buckets=1)

    def naive_step(step):
        originals, augmented, negatives, lab = collator.texts(step, plan.indices(step))
        outs = [model(**{k: v.to(args.device) for k, v in model.inputs(tok, group).items()})
                for group in (originals, augmented, negatives)]
        emb = torch.cat([o.embedding for o in outs])
        logits = torch.cat([o.type_logits for o in outs])
        fake = type("Out", (), {"embedding": emb, "type_logits": logits})
        batch = {"n": len(originals), "labels": torch.tensor(lab), "inputs": {}}
        loss, _ = compute_loss(lambda **_: fake, batch, naive_cfg)
        opt.zero_grad()
        loss.backward()
        opt.step()

    for i in range(n):
        if i == 1:
            t0 = clock()
        naive_step(i)
    results["naive"] = args.batch_size * args.steps / (clock() - t0)

    # ours: collate in DataLoader workers, one bucketed forward, bf16 on CUDA, fused Adam (as pearl.training.train)
    opt = torch.optim.Adam(model.parameters(), lr=1e-5, fused=True)
    cfg = TrainConfig(length_buckets=4)
    use_bf16 = uses_bf16(args.device, cfg)

    def ours(warm: int) -> float:
        """Phrases/s over ``args.steps`` steps after ``warm`` untimed ones."""
        loader = torch.utils.data.DataLoader(StepDataset(plan, collator, 0, args.steps + warm), batch_size=None,
                                             num_workers=args.workers)
        for i, batch in enumerate(loader):
            if i == warm:
                t0 = clock()
            batch["inputs"] = {k: v.to(args.device) for k, v in batch["inputs"].items()}
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=use_bf16):
                loss, _ = compute_loss(model, batch, cfg)
            opt.zero_grad()
            loss.backward()
            opt.step()
        return args.batch_size * args.steps / (clock() - t0)

    results["ours"] = ours(warm=1)
    if args.compile and args.device.startswith("cuda"):  # as TrainConfig(compile=True): backbone, dynamic shapes
        model.backbone = torch.compile(model.backbone, dynamic=True)
        results["ours_compiled"] = ours(warm=3)  # the first steps compile

    record = {"phrases_per_s": {k: round(v, 1) for k, v in results.items()},
              **{f"ratio{k[4:]}": round(v / results["naive"], 3) for k, v in results.items() if k.startswith("ours")},
              "adam_step_s": adam, "steps": args.steps,
              "batch_size": args.batch_size, "threads": args.threads, "device": args.device,
              "workers": args.workers, "data": source}
    print(json.dumps(record, indent=1))
    out = results_dir("perf", "train_throughput.json") if args.out is None else Path(args.out)
    write_json(out, record, indent=1)
    return record


if __name__ == "__main__":
    main()
