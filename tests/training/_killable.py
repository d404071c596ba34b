"""A tiny training run that SIGKILLs itself at a chosen point (used by test_faults.py).

    python _killable.py RUN_DIR OUT [--kill-at STEP --kill-in step|write|between] [--resume-from FILE]

``step``: in the middle of step STEP (after its forward pass); ``write``: while writing the
checkpoint of step STEP, after the temporary file, before the rename; ``between``: after that
checkpoint, before its digest. SIGKILL, as the kernel's OOM killer or ``kill -9`` would: no
cleanup, no ``finally``. A run that finishes saves its final weights and log to OUT.
"""
import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/, for _tiny

import torch
from _tiny import (
    LABELS,
    swap_augmenter,
    tiny_backbone,
    tiny_corpus,
    tiny_hard_negatives,
)

STEPS, EVERY = 10, 2
CFG = dict(batch_size=8, lr=1e-3, char_dim=16, char_distill_steps=5, char_distill_vocab=64, epochs=3)


def die():
    os.kill(os.getpid(), signal.SIGKILL)


def kill_while_saving(kill_at: int, kill_in: str) -> None:
    """SIGKILL this process while :func:`pearl.checkpoint.save` writes the checkpoint of
    step ``kill_at``: ``write``: its temporary file half written, before the rename; ``between``:
    after the checkpoint, before its digest (also used by ../backbones/_mlm_killable.py)."""
    from pearl import checkpoint

    inner_write, inner_save = checkpoint.write_atomic, checkpoint.save
    armed = {"on": False}

    def save(run_dir, state):
        armed["on"] = state["step"] == kill_at
        return inner_save(run_dir, state)

    def write_atomic(path, data):
        if armed["on"] and kill_in == "write" and path.name == checkpoint.LATEST:
            tmp = path.with_name(f".{path.name}.killed.tmp")
            tmp.write_bytes(data[: len(data) // 2])  # the temp file half written, then killed
            die()
        if armed["on"] and kill_in == "between" and path.name.endswith(".sha256"):
            die()
        return inner_write(path, data)

    checkpoint.save, checkpoint.write_atomic = save, write_atomic


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("run_dir")
    ap.add_argument("out")
    ap.add_argument("--kill-at", type=int)
    ap.add_argument("--kill-in", choices=("step", "write", "between"), default="step")
    ap.add_argument("--resume-from")
    args = ap.parse_args()
    torch.set_num_threads(1)  # the same in every process: bit-identical sums on CPU

    from pearl.training import train

    if args.kill_at and args.kill_in == "step":
        inner = train.compute_loss

        def compute_loss(model, batch, cfg, world=1, total=None, **kw):
            out = inner(model, batch, cfg, world, total, **kw)
            if batch["step"] + 1 == args.kill_at:
                die()
            return out

        train.compute_loss = compute_loss
    elif args.kill_at:
        kill_while_saving(args.kill_at, args.kill_in)

    corpus = tiny_corpus(32)
    cfg = train.TrainConfig(steps=STEPS, checkpoint_every=EVERY, **CFG)
    result = train.train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS,
                         run_dir=args.run_dir, progress=False, backbone=tiny_backbone(),
                         resume_from=args.resume_from)
    torch.save({"weights": result.model.state_dict(), "losses": [r["loss"] for r in result.log]}, args.out)


if __name__ == "__main__":
    main()
