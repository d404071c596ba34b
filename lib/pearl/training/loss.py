"""PEARL's objective (§3.3-3.4) and, behind the same trainer, two neighbours' objectives.

- :func:`info_nce` (eq. 2): cosine similarities divided by a temperature (0.07); each
  phrase's positive is its augmented copy, and *every other* vector in the batch is a
  negative: the other phrases, their augmented copies and all the hard negatives. Both
  the phrase and its copy are anchors (the symmetric NT-Xent form the reference code uses
  through ``pytorch_metric_learning.NTXentLoss``), averaged over the ``2B`` anchors.
- :func:`type_loss` (eq. 3-4): cross-entropy of the phrase-type head on the phrases and
  their augmented copies (a copy keeps its phrase's type). PEARL minimises the sum
  ``info_nce + type_weight * type_loss``.
- :func:`triplet_loss`: Phrase-BERT's objective (anchor, positive, negative, Euclidean
  margin on normalised vectors). SimCSE needs no loss of its own: it is :func:`info_nce`
  with the phrase itself as "augmentation", the two dropout masks making the difference.

- :func:`pu_loss`: PAUSE's positive-unlabeled objective, the non-negative PU risk (nnPU,
  Kiryo et al. 2017) over pairs: (phrase, its copy) pairs are the labelled positives, every
  other pair in the batch (other phrases, their copies, the hard negatives) is *unlabeled*
  rather than negative, with class prior ``prior``.

Left out of :func:`pu_loss`: PAUSE's pair classifier over ``(u, v, |u-v|)`` (the score here
is the scaled cosine ``(cos - shift) / temperature``, a fixed affine map, so the embedding
alone is trained), its polynomial annealing of the PU term and its class-prior estimate
(the prior is a parameter).

Worked example: two orthogonal phrases whose copies are exact, no hard negatives; each
anchor sees its copy at cosine 1 and two candidates at cosine 0:

>>> import torch, math
>>> z = torch.eye(2)
>>> round(float(info_nce(z, z, temperature=1.0)), 4) == round(-math.log(math.e / (math.e + 2)), 4)
True
"""
from __future__ import annotations

import torch
from torch.nn import functional as F


def info_nce(originals: torch.Tensor, augmented: torch.Tensor, negatives: torch.Tensor | None = None,
             temperature: float = 0.07) -> torch.Tensor:
    """Eq. 2 over a batch: ``originals[i]`` and ``augmented[i]`` are positives of each other.

    Shapes: ``(B, d)``, ``(B, d)``, ``(M, d)`` (hard negatives, optional; never anchors).
    """
    if originals.shape != augmented.shape:
        raise ValueError(f"originals {tuple(originals.shape)} and augmented {tuple(augmented.shape)} differ")
    b = originals.shape[0]
    anchors = F.normalize(torch.cat([originals, augmented]).float(), dim=-1)
    candidates = anchors
    if negatives is not None and len(negatives):
        candidates = torch.cat([anchors, F.normalize(negatives.float(), dim=-1)])
    logits = anchors @ candidates.T / temperature
    self_mask = torch.eye(2 * b, candidates.shape[0], dtype=torch.bool, device=logits.device)
    logits = logits.masked_fill(self_mask, float("-inf"))  # an anchor is not its own candidate
    target = torch.cat([torch.arange(b, 2 * b), torch.arange(b)]).to(logits.device)
    return F.cross_entropy(logits, target)


def pu_loss(originals: torch.Tensor, augmented: torch.Tensor, negatives: torch.Tensor | None = None,
            prior: float = 0.05, temperature: float = 0.07, shift: float = 0.5) -> torch.Tensor:
    """PAUSE-style nnPU risk with the sigmoid loss ``l(z, y) = sigmoid(-y z)`` on pair scores
    ``z = (cos - shift) / temperature``::

        R = prior * mean_P l(z, +1) + max(0, mean_U l(z, -1) - prior * mean_P l(z, -1))

    P: the ``B`` (phrase, copy) pairs; U: each phrase against every other phrase, every other
    copy and every hard negative. When the bracket goes negative (the model over-fits the
    unlabeled pairs as negatives) the returned value is ``-bracket``, whose gradient pushes it
    back up: the nnPU update (β = 0, γ = 1), written as a loss for ``backward()``.

    >>> z = torch.eye(2)  # copies exact (cos 1), the other phrase orthogonal (cos 0)
    >>> s = torch.sigmoid(torch.tensor(0.5))  # temperature 1: z_P = 0.5, z_U = -0.5
    >>> expected = 0.5 * (1 - s) + (1 - s) - 0.5 * s
    >>> bool(torch.isclose(pu_loss(z, z, prior=0.5, temperature=1.0), expected))
    True
    """
    if originals.shape != augmented.shape:
        raise ValueError(f"originals {tuple(originals.shape)} and augmented {tuple(augmented.shape)} differ")
    if not 0 < prior < 1:
        raise ValueError(f"the class prior must be in (0, 1), got {prior}")
    b = originals.shape[0]
    o = F.normalize(originals.float(), dim=-1)
    others = [F.normalize(augmented.float(), dim=-1)]
    if negatives is not None and len(negatives):
        others.append(F.normalize(negatives.float(), dim=-1))
    cands = torch.cat([o, *others])
    z = (o @ cands.T - shift) / temperature  # (B, B + B + M): phrases, copies, negatives
    positive = torch.zeros_like(z, dtype=torch.bool)
    positive[torch.arange(b), b + torch.arange(b)] = True
    self_pair = torch.zeros_like(positive)
    self_pair[torch.arange(b), torch.arange(b)] = True
    z_p, z_u = z[positive], z[~positive & ~self_pair]
    risk_p = prior * torch.sigmoid(-z_p).mean()
    risk_n = torch.sigmoid(z_u).mean() - prior * torch.sigmoid(z_p).mean()
    return risk_p + risk_n if risk_n >= 0 else -risk_n


def type_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Eq. 3-4: cross-entropy of the phrase-type head (labels index :data:`pearl.phrases.LABELS`)."""
    return F.cross_entropy(logits.float(), labels)


def triplet_loss(anchors: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor,
                 margin: float = 1.0) -> torch.Tensor:
    """Phrase-BERT: ``max(0, |a - p| - |a - n| + margin)`` on L2-normalised vectors.

    ``negatives`` may hold ``k`` rows per anchor (``(k*B, d)``, grouped by anchor).
    """
    a, p, n = (F.normalize(x.float(), dim=-1) for x in (anchors, positives, negatives))
    k = n.shape[0] // a.shape[0]
    if k * a.shape[0] != n.shape[0] or k == 0:
        raise ValueError(f"need k >= 1 negatives per anchor, got {n.shape[0]} for {a.shape[0]} anchors")
    return F.triplet_margin_loss(a.repeat_interleave(k, 0), p.repeat_interleave(k, 0), n, margin=margin)
