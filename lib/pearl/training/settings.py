"""Range checks of the trainer's settings: the fields every objective shares
(:class:`pearl.training.train.TrainConfig`, :data:`RANGES`) and the helpers each objective's own
settings dataclass checks its fields with (:func:`check_fields`, :mod:`pearl.training.objectives`).

A bad value fails when the config is made, naming the field, the value and the allowed range,
not steps into a run. What it leaves out: which objective a setting belongs to (the registry).
"""
from __future__ import annotations

import re

from ..ranges import bad, check_fields, integer, real, switch  # noqa: F401 (re-exported)
from .batches import LAYOUTS


#: how batches reach the model (TrainConfig.feed): built in the step, or drawn once into arrays
FEEDS = ("collate", "arrays")

#: a device the trainer can run on, as torch names it
DEVICE = re.compile(r"cpu|mps|cuda(?::\d+)?")

#: TrainConfig field -> (check, the allowed range in words); every numeric and switch field
RANGES = {
    "steps": (lambda v: v is None or (integer(v) and v >= 1), "None (the epochs decide) or an integer >= 1"),
    "epochs": (lambda v: integer(v) and v >= 1, "an integer >= 1"),
    "batch_size": (lambda v: integer(v) and v >= 2, "an integer >= 2 (in-batch negatives need another phrase)"),
    "lr": (lambda v: real(v) and v > 0, "a finite number > 0"),
    "gamma": (lambda v: real(v) and 0 < v <= 1, "a learning-rate decay factor in (0, 1]"),
    "decay_every": (lambda v: integer(v) and v >= 1, "an integer >= 1 (steps between decays)"),
    "seed": (lambda v: integer(v) and 0 <= v < 2 ** 32, "an integer in [0, 2**32 - 1] (numpy's seed range)"),
    "hard_negatives": (lambda v: integer(v) and v >= 0, "an integer >= 0 (0 switches them off)"),
    "batch_composition": (lambda v: v in LAYOUTS, " or ".join(map(repr, LAYOUTS)) + " (a phrase's hard negatives "
                          "as extra candidates of the loss, or as rows with their own positive and type label as the "
                          "authors' loader builds them: pearl.training.batches)"),
    "char_dim": (lambda v: integer(v) and v >= 1, "an integer >= 1"),
    "char_weight": (lambda v: real(v) and 0 < v < 1, "a weight in (0, 1) (the character part's scale beside the unit "
                                                     "phrase part; use_char=False drops the part)"),
    "max_char_share": (lambda v: v is None or (real(v) and 0 < v < 1),
                       "None (no cap: char_weight as given) or a share in (0, 1) (the most of the embedding's "
                       "total variance on the training vocabulary the character part may hold)"),
    "char_distill_steps": (lambda v: integer(v) and v >= 0, "an integer >= 0"),
    "char_distill_vocab": (lambda v: integer(v) and v >= 1, "an integer >= 1"),
    "type_weight": (lambda v: real(v) and v >= 0, "a finite number >= 0"),
    "head_lr": (lambda v: v is None or (real(v) and v > 0), "None (the lr) or a finite number > 0"),
    "temperature": (lambda v: real(v) and 1e-3 <= v <= 1, "a number in [0.001, 1] (the range SimCSE tried; below it "
                                                         "the scores cos/τ pass ±1000 and the gradients scale by 1/τ)"),
    "average": (lambda v: real(v) and 0 <= v <= 1, "a weight in [0, 1] (1 switches averaging off; outside it "
                                                    "would extrapolate the weights)"),
    "max_length": (lambda v: integer(v) and v >= 3, "an integer >= 3 (the special tokens and one more)"),
    "length_buckets": (lambda v: integer(v) and v >= 1, "an integer >= 1"),
    "checkpoint_every": (lambda v: integer(v) and v >= 0, "an integer >= 0 (0: no checkpoints)"),
    "num_workers": (lambda v: integer(v) and v >= 0, "an integer >= 0"),
    **{name: (switch, "True or False") for name in ("use_char", "use_type_head", "compile")},
    "centre": (lambda v: v is None or isinstance(v, bool), "None (the rule decides: centre an anisotropic backbone, "
                                                           "pearl.training.composition), True or False"),
    "bf16": (lambda v: v is None or isinstance(v, bool), "None (on CUDA only), True or False"),
    "backbone": (lambda v: isinstance(v, str) and bool(v), "a model name or folder (a non-empty string)"),
    "device": (lambda v: v is None or (isinstance(v, str) and DEVICE.fullmatch(v) is not None),
               "None (CUDA, else MPS, else CPU: pearl.encode.pick_device), 'cpu', 'mps', 'cuda' or 'cuda:N'"),
    "embedding_update": (lambda v: v in ("rows", "dense"), "'rows' (a row-wise update of the word embeddings, "
                                                            "pearl.training.optim) or 'dense'"),
    "objective": (lambda v: isinstance(v, str) and bool(v), "an objective's name (pearl.training.objectives.OBJECTIVES)"),
    "feed": (lambda v: v in FEEDS, " or ".join(map(repr, FEEDS)) + " (the batches built in each step, or drawn once "
                                   "into arrays and gathered: pearl.training.arrays; the same batches)"),
    "log_every": (lambda v: integer(v) and v >= 1, "an integer >= 1 (steps between reads of the loss)"),
}
