"""How far the trainer's row-wise word-embedding update departs from dense Adam on a real backbone,
beside what float32 rounding alone does to the same run: the check ``perf/train_step_floor.py``
records beside its step times (issue #68).

For one backbone it trains the first ``steps`` steps of the cpu profile's recipe (notebook 03's
config, its phrases with mined hard negatives and its augmentation lexicons, from ``data/derived``;
one seed, so the same batches, augmentations and dropout masks) three times, from the same
pre-trained weights:

- **dense**: ``embedding_update="dense"``, torch's Adam over every row of the word embeddings;
- **rows**: the recipe's row-wise update (:class:`pearl.training.optim.RowAdam`);
- **rounding**: dense again, with every word embedding nudged by one float32 spacing
  (``torch.nextafter``) as the training loop starts: what rounding alone does to this run, the
  yardstick of ``tests/training/test_optim.py`` on the tiny backbone. The nudge comes after the
  character encoder's distillation and the phrase centre, which the three runs share bit for
  bit: nudged before them, the distillation's steps turn one spacing into differences of 0.15 in
  the character encoder (measured on MiniLM), which say nothing about the update.

Rounding is not small everywhere in such a run: Adam divides each step by the gradient's own
scale, so a weight whose gradient is rounding noise or near zero (an attention key's bias, which
the softmax ignores) moves by a sizeable part of the learning rate whichever way the noise falls,
and two runs that differ by one rounding differ there by that much after a few steps.

Each of rows and rounding is compared with dense: the largest absolute difference of any weight
(and the tensors where the largest lie), of the word embeddings alone, the largest difference in
float32 spacings of its tensor's largest weight, and the largest cosine departure (1 - cos, in
float64) of the embeddings of a fixed set of phrases (the corpus's first ``phrases``). Beside them:
how far the dense run moved the backbone from its pre-trained weights, and the float32 spacing at
the largest weight.

What it leaves out: the runs stop after ``steps`` steps (``train(stop_at=...)``), before the
weight averaging, whose arithmetic is the same for both updates; and scores: weights that depart
from dense no more than rounding does give the same scores up to that rounding, so no seeds are
trained to compare scores.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib
from unittest import mock

import torch

EPS = torch.finfo(torch.float32).eps


def training_inputs(cfg, data_options: dict) -> tuple[list, dict, object]:
    """(corpus rows, hard negatives, augmenter factory) of the cpu profile, as notebook 03 trains
    on them; ``FileNotFoundError`` naming the missing file and the notebook that writes it."""
    from pearl.training.methods import inputs_for
    from pearl.training.profiles import load_training_data

    corpus, negs, tables = load_training_data(**data_options)
    corpus, augmenter = inputs_for(cfg, corpus, tables)
    return corpus, negs, augmenter


def nudge(module: torch.nn.Module) -> None:
    """Make each of ``module``'s word embeddings one float32 spacing larger, in place."""
    with torch.no_grad():
        w = module.get_input_embeddings().weight
        w.copy_(torch.nextafter(w, torch.tensor(float("inf"))))


@contextlib.contextmanager
def nudged_at_start():
    """Within the block, :func:`pearl.training.train.train` applies :func:`nudge` to the backbone as it
    makes its optimiser: after the distillation and the centre, before the first step."""
    trainer = importlib.import_module("pearl.training.train")
    make = trainer.make_optimizer

    def nudge_then_make(model, cfg):
        nudge(model.backbone)
        return make(model, cfg)

    with mock.patch.object(trainer, "make_optimizer", nudge_then_make):
        yield


def run(cfg, inputs: tuple, backbone: tuple, steps: int):
    """The model after the first ``steps`` steps of ``cfg`` on ``inputs`` from ``backbone``
    (module, tokenizer), the module trained in place."""
    from pearl.corpus.phrases import LABELS
    from pearl.training.train import train

    corpus, negs, augmenter = inputs
    return train(cfg, corpus, negs, augmenter, labels=list(LABELS), stop_at=steps, progress=False,
                 backbone=backbone).model


def weight_gaps(ref: dict, other: dict) -> dict[str, float]:
    """Per floating-point tensor of two state dicts, the largest absolute difference."""
    return {k: float((ref[k] - other[k]).abs().max()) for k in ref if ref[k].is_floating_point() and ref[k].numel()}


def departure(ref, other, word_key: str, ref_emb: torch.Tensor, other_emb: torch.Tensor) -> dict:
    """How far model ``other`` lies from ``ref``: weights (every one, the word embeddings, in
    float32 spacings of each tensor's largest weight) and phrase embeddings (1 - cos)."""
    a, b = ref.state_dict(), other.state_dict()
    gaps = weight_gaps(a, b)
    spacings = {k: g / (EPS * float(a[k].abs().max())) for k, g in gaps.items() if float(a[k].abs().max()) > 0}
    largest = sorted(gaps, key=gaps.get, reverse=True)[:3]
    cos = torch.nn.functional.cosine_similarity(ref_emb.double(), other_emb.double(), dim=1)
    return {"max_abs_weight": gaps[largest[0]],
            "largest": [{"tensor": k, "max_abs": gaps[k]} for k in largest],
            "word_embeddings_max_abs": gaps[word_key],
            "max_float32_spacings": round(max(spacings.values()), 1),
            "max_float32_spacings_tensor": max(spacings, key=spacings.get),
            "max_cosine_departure": float((1 - cos).max())}


def update_check(name: str, steps: int = 20, phrases: int = 256) -> dict:
    """The record of one backbone: rows and rounding against dense (see the module)."""
    from pearl.models import load_backbone
    from pearl.training.profiles import config_for

    cfg, data_options = config_for("cpu", backbone=name)
    inputs = training_inputs(cfg, data_options)
    fixed = [p for p, _ in inputs[0][:phrases]]
    module, tok = load_backbone(name)
    models = {}
    for key, update, nudging in (("dense", "dense", False), ("rows", "rows", False), ("rounding", "dense", True)):
        with nudged_at_start() if nudging else contextlib.nullcontext():  # the pre-trained backbone copied per run
            models[key] = run(dataclasses.replace(cfg, embedding_update=update), inputs, (copy.deepcopy(module), tok),
                              steps)
    emb = {key: m.embed(tok, fixed) for key, m in models.items()}
    word_key = "backbone." + next(k for k, p in module.named_parameters() if p is module.get_input_embeddings().weight)
    moved = weight_gaps(module.state_dict(), models["dense"].backbone.state_dict())
    largest = max(float(v.abs().max()) for v in models["dense"].state_dict().values() if v.is_floating_point())
    out = {"steps": steps, "profile": "cpu", "training_phrases": len(inputs[0]), "phrases_compared": len(fixed),
           "lr": cfg.lr, "head_lr": cfg.head_lr, "dense_moved_backbone_max_abs": max(moved.values()),
           "float32_spacing_at_largest_weight": EPS * largest}
    for key in ("rows", "rounding"):
        out[f"{key}_vs_dense"] = departure(models["dense"], models[key], word_key, emb["dense"], emb[key])
    return out
