"""The settings of one ``mlm-wiki`` pretraining run (:mod:`pearl.backbones.mlm_pretrain`), range-checked.

:class:`Config` holds the model's size, the data and the optimisation; all of it goes into the
built folder's ``mlm.json`` and every checkpoint. A value out of range (:data:`RANGES`, checked as
:data:`pearl.training.settings.RANGES` checks ``TrainConfig``) fails when the config is made,
naming the setting, its value and the allowed range, not steps into a run (``mask_prob=0`` would
otherwise divide by zero at the first held-out evaluation). What it leaves out: whether the
corpus holds enough text for ``steps`` (the run's data reader says so).
"""
from __future__ import annotations

import dataclasses

from ..ranges import bad, check_fields, integer, real


@dataclasses.dataclass(frozen=True)
class Config:
    """Model size, data and optimisation of one pretraining run (all of it goes into ``mlm.json``)."""

    layers: int = 4
    hidden: int = 256
    heads: int = 4
    intermediate: int = 1024
    max_tokens: int = 64  # per sequence, [CLS] and [SEP] included; also the model's positions
    batch: int = 32  # sequences per step
    steps: int = 1400
    lr: float = 1e-3
    warmup: float = 0.06  # share of the steps with a linear warm-up; then linear decay to 0
    weight_decay: float = 0.01
    clip: float = 1.0
    mask_prob: float = 0.15
    seed: int = 0
    stride: int = 8  # training articles: every stride-th; held-out: the same stride at offset stride // 2
    heldout_articles: int = 100
    heldout_per_article: int = 8  # at most 8 sequences from each held-out article
    eval_sequences: int = 512
    eval_every: int = 200  # steps between held-out evaluations (and the last step)
    log_every: int = 10
    checkpoint_every: int = 200
    threads: int = 1  # torch threads: results are reproducible for a given number

    def __post_init__(self):
        check_fields(self, RANGES)  # a bad value fails here, naming the setting and its range, not steps into a run
        if self.hidden % self.heads:
            raise bad("Config", "hidden", self.hidden, f"a multiple of heads ({self.heads}): each head takes a share")

    def record(self) -> dict:
        """The config as a flat dict (``mlm.json``, checkpoints)."""
        return dataclasses.asdict(self)

    @property
    def train_tokens(self) -> int:  # WordPiece tokens of text trained on (each once within one epoch)
        return self.steps * self.batch * (self.max_tokens - 2)


_COUNTS = ("layers", "hidden", "heads", "intermediate", "batch", "steps", "heldout_articles", "eval_sequences",
           "eval_every", "log_every", "checkpoint_every", "threads")
#: Config field -> (check, the allowed range in words), as :data:`pearl.training.settings.RANGES`
RANGES = {
    **{name: (lambda v: integer(v) and v >= 1, "an integer >= 1") for name in _COUNTS},
    "max_tokens": (lambda v: integer(v) and v >= 3, "an integer >= 3 ([CLS], [SEP] and one piece)"),
    "lr": (lambda v: real(v) and v > 0, "a finite number > 0"),
    "warmup": (lambda v: real(v) and 0 <= v <= 1, "a share of the steps in [0, 1]"),
    "weight_decay": (lambda v: real(v) and v >= 0, "a finite number >= 0"),
    "clip": (lambda v: real(v) and v > 0, "a finite number > 0 (the gradient norm's bound)"),
    "mask_prob": (lambda v: real(v) and 0 < v <= 1, "a share in (0, 1] (with none masked there is no loss)"),
    "seed": (lambda v: integer(v) and v >= 0, "an integer >= 0"),
    "stride": (lambda v: integer(v) and v >= 2, "an integer >= 2 (held-out articles sit at offset stride // 2, "
                                                "which must not be the training offset 0)"),
    "heldout_per_article": (lambda v: integer(v) and v >= 0, "an integer >= 0 (0: no limit)"),
}


CONFIG = Config()
