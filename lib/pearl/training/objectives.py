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


def check_config(cfg) -> None:
    """Refuse settings no objective can train with (called by ``TrainConfig`` on creation)."""
    if cfg.objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {cfg.objective!r}; choose from {', '.join(OBJECTIVES)}")
    if not 0 < cfg.pu_prior < 1:
        raise ValueError(f"pu_prior (PAUSE's class prior, the share of positives among the unlabeled pairs) "
                         f"must be in (0, 1), got {cfg.pu_prior}")
    if not 0 < cfg.label_share <= 1:
        raise ValueError(f"label_share (share of positive pairs labelled, PAUSE) must be in (0, 1], got "
                         f"{cfg.label_share}: 0.01 for 1 %, 1.0 for all")
    if not cfg.pu_anneal > 0:
        raise ValueError(f"pu_anneal (PAUSE's annealing exponent) must be > 0, got {cfg.pu_anneal}; 3 is PAUSE's")
    if not cfg.temperature > 0:
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
