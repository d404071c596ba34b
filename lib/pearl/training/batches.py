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

Two batch layouts (:data:`LAYOUTS`, ``TrainConfig.batch_composition``):

- ``"extra_negatives"`` (the default, the layout above): ``batch_size`` phrases, each with its
  augmented copy and type label; their ``k`` hard negatives are extra candidates of the
  contrastive loss only (never anchors, no positive, no type label).
- ``"reference"``: the authors' loader (``tigerchen52/PEARL``, ``source/loader.py``): each
  anchor's ``k`` hard negatives are rows of the batch like the anchor, each with its own
  augmented copy (an anchor of the contrastive loss) and its own type label (the type head
  sees it). A batch of ``batch_size`` rows holds ``ceil(batch_size / (k + 1))`` anchors
  (:func:`anchors_per_batch`), each followed by its negatives, the last group cut to fit:
  at batch 32 and ``k = 2``, 11 anchors and 21 negative rows. A hard negative's type label is
  its phrase's in the corpus it was mined from (:class:`pearl.corpus.hard_negatives.HardNegatives`).

  What the reference does that this does not, and why: its ``batch_size`` (512) counts the
  *texts* of both views, so 512 // (2 x 3) = 85 anchors make 255 rows and 510 texts (loader.py
  line 57); here ``batch_size`` counts rows, as it counts phrases in the default layout,
  so both layouts train on the same number of (phrase, positive, label) rows per step.
  Per step this encodes ``2 x batch_size`` texts against the default's ``(2 + k) x batch_size``
  (the default's negatives are encoded too, without a copy). The reference floors 512 / 6 and
  leaves 2 of 512 places empty; flooring here would leave 2 of the cpu profile's 32 and make a
  batch that need not split over the processes of data parallel, so the last group is cut
  instead. Its epochs count passes over the anchors, as here (the plan draws
  :func:`anchors_per_batch` phrases a step).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Mapping, Sequence

import numpy as np
import torch

from .char_encoder import char_ids

#: (rng) -> a function phrase -> augmented phrase
AugmenterFactory = Callable[[np.random.Generator], Callable[[str], str]]

#: the batch layouts (see the module docstring); the first is the default
LAYOUTS = ("extra_negatives", "reference")


def anchors_per_batch(batch_size: int, k: int, layout: str = "extra_negatives") -> int:
    """The corpus phrases a step draws: ``batch_size``, or in the ``"reference"`` layout
    the fewest anchors whose rows (each anchor and its ``k`` negatives) fill ``batch_size`` rows.

    >>> anchors_per_batch(32, 2), anchors_per_batch(32, 2, "reference"), anchors_per_batch(512, 2, "reference")
    (32, 11, 171)
    >>> anchors_per_batch(32, 0, "reference")  # no negatives: the default's batch
    32
    """
    return batch_size if known_layout(layout) == "extra_negatives" else -(-batch_size // (k + 1))


def layout_variant(layout: str) -> str | None:
    """The folder-name variant of a model trained on ``layout``'s batches (None: the default's).

    >>> layout_variant("extra_negatives"), layout_variant("reference")
    (None, 'reference-batches')
    """
    return None if known_layout(layout) == LAYOUTS[0] else f"{layout}-batches"


def known_layout(layout: str) -> str:
    """``layout`` when it is one of :data:`LAYOUTS`, else a ``ValueError`` naming them."""
    if layout not in LAYOUTS:
        raise ValueError(f"batch layout {layout!r} is unknown: choose one of "
                         f"{', '.join(map(repr, LAYOUTS))} (TrainConfig.batch_composition)")
    return layout


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
        order = epoch_order(self.n, self.seed, epoch)
        return order[pos * self.batch_size : (pos + 1) * self.batch_size].tolist()


@lru_cache(maxsize=2)
def epoch_order(n: int, seed: int, epoch: int) -> torch.Tensor:
    """The shuffled order of ``n`` rows in ``epoch`` (kept for the next step: a permutation of a
    two-million-phrase corpus costs tens of milliseconds, a step's gather far less)."""
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed * 1_000 + epoch))


class Collator:
    """Builds the tensors of one step (see the module docstring for the layout)."""

    def __init__(self, tokenizer, phrases: Sequence[str], labels: Sequence[int],
                 hard_negatives: dict[str, list[str]] | None, augmenter: AugmenterFactory,
                 k: int = 2, max_length: int = 32, use_char: bool = True, seed: int = 0,
                 rank: int = 0, world: int = 1, labelled: Sequence[bool] | None = None,
                 layout: str = "extra_negatives", rows: int | None = None,
                 types: Mapping[str, int] | None = None):
        """``layout="reference"`` needs ``rows`` (the batch size in rows) and the type label
        index of every hard negative outside ``phrases`` (``types``: phrase -> index)."""
        self.tokenizer, self.phrases, self.labels = tokenizer, list(phrases), list(labels)
        # the one place that decides whether a run uses hard negatives: the count k (0 = off, the
        # ablation and the methods without them); a phrase without a mined pool, or a run given
        # none, draws its k negatives from the corpus at random
        self.hard_negatives = (hard_negatives or {}) if k else {}
        self.augmenter, self.k, self.max_length = augmenter, k, max_length
        self.use_char, self.seed, self.rank, self.world = use_char, seed, rank, world
        self.labelled = labelled
        self.layout, self.rows, self.types = known_layout(layout), rows, None
        if layout == "reference":
            if rows is None or labelled is not None:
                raise ValueError("the reference layout needs rows= (the batch size) and no labelled flags "
                                 "(PAUSE's labels are per phrase, not per row): use batch_composition='extra_negatives'")
            self.types = {**(types or {}), **dict(zip(self.phrases, self.labels))}
            untyped = sorted({n for p in self.phrases for n in self.hard_negatives.get(p, ()) if n not in self.types})
            if untyped:
                raise ValueError(f"batch_composition='reference' gives each hard negative a row with its type label, but "
                                 f"{len(untyped)} hard negatives have none (e.g. {untyped[:3]}): pass the hard negatives "
                                 "of pearl.training.profiles.load_training_data (they carry the corpus' types) or "
                                 "pearl.corpus.hard_negatives.HardNegatives(pools, types)")

    def texts(self, step: int, indices: Sequence[int]) -> tuple[list[str], list[str], list[str], list[int]]:
        """Global batch: (originals, augmented copies, hard negatives grouped by phrase, labels);
        in the reference layout (rows with their copies, [], the rows' labels)."""
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
        labels = [self.labels[i] for i in indices]
        if self.layout == "reference":
            return self._rows(originals, augmented, negatives, labels, augment)
        return originals, augmented, negatives, labels

    def _rows(self, originals, augmented, negatives, labels, augment):
        """The reference's rows: each anchor, then its ``k`` negatives, each a row with its own
        augmented copy (drawn after the anchors', so the anchors' copies are the default's) and type
        label; cut to :attr:`rows`."""
        rows, copies, row_labels = [], [], []
        for j, anchor in enumerate(originals):
            for r, text in enumerate([anchor, *negatives[j * self.k : (j + 1) * self.k]]):
                if len(rows) == self.rows:
                    break
                rows.append(text)
                copies.append(augmented[j] if r == 0 else augment(text) or text)
                row_labels.append(labels[j] if r == 0 else self.types[text])
        return rows, copies, [], row_labels

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
