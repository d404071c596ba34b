"""The four objectives of the one trainer (``TrainConfig.objective``) and the settings they refuse.

Every batch holds ``B`` phrases, one positive per phrase and ``k`` negatives per phrase
(:mod:`pearl.training.batches`); what the positive is depends on the method
(:mod:`pearl.training.methods`), the loss on the objective:

- ``"pearl"``: :func:`pearl.training.loss.info_nce` (+ the type loss, added by the trainer);
- ``"simcse"``: :func:`pearl.training.loss.simcse_loss`; the positive is the phrase itself
  and the two views differ by dropout alone, so the model must be in train mode with
  dropout (:func:`check_dropout`; the trainer calls it);
- ``"phrase_bert"``: :func:`pearl.training.loss.phrase_bert_loss` over (phrase, paraphrase,
  negative) triplets: the mined hard negatives, or without them every other phrase's
  paraphrase (:func:`pearl.training.loss.in_batch_negatives`);
- ``"pause"``: :func:`pearl.training.loss.pause_loss` with the labelled pairs of
  :func:`labelled_pairs` and the PU weight :func:`pearl.training.loss.anneal_weight` at the step;
  with ``pu_only`` the paper's binary positive-only form, the PU risk alone at weight 1.

The names are the method names of :data:`pearl.models.METHODS` (the trained folders are named
after them). ``"triplet"``, the former name of ``"phrase_bert"``, is gone: nothing read it.
"""
from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .loss import (
    PHRASE_BERT_FORMS,
    anneal_weight,
    in_batch_negatives,
    info_nce,
    pause_loss,
    phrase_bert_loss,
    simcse_loss,
)

OBJECTIVES = ("pearl", "simcse", "phrase_bert", "pause")


def _bad(name: str, value, allowed: str) -> ValueError:
    return ValueError(f"TrainConfig.{name} = {value!r} is out of range: it must be {allowed}")


def _integer(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _real(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool) and math.isfinite(value)


#: TrainConfig field -> (check, the allowed range in words); every numeric and switch field
RANGES = {
    "steps": (lambda v: v is None or (_integer(v) and v >= 1), "None (the epochs decide) or an integer >= 1"),
    "epochs": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "batch_size": (lambda v: _integer(v) and v >= 2, "an integer >= 2 (in-batch negatives need another phrase)"),
    "lr": (lambda v: _real(v) and v > 0, "a finite number > 0"),
    "gamma": (lambda v: _real(v) and 0 < v <= 1, "a learning-rate decay factor in (0, 1]"),
    "decay_every": (lambda v: _integer(v) and v >= 1, "an integer >= 1 (steps between decays)"),
    "seed": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "hard_negatives": (lambda v: _integer(v) and v >= 0, "an integer >= 0 (0 switches them off)"),
    "char_dim": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "char_weight": (lambda v: _real(v) and v >= 0, "a finite number >= 0"),
    "char_distill_steps": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "char_distill_vocab": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "type_weight": (lambda v: _real(v) and v >= 0, "a finite number >= 0"),
    "head_lr": (lambda v: v is None or (_real(v) and v > 0), "None (the lr) or a finite number > 0"),
    "average": (lambda v: _real(v) and 0 <= v <= 1, "a weight in [0, 1] (1 switches averaging off; outside it "
                                                      "would extrapolate the weights)"),
    "max_length": (lambda v: _integer(v) and v >= 3, "an integer >= 3 (the special tokens and one more)"),
    "length_buckets": (lambda v: _integer(v) and v >= 1, "an integer >= 1"),
    "checkpoint_every": (lambda v: _integer(v) and v >= 0, "an integer >= 0 (0: no checkpoints)"),
    "num_workers": (lambda v: _integer(v) and v >= 0, "an integer >= 0"),
    "phrase_bert_margin": (lambda v: _real(v) and v >= 0, "a finite number >= 0"),
    **{name: (lambda v: isinstance(v, bool), "True or False") for name in ("use_char", "use_type_head", "pu_only", "compile", "centre")},
    "bf16": (lambda v: v is None or isinstance(v, bool), "None (on CUDA only), True or False"),
    "backbone": (lambda v: isinstance(v, str) and bool(v), "a model name or folder (a non-empty string)"),
    "device": (lambda v: v is None or (isinstance(v, str) and bool(v)), "None or a device name such as 'cpu'"),
}


def check_config(cfg) -> None:
    """Refuse settings no objective can train with (called by ``TrainConfig`` on creation): every
    field of :data:`RANGES` and the objective's own; the error names the field, the value and the
    allowed range."""
    for name, (ok, allowed) in RANGES.items():
        if hasattr(cfg, name) and not ok(getattr(cfg, name)):
            raise _bad(name, getattr(cfg, name), allowed)
    if cfg.objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {cfg.objective!r}; choose from {', '.join(OBJECTIVES)}")
    if not _real(cfg.pu_prior) or not 0 < cfg.pu_prior < 1:
        raise ValueError(f"pu_prior (PAUSE's class prior, the share of positives among the unlabeled pairs) "
                         f"must be in (0, 1), got {cfg.pu_prior}")
    if not _real(cfg.label_share) or not 0 < cfg.label_share <= 1:
        raise ValueError(f"label_share (share of positive pairs labelled, PAUSE) must be in (0, 1], got "
                         f"{cfg.label_share}: 0.01 for 1 %, 1.0 for all")
    if not _real(cfg.pu_anneal) or not cfg.pu_anneal > 0:
        raise ValueError(f"pu_anneal (PAUSE's annealing exponent) must be > 0, got {cfg.pu_anneal}; 3 is PAUSE's")
    if not _real(cfg.temperature) or not cfg.temperature > 0:
        raise ValueError(f"temperature must be > 0, got {cfg.temperature}")
    if cfg.phrase_bert_form not in PHRASE_BERT_FORMS:
        raise ValueError(f"unknown phrase_bert_form {cfg.phrase_bert_form!r}; choose from {', '.join(PHRASE_BERT_FORMS)}")
    if not cfg.phrase_bert_margin >= 0:
        raise ValueError(f"phrase_bert_margin must be >= 0, got {cfg.phrase_bert_margin}")


def labelled_pairs(n: int, share: float, seed: int) -> np.ndarray:
    """PAUSE's labelled subset: a boolean flag per corpus phrase, ``round(share * n)`` of them
    (at least one) True, drawn with ``numpy.random.default_rng(seed)``: same seed, same labels.

    >>> int(labelled_pairs(10, 0.3, seed=0).sum()), bool(labelled_pairs(10, 1.0, seed=0).all())
    (3, True)
    """
    if not 0 < share <= 1:
        raise ValueError(f"label_share must be in (0, 1], got {share}")
    flags = np.zeros(n, dtype=bool)
    flags[np.random.default_rng(seed).choice(n, max(1, round(share * n)), replace=False)] = True
    return flags


def check_dropout(module: nn.Module) -> None:
    """SimCSE's two views of a phrase differ only by dropout: refuse a model without any."""
    if not any(isinstance(m, nn.Dropout) and m.p > 0 for m in module.modules()):
        raise ValueError("objective 'simcse' needs dropout (its positive is the phrase under another dropout "
                         "mask) but the backbone has none: use a backbone with hidden_dropout_prob > 0")


def contrastive(cfg, model: nn.Module, orig: torch.Tensor, aug: torch.Tensor, neg: torch.Tensor,
                labelled: torch.Tensor | None = None, step: int = 0, total: int | None = None):
    """``(loss, parts)`` of the objective ``cfg.objective`` on one (global) batch of embeddings:
    phrases ``orig``, their positives ``aug`` and ``k`` negatives per phrase ``neg`` (may be empty)."""
    negatives = neg if len(neg) else None
    parts = {}
    if cfg.objective == "simcse":
        if not model.training:
            raise ValueError("objective 'simcse' needs the model in train mode (dropout on for both views): model.train()")
        loss = simcse_loss(orig, aug, negatives, cfg.temperature)
    elif cfg.objective == "phrase_bert":
        loss = phrase_bert_loss(orig, aug, neg if len(neg) else in_batch_negatives(aug),
                                cfg.phrase_bert_margin, cfg.phrase_bert_form)
    elif cfg.objective == "pause":
        if labelled is None or total is None:
            raise ValueError("objective 'pause' needs the batch's labelled flags and the run's total steps")
        weight = 1.0 if cfg.pu_only else anneal_weight(step, total, cfg.pu_anneal)
        loss, supervised, pu = pause_loss(orig, aug, negatives, labelled, cfg.pu_prior, weight, cfg.temperature,
                                          supervised=not cfg.pu_only)
        parts = {"supervised": supervised.item(), "pu": pu.item(), "pu_weight": weight}
    else:
        loss = info_nce(orig, aug, negatives, cfg.temperature)
    return loss, {"contrastive": loss.item(), **parts}
