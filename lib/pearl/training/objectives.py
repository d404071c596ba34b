"""The registry of training objectives: one :class:`Objective` per method the trainer runs
(``TrainConfig.objective``), as sentence-transformers keeps one class per loss in ``losses/``.

An entry holds everything that differs between methods: its ``loss`` on one batch of embeddings,
its own ``settings`` (a small frozen dataclass, ``TrainConfig.settings``), what its ``positives``
are (a kind of :data:`pearl.training.methods.POSITIVES`), the defaults it sets in the shared
config, its display ``label`` (recorded in :data:`pearl.method_names.LABELS`, which
:func:`pearl.models.label` reads), and optional hooks:
``prepare`` (checks and per-phrase data before the first step) and ``variant`` (a folder-name
variant when its settings differ from its own). The trainer, export, the runner,
:mod:`pearl.training.methods` and the model registry read it; none of them names an objective.
Adding one is :func:`register` (tests/training/test_objectives.py adds a toy in a few lines).

Every batch holds ``B`` phrases, one positive per phrase and ``k`` negatives per phrase
(:mod:`pearl.training.batches`). The four built in:

- ``"pearl"``: :func:`pearl.training.loss.info_nce` (+ the type loss, added by the trainer);
- ``"simcse"``: :func:`pearl.training.loss.simcse_loss`; the positive is the phrase itself and the
  two views differ by dropout alone, so the model must be in train mode with dropout
  (:func:`check_dropout`);
- ``"phrase_bert"``: :func:`pearl.training.loss.phrase_bert_loss` over (phrase, paraphrase,
  negative) triplets: the mined hard negatives, or without them every other phrase's paraphrase;
- ``"pause"``: :func:`pearl.training.loss.pause_loss` with the labelled pairs of
  :func:`labelled_pairs` and the PU weight :func:`pearl.training.loss.anneal_weight` at the step;
  with ``pu_only`` the paper's binary positive-only form, the PU risk alone at weight 1.

Settings fields keep the names pearl.json's ``train_config`` has always had (``pu_prior``,
``phrase_bert_margin``): :func:`record` flattens a config back to that one dict, so trained
folders, checkpoints and the runner's reuse keys read as before. Importing this module imports
no torch (the losses are imported when a batch needs them).
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Callable, Mapping

import numpy as np

from .. import method_names
from .settings import check_fields, real, switch

#: the forms of :func:`pearl.training.loss.phrase_bert_loss` (its ``PHRASE_BERT_FORMS``: importing it would import torch)
_FORMS = ("margin", "softmax")


@dataclass(frozen=True)
class NoSettings:
    """An objective with no settings of its own."""


@dataclass(frozen=True)
class PhraseBertSettings:
    phrase_bert_margin: float = 1.0  # the triplet margin (loss.phrase_bert_loss)
    phrase_bert_form: str = "margin"  # "margin" (the authors' released code) or "softmax"

    def __post_init__(self):
        check_fields(self, {"phrase_bert_margin": (lambda v: real(v) and v >= 0, "a finite number >= 0"),
                            "phrase_bert_form": (lambda v: v in _FORMS, f"one of {', '.join(_FORMS)}")})


@dataclass(frozen=True)
class PauseSettings:
    pu_prior: float = 0.05  # class prior, the share of positives among the unlabeled pairs
    pu_anneal: float = 3.0  # exponent of the PU weight (step / total) ** pu_anneal (loss.anneal_weight)
    pu_only: bool = False  # the PU risk alone, no supervised term (the paper's binary positive-only case)
    label_share: float = 1.0  # share of the positive pairs labelled (a seeded choice)

    def __post_init__(self):
        check_fields(self, {
            "pu_prior": (lambda v: real(v) and 0 < v < 1, "in (0, 1): PAUSE's class prior, the share of positives "
                                                          "among the unlabeled pairs"),
            "pu_anneal": (lambda v: real(v) and v > 0, "> 0: PAUSE's annealing exponent (3 is PAUSE's)"),
            "pu_only": (switch, "True or False"),
            "label_share": (lambda v: real(v) and 0 < v <= 1, "in (0, 1], the share of positive pairs labelled: "
                                                              "0.01 for 1 %, 1.0 for all")})


@dataclass(frozen=True)
class Views:
    """One (global) batch as an objective's loss sees it: phrases ``orig``, their positives
    ``aug``, ``k`` negatives per phrase ``neg`` (may be empty), the model, the labelled flags of
    the batch (when ``prepare`` gave some), the step and the run's total steps."""
    model: object
    orig: object
    aug: object
    neg: object
    labelled: object = None
    step: int = 0
    total: int | None = None

    @property
    def negatives(self):
        return self.neg if len(self.neg) else None


@dataclass(frozen=True)
class Objective:
    name: str  # the trainer's name; also the method part of trained folders' names (pearl.models.folder_name)
    label: str  # display name in tables, figures and labels (pearl.method_names)
    loss: Callable  # (TrainConfig, Views) -> (loss tensor, {part: float})
    positives: str  # a kind of pearl.training.methods.POSITIVES
    settings: type = NoSettings  # its own settings: a frozen dataclass, every field with a default
    defaults: Mapping = field(default_factory=dict)  # TrainConfig values the method sets (profile < these < overrides)
    prepare: Callable | None = None  # (TrainConfig, backbone module, corpus size) -> {batch data}: before the first step
    variant: Callable | None = None  # settings -> folder-name variant, or None for the method's own settings
    card: str = ""  # the model card's first sentence; "" says which objective trained it


OBJECTIVES: dict[str, Objective] = {}


def register(objective: Objective) -> Objective:
    """Add ``objective`` to :data:`OBJECTIVES` and its label to :data:`pearl.method_names.LABELS`;
    refused: a name taken, another label for a name labelled already, or a settings field another
    objective has (configs are flattened to one dict, :func:`record`)."""
    if objective.name in OBJECTIVES:
        raise ValueError(f"objective {objective.name!r} is registered already")
    taken = {f.name: o.name for o in OBJECTIVES.values() for f in dataclasses.fields(o.settings)}
    clash = {f.name: taken[f.name] for f in dataclasses.fields(objective.settings) if f.name in taken}
    if clash:
        raise ValueError(f"objective {objective.name!r}: settings {clash} are other objectives' fields; prefix them")
    method_names.add(objective.name, objective.label)
    OBJECTIVES[objective.name] = dataclasses.replace(objective, defaults=MappingProxyType(dict(objective.defaults)))
    return OBJECTIVES[objective.name]


def get(name: str) -> Objective:
    if name not in OBJECTIVES:
        raise ValueError(f"unknown objective {name!r}; choose from {', '.join(OBJECTIVES)}")
    return OBJECTIVES[name]


def settings_for(name: str, settings=None):
    """The settings of objective ``name``: ``settings`` checked to be its kind, or its defaults for None."""
    kind = get(name).settings
    if settings is None:
        return kind()
    if type(settings) is not kind:
        raise ValueError(f"objective {name!r} takes {kind.__name__}, got {type(settings).__name__}: "
                         f"make the config with pearl.training.train.TrainConfig.of({name!r}, ...)")
    return settings


def split(objective: str, values: dict, shared: set) -> tuple[object, dict]:
    """``(objective's settings, the rest)`` of flat ``values`` (:meth:`pearl.training.train.TrainConfig.of`):
    its own settings fields make its settings; a name neither ``shared`` nor its own is refused,
    naming the objective whose setting it is."""
    own = {f.name for f in dataclasses.fields(get(objective).settings)}
    unknown = set(values) - shared - own
    if unknown:
        owners = {f.name: o.name for o in OBJECTIVES.values() for f in dataclasses.fields(o.settings)}
        raise ValueError(f"objective {objective!r} has no setting " + ", ".join(
            k + (f" (a setting of {owners[k]!r})" if k in owners else "") for k in sorted(unknown)))
    return get(objective).settings(**{k: v for k, v in values.items() if k in own}), \
        {k: v for k, v in values.items() if k not in own}


def record(cfg) -> dict:
    """``cfg`` as one flat dict, the shape pearl.json's ``train_config``, checkpoints and the
    runner's keys have always held: the shared fields with every registered objective's settings
    fields after ``objective`` (its own values for the objective run, the defaults for the others)."""
    out = {}
    for f in dataclasses.fields(cfg):
        if f.name != "settings":
            out[f.name] = getattr(cfg, f.name)
            continue
        for o in OBJECTIVES.values():
            out.update(dataclasses.asdict(cfg.settings if o.name == cfg.objective else o.settings()))
    return out


def card_sentence(name: str) -> str:
    """The model card's sentence saying what trained a folder (``name``: its pearl.json objective)."""
    entry = OBJECTIVES.get(name)
    return entry.card if entry is not None and entry.card else \
        f"A phrase encoder trained with the `{name}` objective (a neighbouring method) by the PEARL companion's trainer."


def contrastive(cfg, model, orig, aug, neg, labelled=None, step: int = 0, total: int | None = None):
    """``(loss, parts)`` of the objective ``cfg.objective`` on one (global) batch of embeddings."""
    loss, parts = get(cfg.objective).loss(cfg, Views(model, orig, aug, neg, labelled, step, total))
    return loss, {"contrastive": loss.detach(), **parts}  # a tensor: the trainer reads it when it syncs


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


def check_dropout(module) -> None:
    """SimCSE's two views of a phrase differ only by dropout: refuse a model without any."""
    from torch import nn

    if not any(isinstance(m, nn.Dropout) and m.p > 0 for m in module.modules()):
        raise ValueError("objective 'simcse' needs dropout (its positive is the phrase under another dropout "
                         "mask) but the backbone has none: use a backbone with hidden_dropout_prob > 0")


# ------------------------------------------------------------------ the four built in
def _pearl_loss(cfg, v: Views):
    from .loss import info_nce

    return info_nce(v.orig, v.aug, v.negatives, cfg.temperature), {}


def _simcse_loss(cfg, v: Views):
    from .loss import simcse_loss

    if not v.model.training:
        raise ValueError("objective 'simcse' needs the model in train mode (dropout on for both views): model.train()")
    return simcse_loss(v.orig, v.aug, v.negatives, cfg.temperature), {}


def _phrase_bert_loss(cfg, v: Views):
    from .loss import in_batch_negatives, phrase_bert_loss

    s = cfg.settings
    negatives = v.neg if len(v.neg) else in_batch_negatives(v.aug)
    return phrase_bert_loss(v.orig, v.aug, negatives, s.phrase_bert_margin, s.phrase_bert_form), {}


def _pause_loss(cfg, v: Views):
    from .loss import anneal_weight, pause_loss

    s = cfg.settings
    if v.labelled is None or v.total is None:
        raise ValueError("objective 'pause' needs the batch's labelled flags and the run's total steps")
    weight = 1.0 if s.pu_only else anneal_weight(v.step, v.total, s.pu_anneal)
    loss, supervised, pu = pause_loss(v.orig, v.aug, v.negatives, v.labelled, s.pu_prior, weight, cfg.temperature,
                                      supervised=not s.pu_only)
    return loss, {"supervised": supervised.item(), "pu": pu.item(), "pu_weight": weight}


def _simcse_prepare(cfg, backbone, n: int) -> dict:
    check_dropout(backbone)
    return {}


def _pause_prepare(cfg, backbone, n: int) -> dict:
    return {"labelled": labelled_pairs(n, cfg.settings.label_share, cfg.seed)}


def _labels_variant(s: PauseSettings) -> str | None:
    """PAUSE with part of its pairs labelled: ``"labels-5pct"``, ``"labels-0p5pct"``."""
    return "labels-" + f"{s.label_share * 100:.4g}".replace(".", "p") + "pct" if s.label_share < 1 else None


#: the neighbours train the phrase encoder alone: the character part and the type head are PEARL's additions
_NEIGHBOUR = dict(use_char=False, use_type_head=False)
_LABEL = method_names.LABELS  # the four labels live below the model registry, which shows them
register(Objective("pearl", _LABEL["pearl"], _pearl_loss, "augmentation",
                   card="A PEARL phrase encoder (Chen, Varoquaux, Suchanek, EACL 2024) trained by the PEARL companion."))
register(Objective("simcse", _LABEL["simcse"], _simcse_loss, "self",
                   defaults=dict(temperature=0.05, hard_negatives=0, **_NEIGHBOUR), prepare=_simcse_prepare))
register(Objective("phrase_bert", _LABEL["phrase_bert"], _phrase_bert_loss, "paraphrase", PhraseBertSettings,
                   defaults=dict(hard_negatives=1, **_NEIGHBOUR)))
register(Objective("pause", _LABEL["pause"], _pause_loss, "paraphrase", PauseSettings,
                   defaults=dict(hard_negatives=0, **_NEIGHBOUR), prepare=_pause_prepare, variant=_labels_variant))
