"""The character encoder of PEARL, in the spirit of LOVE (Chen et al., 2022).

A phrase is read as its UTF-8 bytes (so any Unicode string has a representation and
no vocabulary file is needed): byte embeddings -> 1-D convolutions of several widths
(2, 3, 4, 5 by default) -> ReLU -> max-pool over positions -> a fully connected layer to
a lower dimension (``out_dim``, 64 by default). The output is what PEARL concatenates to
the phrase encoder's vector (see :mod:`pearl.training.model`).

>>> import torch
>>> ids = char_ids(["NYTimes", "New York Times"])
>>> ids.shape, int(ids[0, 0]), int(ids[0, 7])       # byte + 1, 0 = padding
(torch.Size([2, 14]), 79, 0)
>>> torch.manual_seed(0) and CharEncoder()(ids).shape
torch.Size([2, 64])

Initialisation (:func:`distill_init`). LOVE trains its character model to *mimic* a
pretrained embedding from the surface form alone. Offline, the pretrained embedding we
have is the backbone itself, so we distil the backbone's own vectors of the training
vocabulary (the corpus phrases and their words) into the character encoder: the targets
are those vectors reduced to ``out_dim`` by PCA (which keeps the most of their geometry
a 64-d vector can hold), and the loss is ``1 - cosine``. This takes seconds on a CPU and
gives the character half a meaningful starting geometry instead of a random one.

Left out: LOVE's positional attention encoder (``PAMCharEcoder`` in the reference code)
and its contrastive mimicking loss; the CNN is the simpler LOVE-CNN variant.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn

#: bytes 0..255 map to ids 1..256; id 0 is padding
VOCAB_SIZE = 257


def char_ids(phrases: Sequence[str], max_chars: int = 48) -> torch.Tensor:
    """UTF-8 byte ids (+1) of each phrase, right-padded with 0 to the longest (<= ``max_chars``)."""
    encoded = [p.encode("utf-8")[:max_chars] or b" " for p in phrases]
    width = max((len(b) for b in encoded), default=1)
    out = torch.zeros(len(encoded), width, dtype=torch.long)
    for i, b in enumerate(encoded):
        out[i, : len(b)] = torch.frombuffer(bytearray(b), dtype=torch.uint8).long() + 1
    return out


class CharEncoder(nn.Module):
    """Byte embeddings -> multi-width CNN -> masked max-pool -> linear to ``out_dim``."""

    def __init__(self, out_dim: int = 64, emb_dim: int = 32, filters: int = 64,
                 widths: Sequence[int] = (2, 3, 4, 5), dropout: float = 0.1):
        super().__init__()
        self.config = dict(out_dim=out_dim, emb_dim=emb_dim, filters=filters, widths=list(widths), dropout=dropout)
        self.out_dim = out_dim
        self.embedding = nn.Embedding(VOCAB_SIZE, emb_dim, padding_idx=0)
        # padding="same"-like: pad so every width sees short phrases (1-2 bytes) too
        self.convs = nn.ModuleList(nn.Conv1d(emb_dim, filters, w, padding=w - 1) for w in widths)
        self.dropout = nn.Dropout(dropout)
        self.fc = nn.Linear(filters * len(widths), out_dim)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.embedding(ids).transpose(1, 2)  # (batch, emb, chars)
        valid = (ids > 0).unsqueeze(1)  # (batch, 1, chars)
        pooled = []
        for conv in self.convs:
            h = torch.relu(conv(x))[..., : ids.shape[1]]  # keep one output per input position
            h = h.masked_fill(~valid, float("-inf")).amax(dim=2)
            pooled.append(torch.nan_to_num(h, neginf=0.0))  # an all-padding row -> 0
        return self.fc(self.dropout(torch.cat(pooled, dim=1)))


def distill_init(
    encoder: CharEncoder,
    phrases: Sequence[str],
    teacher_vectors: np.ndarray,
    steps: int = 300,
    batch_size: int = 256,
    lr: float = 3e-3,
    seed: int = 0,
) -> list[float]:
    """Train ``encoder`` in place to predict the PCA-reduced ``teacher_vectors`` of ``phrases``.

    ``teacher_vectors`` are the backbone's vectors of the same phrases (one row each);
    returns the loss (mean ``1 - cosine``) of every step, so callers can show it fell.
    """
    from sklearn.decomposition import PCA

    if len(phrases) != len(teacher_vectors):
        raise ValueError(f"{len(phrases)} phrases but {len(teacher_vectors)} teacher vectors")
    if len(phrases) < encoder.out_dim:
        raise ValueError(f"distillation needs at least out_dim={encoder.out_dim} phrases, got {len(phrases)}")
    teacher = np.asarray(teacher_vectors, np.float32)
    reduced = PCA(n_components=min(encoder.out_dim, teacher.shape[1]), random_state=seed).fit_transform(teacher)
    targets = torch.zeros(len(teacher), encoder.out_dim)  # a teacher narrower than out_dim: zero-pad
    targets[:, : reduced.shape[1]] = torch.from_numpy(np.ascontiguousarray(reduced, dtype=np.float32))
    ids = char_ids(phrases)
    gen = torch.Generator().manual_seed(seed)
    opt = torch.optim.Adam(encoder.parameters(), lr=lr)
    losses = []
    encoder.train()
    for _ in range(steps):
        idx = torch.randint(len(phrases), (min(batch_size, len(phrases)),), generator=gen)
        batch = ids[idx]
        batch = batch[:, : int((batch > 0).sum(1).max())]  # trim padding columns
        pred = encoder(batch)
        loss = (1 - nn.functional.cosine_similarity(pred, targets[idx], dim=1)).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses
