"""Training profiles and the glue the training notebook calls: data in, trained folders out.

Profiles (``PROFILES``), all on the same code path (:func:`pearl.training.train.train`):

- ``tiny``: a few steps on a 64-phrase slice, one seed: exercises every part in seconds (tests);
- ``cpu``: the default of ``make reproduce``: 150 steps at batch 32, sized so that the whole batch
  fits in three hours on 2 cores (notebook 03's record holds a seed's training time, notebook 04's
  the Table-1 scoring time, most of it the stand-in retrieval dictionaries). The
  paper's lr of 3e-5 for the model, but the type head at 1e-2 (at 3e-5 a new head is still
  near the uniform guess after a few hundred steps: :func:`pearl.training.train.param_groups`) and the
  character part at weight 0.25 (0.5 cost BIRD and the clustering tasks in the tuning runs), capped
  by the composition rule as every profile's is (``TrainConfig.max_char_share``, ``centre=None``:
  :mod:`pearl.training.composition`; the sweep of both backbones in ``results/composition.md``). ``scripts/tuning/tune_cpu_profile.py`` and results/tuning/cpu_profile.jsonl hold
  what was tried: lr 1e-4 (the model fell below the untrained MiniLM on the development
  subset), with and without hard negatives or the type head, all phrases
  instead of those with mined hard negatives, 150/200/250/500 steps, averaging ratios 0.3/0.5/0.7/1.0;
- ``gpu``: the paper's scale: 2 epochs over every phrase of notebook 01's corpus (the whole
  Wikipedia copy at the paper's frequency filter by default:
  :data:`pearl.corpus.summary.PROFILE_CORPUS`), batch 512,
  lr 3e-5 decayed by 0.98 every 2,000 steps, bf16, hard negatives for every phrase, its batches drawn
  once into arrays and gathered by index (``feed="arrays"``: the same batches as the Collator's). Run once on a
  lent H100 on WikiText-2 (seed 0; ``scripts/device``; its timing in ``results/gpu``). What still differs from the paper: ``results/gpu_profile_deviations.md``
  (``scripts/gpu_profile_deviations.py``).

A profile comes in two sizes (:data:`PROFILE_SIZES`): ``"full"``, the profile as it is, and
``"small"``, which runs the ``gpu`` profile's code paths at the sizes of :data:`SMALL` (a few steps
on a few hundred phrases: a check of the path on a CPU, :func:`config_for` with ``profile_size``).

>>> PROFILES["gpu"]["batch_size"], PROFILES["gpu"]["lr"]
(512, 3e-05)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from .. import checkpoint, models, paths
from ..corpus import variants
from ..corpus.augment import load_lexicons
from ..corpus.hard_negatives import HardNegatives, read_hard_negatives
from ..corpus.phrases import LABELS
from ..corpus.store import read_corpus
from ..guard import OPEN, Guard
from ..paths import models_dir
from . import objectives
from .batches import LAYOUTS, layout_variant
from .export import export
from .methods import inputs_for, variant_for
from .train import TrainConfig, TrainResult, train

PROFILES = {
    "tiny": dict(steps=4, batch_size=8, lr=1e-4, head_lr=1e-2, char_weight=0.25, max_phrases=64, anchors_only=False, char_distill_steps=5,
                  char_distill_vocab=128),
    # 150 x 32 = 4,800 phrases: fewer than the ~9,300 mined anchors, so every phrase seen has
    # its own hard negatives (anchors_only). The development score is flat in the steps (64.13 at
    # 150, 64.14 at 200, 64.12 at 250, 63.93 at 500: results/tuning/cpu_profile.jsonl), and 150
    # is projected to keep the 48 models of a whole cpu-profile run inside its three hours
    "cpu": dict(steps=150, batch_size=32, lr=3e-5, head_lr=1e-2, char_weight=0.25, max_phrases=None,
                anchors_only=True, checkpoint_every=100),
    # fed from arrays (pearl.training.arrays: the Collator's batches, drawn once by num_workers processes
    # before the loop), the loss read every 50 steps: the GPU never waits on the host's Python
    "gpu": dict(steps=None, epochs=2, batch_size=512, lr=3e-5, max_phrases=None, anchors_only=False, num_workers=4,
                checkpoint_every=1000, feed="arrays", log_every=50),
}

#: the sizes a profile comes in (:func:`config_for`'s ``profile_size``): the profile as it is, or small
PROFILE_SIZES = ("full", "small")
#: what the small size (``config_for(..., profile_size="small")``) changes in the ``gpu`` profile: 2 epochs over
#: 160 phrases at batch 40 (8 steps; Table 4's 30 % of them still give the character encoder's
#: distillation its 64 words), a checkpoint every 4 steps (a killed run resumes: the resume test
#: kills one mid-training), a small distillation; DataLoader workers, the epochs-based schedule
#: and every phrase's hard negatives stay
SMALL = dict(batch_size=40, max_phrases=160, num_workers=2, checkpoint_every=4, char_distill_steps=5,
                 char_distill_vocab=128)

#: the PEARL seeds Table 1 scores in full (notebook 04). The gpu profile scores the three seeds
#: as the paper's scale asks; the cpu profile scores seed 0 alone, as the paper's Table 1 shows
#: one model: an exact pass costs 15-18 minutes a model on 2 cores, and the seed spread is measured
#: by the sweep suite (Tables 3 and 4, three seeds each)
TABLE1_SEEDS = {"tiny": [0], "cpu": [0], "gpu": [0, 1, 2]}
#: the seeds of each new point of Figure 5 (notebook 10): one on the cpu profile (its band is the
#: seed noise), three on the gpu profile, as the paper averages three fine-tunings
FIGURE5_SEEDS = {"tiny": [0], "cpu": [0], "gpu": [0, 1, 2]}



def given(**settings) -> dict:
    """The ``settings`` a notebook sets, without those left ``None`` (they take the profile's value).

    >>> given(steps=None, lr=3e-5)
    {'lr': 3e-05}
    """
    return {k: v for k, v in settings.items() if v is not None}


def table1_folders(pattern: str | None, profile: str, guard: Guard = OPEN) -> list:
    """The trained PEARL folders Table 1 scores: those matching the glob ``pattern`` under
    ``models/``; for ``None``, the MiniLM seeds of :data:`TABLE1_SEEDS` for ``profile``; none for ``""``.
    Each goes to ``guard.check_input`` (:func:`pearl.models.named_folders`)."""
    patterns = [pattern] if pattern is not None else [models.folder_name("pearl", "minilm", s) for s in TABLE1_SEEDS[profile]]
    return [d for p in patterns for d in models.named_folders(p, guard)]


def data_summary(corpus: list, hard_negatives: dict | None, cfg: TrainConfig) -> dict:
    """What a run trains on, in numbers: phrases, phrase types used, phrases with hard negatives,
    and the config's steps, batch size and learning rate."""
    negatives = hard_negatives or {}
    return {"phrases": len(corpus), "labels used": len({t for _, t in corpus}),
            "phrases with hard negatives": sum(p in negatives for p, _ in corpus),
            "steps per seed": cfg.steps, "batch size": cfg.batch_size, "lr": cfg.lr}


def config_for(profile: str, profile_size: str = "full", **overrides) -> tuple[TrainConfig, dict]:
    """(TrainConfig, data options for :func:`load_training_data`) of a profile, with overrides
    (``None`` values are ignored). With an ``objective`` override, that objective's ``defaults``
    (:data:`pearl.training.objectives.OBJECTIVES`, e.g. SimCSE's τ = 0.05) come between the
    profile and the other overrides; the overrides may name the objective's own settings
    (``label_share=0.05`` for PAUSE). At ``profile_size`` ``"small"`` the ``gpu`` profile takes
    :data:`SMALL`'s sizes (the other profiles are small already and stay as they are).

    >>> cfg, _ = config_for("cpu", objective="simcse"); cfg.temperature, cfg.use_char
    (0.05, False)
    """
    if profile not in PROFILES:
        raise ValueError(f"unknown profile {profile!r}; choose from {', '.join(PROFILES)}")
    if profile_size not in PROFILE_SIZES:
        raise ValueError(f"unknown profile size {profile_size!r}; choose from {', '.join(PROFILE_SIZES)}")
    overrides = {k: v for k, v in overrides.items() if v is not None}
    objective = overrides.pop("objective", "pearl")
    small = SMALL if profile_size == "small" and profile == "gpu" else {}
    values = {**PROFILES[profile], **small, **objectives.get(objective).defaults, **overrides}
    data = {k: values.pop(k) for k in ("max_phrases", "anchors_only") if k in values}
    return TrainConfig.of(objective, **values), data


#: what makes usable training data, said when a guard refuses the data it finds
FULL_DATA_FIX = ("build the phrase corpus and its lexicons at full size into this output root (pearl.corpus.build, "
                 "pearl.corpus.training_inputs), or point $PEARL_OUTPUT at the root holding full-size data")


def check_training_data(where: dict, guard: Guard = OPEN) -> None:
    """``guard.check_input`` on each file training reads: the corpus, the augmentation lexicons'
    ``meta.json`` and the hard negatives, with :data:`FULL_DATA_FIX` as the fix."""
    for path in (where.get("corpus") or paths.derived_dir("phrases.tsv"),
                 Path(where.get("augment") or paths.derived_dir("augment")) / "meta.json",
                 where.get("hard_negatives") or paths.derived_dir("hard_negatives.json")):
        guard.check_input(path, FULL_DATA_FIX)


def load_training_data(max_phrases: int | None = None, anchors_only: bool = False, seed: int = 0, corpus: str = "",
                       guard: Guard = OPEN):
    """(corpus, hard negatives, augmentation lexicons) from the data notebooks' outputs, or from the
    named corpus ``corpus`` of :data:`pearl.corpus.variants.CORPORA` (built by its ``prepare``).
    Whether a run uses the hard negatives is its config's count alone (:class:`pearl.training.batches.Collator`).
    Each file goes to ``guard.check_input`` first (:func:`check_training_data`).
    The hard negatives carry the whole corpus' type labels (:class:`pearl.corpus.hard_negatives.HardNegatives`:
    the reference batch layout labels each negative's row, and a negative need not be a training phrase).

    ``anchors_only`` keeps the phrases that have mined hard negatives (on a CPU the mining
    covers the most frequent phrases only); ``max_phrases`` then keeps a random subset of
    that many phrases (same seed, same subset).
    """
    where = variants.files(corpus) if corpus else {}
    check_training_data(where, guard)
    lexicons = load_lexicons(where.get("augment"))
    negs = read_hard_negatives(where.get("hard_negatives"))  # they also choose the anchors: an ablation without them trains on the same phrases
    corpus = read_corpus(where.get("corpus"))
    negs = HardNegatives(negs, corpus)
    if anchors_only:
        corpus = [row for row in corpus if negs.get(row[0])]
    if max_phrases and len(corpus) > max_phrases:
        keep = np.random.default_rng(seed).choice(len(corpus), max_phrases, replace=False)
        corpus = [corpus[i] for i in sorted(keep)]
    return corpus, negs, lexicons


def train_and_export(cfg: TrainConfig, corpus, hard_negatives, augmenter, out_dir: str | Path,
                     run_dir: str | Path | None = None, progress: bool = True, extra: dict | None = None,
                     guard: Guard = OPEN, replace: bool = False) -> TrainResult:
    """Train one model and export it to ``out_dir`` (a folder ``pearl.models.load_model`` reads),
    through ``guard`` (:func:`pearl.training.export.export`; a model there is replaced only with ``replace``)."""
    result = train(cfg, corpus, hard_negatives, augmenter, labels=list(LABELS), run_dir=run_dir, progress=progress)
    export(result.model, result.tokenizer, out_dir, labels=list(LABELS), max_length=cfg.max_length,
           extra={"train_config": cfg.record(), "train_seconds": round(result.seconds, 1),
                  "train_phrases": len(corpus), **(extra or {})}, guard=guard, replace=replace)
    if run_dir is not None:  # exported: the checkpoints (3x the model's size) have served
        checkpoint.discard(run_dir)
    return result


def noted_inputs(where: dict | None = None) -> list[Path]:
    """The training data (the corpus, the lexicons) written under a caller's note
    (:func:`pearl.guard.noted`: what a guarded run, such as the harness's tiny SMOKE run, writes
    into their metadata), as the metadata files that say so."""
    from ..guard import metadata_of, noted

    where = where or {}
    inputs = (Path(where.get("corpus") or paths.derived_dir("phrases.tsv")).parent / "corpus.json",
              Path(where.get("augment") or paths.derived_dir("augment")))
    return [metadata_of(p) for p in inputs if noted(p)]


def refuse_cli_run(folder: Path, profile: str, replace: bool, where: dict | None = None) -> None:
    """The command line's checks, before it trains: a model already in ``folder`` is kept unless
    ``replace``; a profile other than ``tiny`` refuses training data written under a caller's note
    (:func:`noted_inputs`: a tiny run's data would give a model that says nothing of it). ``SystemExit``
    naming the file and the fix."""
    if not replace and folder.exists() and any(folder.iterdir()):
        raise SystemExit(f"{folder} holds a model already and nothing replaces it unasked: pass --replace to "
                         "train it again, or delete the folder")
    noted = noted_inputs(where) if profile != "tiny" else []
    if noted:
        raise SystemExit(f"{noted[0]} carries a note of the run that wrote it (a tiny SMOKE run's data, or unreadable), "
                         f"and the {profile!r} profile trains a model that would say nothing of it: {FULL_DATA_FIX}, "
                         "or train with --profile tiny")


def main(argv=None) -> None:
    """Command line, also the multi-GPU entry point::

        torchrun --nproc_per_node 4 -m pearl.training.profiles --profile gpu --seed 0
        python -m pearl.training.profiles --profile cpu --seed 1 --lr 1e-4

    Under ``torchrun`` (``WORLD_SIZE`` set) it joins the process group (NCCL on CUDA, gloo
    otherwise); rank 0 exports to ``models/pearl-<backbone>-seed<N>``.
    """
    import argparse
    import os

    ap = argparse.ArgumentParser(description="Train and export one PEARL model")
    ap.add_argument("--profile", default="cpu", choices=sorted(PROFILES))
    ap.add_argument("--backbone", default="minilm")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--steps", type=int)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--max-phrases", type=int)
    ap.add_argument("--objective", choices=list(objectives.OBJECTIVES))
    ap.add_argument("--label-share", type=float, help="PAUSE: share of positive pairs labelled, in (0, 1]")
    ap.add_argument("--profile-size", choices=PROFILE_SIZES, default="full",
                    help="small: the gpu profile at SMALL's sizes (a minute's check of the path)")
    ap.add_argument("--batch-layout", "--batch-composition", dest="batch_composition", choices=LAYOUTS,
                    help="the batch layout: hard negatives as extra candidates (default) or as rows of their own "
                         "(the authors' loader); --batch-composition is its older spelling")
    ap.add_argument("--replace", action="store_true", help="replace the model folder when one is there already")
    args = ap.parse_args(argv)
    cfg, data = config_for(args.profile, args.profile_size, backbone=args.backbone, seed=args.seed, steps=args.steps,
                           batch_size=args.batch_size, lr=args.lr, max_phrases=args.max_phrases,
                           objective=args.objective, label_share=args.label_share,
                           batch_composition=args.batch_composition)
    rank = 0
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        import torch
        import torch.distributed as dist

        dist.init_process_group("nccl" if torch.cuda.is_available() else "gloo")
        rank = dist.get_rank()
    name = models.folder_name(cfg.objective, args.backbone, args.seed,
                              variant_for(cfg) or layout_variant(cfg.batch_composition))
    refuse_cli_run(models_dir(name), args.profile, args.replace)  # before any training: no hour spent on a refusal
    corpus, negs, lexicons = load_training_data(**data)
    corpus, augmenter = inputs_for(cfg, corpus, lexicons)
    result = train(cfg, corpus, negs, augmenter, labels=list(LABELS),
                   run_dir=models_dir("runs", name), progress=rank == 0)
    if rank == 0:  # under $PEARL_OUTPUT, or the repository (pearl.paths.output_root)
        export(result.model, result.tokenizer, models_dir(name), labels=list(LABELS), max_length=cfg.max_length,
               extra={"train_config": cfg.record(), "train_seconds": round(result.seconds, 1),
                      "profile": args.profile, "profile_size": args.profile_size}, replace=args.replace)
        checkpoint.discard(models_dir("runs", name))
        print("exported", models_dir(name))


if __name__ == "__main__":
    main()
