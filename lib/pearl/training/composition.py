"""How PEARL's two views join for a given backbone: whether the phrase part is centred and how large
the character part may be, decided by a rule that reads the backbone on the training vocabulary.

The embedding is ``[(p - m)/|p - m| ; a c/|c|]`` (:func:`pearl.training.model.join_parts`). The rule:

- **Centring** (m): the phrase part is centred on the training vocabulary's mean only when the
  backbone is *anisotropic*: when the mean resultant length ``R = |mean of the unit phrase
  vectors|`` exceeds :data:`CENTRE_ABOVE` = 1/sqrt(2). For unit vectors ``R**2 = 1 - V``, V their
  total variance, so ``R > 1/sqrt(2)`` says that the one direction every vector shares holds more
  than half of each vector's squared length: normalised as they are, such vectors vary little and
  a character part of any size takes over what varies. Otherwise the phrase part is left as the
  backbone gives it (m = 0): centring an isotropic backbone changes its geometry for nothing (on
  MiniLM it cost the gain: ``results/views_mechanism.md``).
- **The character part's scale** (a, ``char_scale``: the applied one): the setting ``char_weight`` w (the asked
  one), capped so that the character
  part holds at most ``max_char_share`` s of the embedding's total variance on the training
  vocabulary: ``a = min(w, sqrt(s / (1 - s) * V_p / V_c))``, with V_p the total variance of the
  phrase part as it is joined (unit vectors, centred or not) and V_c that of the unit character
  vectors; at the cap ``a**2 V_c / (V_p + a**2 V_c) = s``. A cap, not a fixed share: below it the
  weight keeps its old meaning (a scale beside the unit phrase part), and above it no setting can
  hand KMeans a split on surface form (a backbone whose phrase part varies little gets a smaller
  character part). ``max_char_share=None`` switches the cap off (the fixed weight of the tables
  scored before it).

What it leaves out: why the cap is where it is (chosen on the clustering sets' development splits,
``scripts/composition.py``, with the sweep in ``results/composition.md``), encoding the two parts
(:meth:`pearl.training.model.PearlModel.compose` does, at the start of training and again after
weight averaging) and joining them (:func:`pearl.training.model.join_parts`).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

#: the mean resultant length of the unit phrase vectors above which the phrase part is centred
CENTRE_ABOVE = 2 ** -0.5



def unit(x: np.ndarray) -> np.ndarray:
    """Rows scaled to unit L2 norm (a zero row stays zero), in float64."""
    x = np.asarray(x, np.float64)
    return x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12)


def total_variance(x: np.ndarray) -> float:
    """The total variance (trace of the covariance, population form) of the rows of ``x``.

    >>> total_variance(np.array([[1.0, 0.0], [-1.0, 0.0]]))
    1.0
    """
    x = np.asarray(x, np.float64)
    return float(((x - x.mean(0)) ** 2).sum(1).mean())


def resultant_length(vectors: np.ndarray) -> float:
    """The mean resultant length of the rows: the norm of the mean of their unit vectors (1: all
    point one way; near 0: no shared direction).

    >>> round(resultant_length(np.array([[1.0, 0.0], [0.0, 1.0]])), 4)
    0.7071
    """
    return float(np.linalg.norm(unit(vectors).mean(0)))


def cap_weight(var_phrase: float, var_char: float, share: float) -> float:
    """The character scale at which it holds ``share`` of the total variance beside a phrase part of
    total variance ``var_phrase`` (``var_char``: that of the unit character vectors).

    >>> cap_weight(1.0, 1.0, 0.2)  # a**2 / (1 + a**2) = 0.2
    0.5
    """
    return float(np.sqrt(share / (1 - share) * var_phrase / var_char))


def char_share(var_phrase: float, var_char: float) -> float:
    """The character part's share of the embedding's total variance, ``var_char`` being that of the
    character part as joined (scaled), ``var_phrase`` that of the phrase part.

    >>> char_share(3.0, 1.0)
    0.25
    """
    return var_char / (var_phrase + var_char)


def applied_scale(record: dict) -> float | None:
    """The applied character scale a recorded in ``record`` (a ``pearl.json`` or its ``composition``):
    its ``char_scale``, or ``char_weight``, the key of the records written before the asked weight
    and the applied scale had a name each; None when it holds neither.

    >>> applied_scale({"char_weight": 0.25}), applied_scale({"char_scale": 0.1, "char_weight": 0.25})
    (0.25, 0.1)
    """
    return record.get("char_scale", record.get("char_weight"))


@dataclass(frozen=True)
class Composition:
    """What the rule decided for one model, and the statistics it read (``pearl.json``'s ``composition``)."""

    centred: bool
    char_scale: float  # the scale a the character part is joined with (the applied one)
    asked_weight: float  # the setting TrainConfig.char_weight w (the asked one)
    max_char_share: float | None
    resultant_length: float  # of the unit phrase vectors, uncentred
    var_phrase: float  # total variance of the phrase part as joined
    var_char: float  # total variance of the unit character vectors
    vocabulary: int  # how many strings the statistics were read on

    @property
    def char_share(self) -> float:
        """The character part's share of the total variance on the training vocabulary."""
        return char_share(self.var_phrase, self.char_scale ** 2 * self.var_char)

    def record(self) -> dict:
        return {**asdict(self), "char_share": self.char_share, "centre_above": CENTRE_ABOVE}


def compose(phrase: np.ndarray, chars: np.ndarray, char_weight: float, max_char_share: float | None,
            centre: bool | None = None) -> tuple[Composition, np.ndarray]:
    """(the :class:`Composition`, the centre m as float32, zeros when not centred) for the raw
    pooled phrase vectors ``phrase`` and raw character vectors ``chars`` of the training vocabulary.
    ``centre`` None: the rule decides; True or False: forced (the recipes before the rule)."""
    phrase = np.asarray(phrase, np.float64)
    if len(phrase) < 2 or not np.isfinite(phrase).all():
        raise ValueError(f"compose() reads the statistics of the training vocabulary, and got {len(phrase)} "
                         f"string{'s' if len(phrase) != 1 else ''}{'' if np.isfinite(phrase).all() else ' with non-finite vectors'}: "
                         "it needs at least two (train on more phrases, or raise TrainConfig.char_distill_vocab)")
    r = resultant_length(phrase)
    centred = r > CENTRE_ABOVE if centre is None else bool(centre)
    m = phrase.mean(0) if centred else np.zeros(phrase.shape[1])
    var_p, var_c = total_variance(unit(phrase - m)), total_variance(unit(chars))
    if not var_p > 0:  # every string gave one vector: no share of the variance can be read (it divided by zero)
        raise ValueError(f"compose(): the {len(phrase)} strings of the training vocabulary give the same phrase vector "
                         "(variance 0), so the character part's share cannot be read: train on a vocabulary of "
                         "distinct phrases (TrainConfig.char_distill_vocab), or set max_char_share=None")
    weight = float(char_weight)
    if max_char_share is not None and var_c > 0:
        weight = min(weight, cap_weight(var_p, var_c, max_char_share))
    comp = Composition(bool(centred), weight, float(char_weight), max_char_share, r, var_p, var_c, len(phrase))
    return comp, m.astype(np.float32)
