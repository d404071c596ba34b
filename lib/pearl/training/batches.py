"""Training batches for PEARL: which phrases go in step ``t``, and the collate that builds them.

Everything about batch ``t`` is a pure function of ``(seed, t)``: the epoch's shuffled
order comes from ``torch.Generator().manual_seed(seed * 1_000 + epoch)`` and each batch's
augmentations and hard-negative draws from ``numpy.random.default_rng([seed, t])``. So the
"sampler state" saved in a checkpoint is just the step, a resumed run sees exactly the
batches an uninterrupted one would, and batches can be built in DataLoader workers.

A batch holds, in this order, the ``B`` original phrases, their ``B`` augmented copies
and ``k`` hard negatives per phrase (``k * B``), tokenised **outside** the model's forward
(here, in the collate) and, when the model has one, as byte ids for the character encoder.
A phrase with fewer than ``k`` hard negatives is topped up with random corpus phrases
(in-batch-style easy negatives) so every batch has the same shape (DDP needs equal shards).

Data parallel: every rank builds the same global batch (cheap: augmentation and sampling,
no tokenising) and keeps the contiguous shard ``rank`` of ``world``.

PAUSE: with ``labelled`` (a flag per corpus phrase) the batch also holds ``"labelled"``, the
flags of the **global** batch's phrases (the loss sees the gathered global batch).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
import torch

from .char_encoder import char_ids

#: (rng) -> a function phrase -> augmented phrase
AugmenterFactory = Callable[[np.random.Generator], Callable[[str], str]]


def identity_augmenter(rng: np.random.Generator) -> Callable[[str], str]:
    """No augmentation (all three levels switched off): the copy is the phrase itself."""
    return lambda phrase: phrase


@dataclass(frozen=True)
class BatchPlan:
    """Which corpus rows form batch ``step``: ``epochs`` shuffled passes, last partial batch dropped."""

    n: int
    batch_size: int
    seed: int
    epochs: int = 1

    def __post_init__(self):
        if self.n < self.batch_size:
            raise ValueError(f"corpus has {self.n} phrases, fewer than one batch of {self.batch_size}: "
                             "lower batch_size or build a bigger corpus")

    @property
    def steps_per_epoch(self) -> int:
        return self.n // self.batch_size

    @property
    def total_steps(self) -> int:
        return self.steps_per_epoch * self.epochs

    def steps(self, wanted: int | None) -> int:
        """The steps a run takes: ``wanted`` (None: every epoch), at most :attr:`total_steps`;
        a cut is warned about, since a budget that stops early is not the budget asked for."""
        if wanted and wanted > self.total_steps:
            import warnings

            warnings.warn(f"steps={wanted} is more than {self.epochs} epoch(s) of {self.n} phrases at batch "
                          f"{self.batch_size} allow: training stops at {self.total_steps} steps; raise epochs to "
                          "train longer", stacklevel=2)
        return min(wanted, self.total_steps) if wanted else self.total_steps

    def indices(self, step: int) -> list[int]:
        epoch, pos = divmod(step, self.steps_per_epoch)
        order = torch.randperm(self.n, generator=torch.Generator().manual_seed(self.seed * 1_000 + epoch))
        return order[pos * self.batch_size : (pos + 1) * self.batch_size].tolist()


class Collator:
    """Builds the tensors of one step (see the module docstring for the layout)."""

    def __init__(self, tokenizer, phrases: Sequence[str], labels: Sequence[int],
                 hard_negatives: dict[str, list[str]] | None, augmenter: AugmenterFactory,
                 k: int = 2, max_length: int = 32, use_char: bool = True, seed: int = 0,
                 rank: int = 0, world: int = 1, labelled: Sequence[bool] | None = None):
        self.tokenizer, self.phrases, self.labels = tokenizer, list(phrases), list(labels)
        # the one place that decides whether a run uses hard negatives: the count k (0 = off, the
        # ablation and the methods without them); a phrase without a mined pool, or a run given
        # none, draws its k negatives from the corpus at random
        self.hard_negatives = (hard_negatives or {}) if k else {}
        self.augmenter, self.k, self.max_length = augmenter, k, max_length
        self.use_char, self.seed, self.rank, self.world = use_char, seed, rank, world
        self.labelled = labelled

    def texts(self, step: int, indices: Sequence[int]) -> tuple[list[str], list[str], list[str], list[int]]:
        """Global batch: (originals, augmented copies, hard negatives grouped by phrase, labels)."""
        rng = np.random.default_rng([self.seed, step])
        augment = self.augmenter(rng)
        originals = [self.phrases[i] for i in indices]
        augmented = [augment(p) or p for p in originals]  # an augmenter may return "": keep the phrase
        negatives = []
        for p in originals:
            pool = self.hard_negatives.get(p, [])
            take = [pool[j] for j in rng.choice(len(pool), min(self.k, len(pool)), replace=False)] if pool else []
            while len(take) < self.k:  # top up with random corpus phrases
                take.append(self.phrases[int(rng.integers(len(self.phrases)))])
            negatives.extend(take)
        return originals, augmented, negatives, [self.labels[i] for i in indices]

    def __call__(self, step: int, indices: Sequence[int]) -> dict:
        originals, augmented, negatives, labels = self.texts(step, indices)
        if len(originals) % self.world:
            raise ValueError(f"batch of {len(originals)} does not split over {self.world} processes")
        b = len(originals) // self.world
        lo, hi = self.rank * b, (self.rank + 1) * b
        texts = originals[lo:hi] + augmented[lo:hi] + negatives[lo * self.k : hi * self.k]
        inputs = dict(self.tokenizer(texts, padding=True, truncation=True, max_length=self.max_length,
                                     return_tensors="pt"))
        if self.use_char:
            inputs["char_ids"] = char_ids(texts)
        out = {"step": step, "n": b, "inputs": inputs, "labels": torch.tensor(labels[lo:hi])}
        if self.labelled is not None:
            out["labelled"] = torch.tensor([bool(self.labelled[i]) for i in indices])
        return out


class StepDataset(torch.utils.data.Dataset):
    """Steps ``start .. stop-1`` as a map-style dataset, so a DataLoader can prefetch batches."""

    def __init__(self, plan: BatchPlan, collator: Collator, start: int, stop: int):
        self.plan, self.collator, self.start, self.stop = plan, collator, start, stop

    def __len__(self) -> int:
        return max(0, self.stop - self.start)

    def __getitem__(self, i: int) -> dict:
        step = self.start + i
        return self.collator(step, self.plan.indices(step))
