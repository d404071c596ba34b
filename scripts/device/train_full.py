"""Device: the gpu profile at its full size, one seed, fed from arrays drawn on every core; one model folder.

    python3 scripts/device/train_full.py --seed 0 --epochs 2 [--workers N] [--tiny] [--backbone minilm]

Trains the ``gpu`` profile (:data:`pearl.training.profiles.PROFILES`: every phrase of the corpus under
``$PEARL_OUTPUT/data/derived``, batch 512, bf16, ``feed="arrays"``) with ``--epochs`` passes (2, the
profile's, or 4: the paper's 7.6M views on a corpus of half its phrases) and the batches drawn by
``--workers`` processes (default every core), exports it to ``models/pearl-<backbone>-seed<N>`` and
prints one JSON line: the drawing's and the loop's seconds, steps, phrases and phrases/s. ``--tiny``
is the profile's rehearsal sizes (:data:`pearl.training.profiles.SMALL`), for a check of the path.

What it leaves out: scoring (``score.py``), the bundle (``setup.sh``), data parallel.
"""
from __future__ import annotations

import argparse
import json
import os
import time


def main(argv=None) -> dict:
    from pearl import models
    from pearl.paths import models_dir
    from pearl.training.methods import inputs_for
    from pearl.training.profiles import config_for, load_training_data, refuse_cli_run, train_and_export

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=2, choices=(2, 4))
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="processes drawing the batches")
    ap.add_argument("--backbone", default="minilm")
    ap.add_argument("--tiny", action="store_true", help="the gpu profile's rehearsal sizes")
    ap.add_argument("--replace", action="store_true", help="replace the model folder when one is there already")
    args = ap.parse_args(argv)
    cfg, data = config_for("gpu", "small" if args.tiny else "full", backbone=args.backbone, seed=args.seed, epochs=args.epochs,
                           num_workers=args.workers)
    corpus, negs, tables = load_training_data(**data)
    corpus, augmenter = inputs_for(cfg, corpus, tables)
    name = models.folder_name(cfg.objective, args.backbone, args.seed)
    size = "rehearsal" if args.tiny else "full"
    # before ten minutes of training, not after: a model already there stays unless --replace
    refuse_cli_run(models_dir(name), "tiny" if args.tiny else "gpu", args.replace)
    t0 = time.perf_counter()
    # the one train-and-export path (the runner's): pearl.json gets the config, seconds and phrases
    result = train_and_export(cfg, corpus, negs, augmenter, models_dir(name), run_dir=models_dir("runs", name),
                              progress=False, extra={"full_size_run": {"size": size, "draw_workers": args.workers}},
                              replace=args.replace)
    total = time.perf_counter() - t0
    phrases = result.steps * cfg.batch_size  # this call's; a call that resumed began at first_step
    record = {"seed": args.seed, "backbone": args.backbone, "epochs": cfg.epochs, "corpus_phrases": len(corpus),
              "steps": result.first_step + result.steps, "resumed_at_step": result.first_step,
              "batch_size": cfg.batch_size, "views": (result.first_step + result.steps) * cfg.batch_size,
              "draw_workers": args.workers,
              "train_loop_s": round(result.seconds, 1), "train_and_export_s": round(total, 1),
              "loop_phrases_per_s": round(phrases / result.seconds, 1), "size": size}
    print(json.dumps(record), flush=True)
    return record


if __name__ == "__main__":
    main()
