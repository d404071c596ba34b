"""PEARL's objective (§3.3-3.4) and, behind the same trainer, its neighbours' objectives.

- :func:`info_nce` (eq. 2): cosine similarities divided by a temperature (0.07); each
  phrase's positive is its augmented copy, and *every other* vector in the batch is a
  negative: the other phrases, their augmented copies and all the hard negatives. Both
  the phrase and its copy are anchors (the symmetric NT-Xent form the reference code uses
  through ``pytorch_metric_learning.NTXentLoss``), averaged over the ``2B`` anchors.
- :func:`type_loss` (eq. 3-4): cross-entropy of the phrase-type head on the phrases and
  their augmented copies (a copy keeps its phrase's type). PEARL minimises the sum
  ``info_nce + type_weight * type_loss``.
- :func:`simcse_loss`: unsupervised SimCSE (Gao et al. 2021, eq. 1), one direction only.
- :func:`phrase_bert_loss`: Phrase-BERT's triplet objective (Wang et al. 2021).
- :func:`pause_loss`: PAUSE (Cao et al. 2021): supervised loss on the labelled pairs plus the
  non-negative PU risk (:func:`nnpu_risk`) weighted by the polynomial annealing :func:`anneal_weight`.

Which pairs, positives and negatives each method sees is the trainer's business
(:mod:`pearl.training.objectives`); these functions only take vectors.

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


def _same_shape(a: torch.Tensor, b: torch.Tensor, names=("originals", "augmented")) -> None:
    if a.shape != b.shape:
        raise ValueError(f"{names[0]} {tuple(a.shape)} and {names[1]} {tuple(b.shape)} differ")


def info_nce(originals: torch.Tensor, augmented: torch.Tensor, negatives: torch.Tensor | None = None,
             temperature: float = 0.07) -> torch.Tensor:
    """Eq. 2 over a batch: ``originals[i]`` and ``augmented[i]`` are positives of each other.

    Shapes: ``(B, d)``, ``(B, d)``, ``(M, d)`` (hard negatives, optional; never anchors).
    """
    _same_shape(originals, augmented)
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


def type_loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Eq. 3-4: cross-entropy of the phrase-type head (labels index :data:`pearl.corpus.phrases.LABELS`)."""
    return F.cross_entropy(logits.float(), labels)


# ------------------------------------------------------------------ SimCSE
def simcse_loss(first: torch.Tensor, second: torch.Tensor, negatives: torch.Tensor | None = None,
                temperature: float = 0.05) -> torch.Tensor:
    """Unsupervised SimCSE (Gao et al. 2021, eq. 1): ``first[i]`` and ``second[i]`` are the same
    phrase under two dropout masks, and every other phrase's second view is a negative::

        l_i = -log( exp(cos(h_i, h'_i) / t) / sum_j exp(cos(h_i, h'_j) / t) ),   t = 0.05

    averaged over the ``B`` anchors ``h_i`` (one direction, as in the paper; PEARL's
    :func:`info_nce` is symmetric and also counts the anchors' own batch as negatives). With
    ``negatives`` (``(M, d)``) they join every anchor's candidates: the paper's supervised form (eq. 5).
    """
    _same_shape(first, second, ("first", "second"))
    anchors = F.normalize(first.float(), dim=-1)
    candidates = F.normalize(second.float(), dim=-1)
    if negatives is not None and len(negatives):
        candidates = torch.cat([candidates, F.normalize(negatives.float(), dim=-1)])
    logits = anchors @ candidates.T / temperature
    return F.cross_entropy(logits, torch.arange(len(anchors), device=logits.device))


# ------------------------------------------------------------------ Phrase-BERT
PHRASE_BERT_FORMS = ("margin", "softmax")


def in_batch_negatives(positives: torch.Tensor) -> torch.Tensor:
    """For anchor ``i``, every other phrase's positive: ``(B * (B - 1), d)``, grouped by anchor.

    >>> in_batch_negatives(torch.tensor([[0.], [1.], [2.]])).flatten().tolist()
    [1.0, 2.0, 0.0, 2.0, 0.0, 1.0]
    """
    b = positives.shape[0]
    if b < 2:
        raise ValueError("in-batch negatives need a batch of at least 2 phrases")
    idx = torch.arange(b, device=positives.device)
    others = idx.repeat(b, 1)[~torch.eye(b, dtype=torch.bool, device=positives.device)]
    return positives[others]


def phrase_bert_loss(anchors: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor,
                     margin: float = 1.0, form: str = "margin") -> torch.Tensor:
    """Phrase-BERT's triplet objective over ``(phrase, paraphrase, negative)`` triplets, with the
    Euclidean distance ``d`` between the embeddings as the model outputs them:

    - ``"margin"`` (default): ``max(0, d(a, p) - d(a, n) + margin)``, margin 1;
    - ``"softmax"``: ``-log( exp(-d(a, p)) / (exp(-d(a, p)) + exp(-d(a, n))) )``
      ``= softplus(d(a, p) - d(a, n))``: a softmax over the positive and the negative.

    Why ``"margin"``: it is the paper's (§3.1: a triplet loss where "||.|| denotes the L2 norm"
    and the margin is "set to 1"; the equation itself is lost in the text copy, its prose is
    not) and what trained the released Phrase-BERT: the authors' script
    (``phrase-bert/phrase_bert_finetune.py`` in github.com/sf-wa-326/phrase-bert-topic-model)
    fine-tunes with ``sentence_transformers.losses.TripletLoss(model)`` at its defaults, which
    in the version it pins (0.3.3, source read) are the Euclidean distance and margin 1, i.e.
    ``relu(d(a, p) - d(a, n) + 1)`` averaged over triplets (tests/training/test_loss.py checks
    it by hand). ``form="softmax"`` is kept as an option. Difference from the reference: its
    vectors are raw mean-pooled BERT outputs, ours the model's embedding, whose phrase part is
    L2-normalised (distances in [0, 2] without the character part), so the margin weighs more here.

    ``negatives`` holds ``k >= 1`` rows per anchor (``(k*B, d)``, grouped by anchor: mined hard
    negatives, or :func:`in_batch_negatives`); each row makes one triplet.
    """
    if form not in PHRASE_BERT_FORMS:
        raise ValueError(f"unknown Phrase-BERT loss form {form!r}; choose from {', '.join(PHRASE_BERT_FORMS)}")
    _same_shape(anchors, positives, ("anchors", "positives"))
    k = negatives.shape[0] // max(anchors.shape[0], 1)
    if k == 0 or k * anchors.shape[0] != negatives.shape[0]:
        raise ValueError(f"need k >= 1 negatives per anchor, got {negatives.shape[0]} for {anchors.shape[0]} anchors")
    a, p, n = (x.float() for x in (anchors, positives, negatives))
    d_pos = F.pairwise_distance(a, p).repeat_interleave(k)
    d_neg = F.pairwise_distance(a.repeat_interleave(k, 0), n)
    if form == "softmax":
        return F.softplus(d_pos - d_neg).mean()
    return F.relu(d_pos - d_neg + margin).mean()


# ------------------------------------------------------------------ PAUSE
def anneal_weight(step: int, total: int, alpha: float = 3.0) -> float:
    """PAUSE's polynomial annealing of the PU term: ``(step / total) ** alpha``, from 0 at the
    first step towards 1 at the end, so the supervised part leads while the embedding is still
    poor and the PU risk (which needs sensible scores on the unlabeled pairs) grows in later.

    The formula and α = 3 are those of the authors' code (``train_nli.py`` in
    github.com/EQTPartners/pause: ``nnpu_loss_weight.assign(pow(batch / num_train_steps, 3))``
    before each batch); there ``batch`` is Keras' index *within the epoch*, so the weight
    restarts every epoch and stays below ``(1 / epochs) ** 3``. Here ``step`` is the global
    0-based step, so the weight covers the whole run once: the schedule the name describes.

    >>> [anneal_weight(t, 10) for t in (0, 5, 10)]
    [0.0, 0.125, 1.0]
    """
    if not alpha > 0:
        raise ValueError(f"the annealing exponent must be > 0, got {alpha}")
    if total <= 0 or not 0 <= step <= total:
        raise ValueError(f"step {step} of {total}: need 0 <= step <= total and total > 0")
    return (step / total) ** alpha


def nnpu_risk(z_p: torch.Tensor, z_u: torch.Tensor, prior: float) -> torch.Tensor:
    """Non-negative PU risk (Kiryo et al. 2017) with the sigmoid loss ``l(z, y) = sigmoid(-y z)``::

        R = prior * mean_P l(z, +1) + max(0, mean_U l(z, -1) - prior * mean_P l(z, -1))

    When the bracket goes negative the value returned is ``-bracket``, whose gradient pushes it
    back up (the nnPU update with β = 0, γ = 1, as PAUSE's ``calculate_losses``). No labelled
    pair (``z_p`` empty): the P terms are 0, as PAUSE's ``max(1, #P)`` denominators give.
    """
    if not 0 < prior < 1:
        raise ValueError(f"the class prior must be in (0, 1), got {prior}")
    n_p = max(len(z_p), 1)
    risk_p = prior * torch.sigmoid(-z_p).sum() / n_p
    risk_n = torch.sigmoid(z_u).mean() - prior * torch.sigmoid(z_p).sum() / n_p
    return torch.where(risk_n >= 0, risk_p + risk_n, -risk_n)


def pause_loss(originals: torch.Tensor, positives: torch.Tensor, negatives: torch.Tensor | None,
               labelled: torch.Tensor, prior: float = 0.05, weight: float = 1.0, temperature: float = 0.07,
               shift: float = 0.5, supervised: bool = True) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """PAUSE's loss on pairs of a batch: ``(total, supervised, pu)`` with
    ``total = supervised + weight * nnpu_risk(P, U, prior)``; with ``supervised=False``,
    ``total = nnpu_risk(P, U, prior)`` alone (``weight`` unused): the paper's binary case.

    Pairs are scored ``z = (cos(u, v) - shift) / temperature`` (a fixed affine map of the
    cosine, so the embedding is trained for the cosine it is used with; PAUSE scores pairs with
    a trained classifier over ``(u, v, |u - v|)`` that is thrown away after training).

    - P, labelled positives: ``(phrase i, positive i)`` where ``labelled[i]``;
    - U, unlabeled: phrase ``i`` against every other phrase, every other positive, every
      negative, and its own positive when that pair is not labelled;
    - supervised part: PAUSE's binary cross-entropy (eq. 2) on the labelled pairs; they are all
      positives here, so it is ``mean_P -log sigmoid(z)`` (0 without labelled pairs).

    Deviation from the paper, kept as the default for the methods table: for a binary task
    with positive labels only (ours: "is a paraphrase"), PAUSE §3.2 says the supervised loss
    "can be safely ignored" and §3.4 that the overall loss "will fall back to L_PU"; the
    supervised term then only pulls positive pairs together, with no negative in it, and the
    annealing leaves it almost alone for the first half of the run. ``supervised=False`` is
    the paper's form (``PauseSettings.pu_only``, :mod:`pearl.training.objectives`).
    """
    _same_shape(originals, positives, ("originals", "positives"))
    b = originals.shape[0]
    if labelled.shape != (b,):
        raise ValueError(f"labelled has shape {tuple(labelled.shape)}, expected ({b},): one flag per phrase")
    o = F.normalize(originals.float(), dim=-1)
    cands = [o, F.normalize(positives.float(), dim=-1)]
    if negatives is not None and len(negatives):
        cands.append(F.normalize(negatives.float(), dim=-1))
    z = (o @ torch.cat(cands).T - shift) / temperature  # (B, B + B + M): phrases, positives, negatives
    rows = torch.arange(b, device=z.device)
    own = torch.zeros_like(z, dtype=torch.bool)
    own[rows, b + rows] = True
    p_mask = own & labelled.to(z.device).bool()[:, None]
    u_mask = ~p_mask
    u_mask[rows, rows] = False  # a phrase is no pair of itself
    z_p, z_u = z[p_mask], z[u_mask]
    sup = F.softplus(-z_p).mean() if len(z_p) else z.sum() * 0
    pu = nnpu_risk(z_p, z_u, prior)
    return (sup + weight * pu if supervised else pu), sup, pu
