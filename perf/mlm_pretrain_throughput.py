"""Pretraining throughput of the ``mlm-wiki`` masked LM (:mod:`pearl.backbones.mlm_pretrain`) against its FLOP floor.

Usage: .venv/bin/python perf/mlm_pretrain_throughput.py [--steps 8] [--threads 1 2] [--batch 128]

Times full training steps at the default config (masking, forward, masked-position head,
backward, clipping, AdamW) on random token ids (the corpus is not read: the cost of a step does
not depend on which ids it holds), after one warm-up step, for each thread count. Reports
tokens/s (all positions of the sequences) and the achieved GFLOPS from
:func:`pearl.backbones.mlm_pretrain.step_flops`, against the machine's fp32 floor (``--peak-gflops``, about 240
here: the matrix-multiply peak measured on this CPU), and the projected time of the default
run. Writes results/perf/mlm_pretrain_throughput.json (or ``--out``).
"""
from __future__ import annotations

import argparse
import dataclasses
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batch", type=int, default=None, help="sequences per step (default: the config's)")
    ap.add_argument("--peak-gflops", type=float, default=240.0)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()

    import torch

    from pearl.backbones import mlm_pretrain as mlm
    from pearl import paths
    from pearl.provenance import git_state, hardware, write_json

    config = mlm.CONFIG if args.batch is None else dataclasses.replace(mlm.CONFIG, batch=args.batch)
    tok = mlm.tokenizer(config.max_tokens)
    flops = mlm.step_flops(config, len(tok))
    rows = []
    for threads in args.threads:
        torch.set_num_threads(threads)
        torch.manual_seed(0)
        model = mlm.new_model(config, len(tok), tok.pad_token_id).train()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        ids = torch.randint(1000, len(tok), (config.batch, config.max_tokens))
        ids[:, 0], ids[:, -1] = tok.cls_token_id, tok.sep_token_id
        times = []
        for step in range(args.steps + 1):
            t0 = time.perf_counter()
            inputs, labels = mlm.mask_tokens(ids, tok, mlm._generator(0, step), config.mask_prob)
            loss, _, _ = mlm.masked_lm_loss(model, inputs, labels)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.clip)
            opt.step()
            times.append(time.perf_counter() - t0)
        step_s = sum(times[1:]) / args.steps  # the first step warms up allocators and kernels
        gflops = flops / step_s / 1e9
        rows.append({"threads": threads, "step_s": round(step_s, 4),
                     "tokens_per_s": round(config.batch * config.max_tokens / step_s),
                     "gflops": round(gflops, 1), "share_of_floor": round(gflops / args.peak_gflops, 3),
                     "floor_step_s": round(flops / (args.peak_gflops * 1e9), 4),
                     "projected_run_min": round(step_s * config.steps / 60, 1)})
        print(rows[-1], flush=True)
    out = args.out or paths.results_dir("perf") / "mlm_pretrain_throughput.json"
    write_json(out, {"benchmark": "mlm_pretrain_throughput", "config": dataclasses.asdict(config),
                     "step_gflop": round(flops / 1e9, 2), "peak_gflops": args.peak_gflops, "steps_timed": args.steps,
                     "rows": rows, "provenance": {**git_state(), "hardware": hardware()}})
    print("wrote", out)


if __name__ == "__main__":
    main()
