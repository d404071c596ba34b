"""How PEARL's two views share its embedding: variance, clustering and the split KMeans makes.

The PEARL embedding joins a phrase view and a character view (:func:`pearl.training.model.join_parts`).
Giving the character part a weight fixes its share of the *cosine*, not of the *variance*:
when the phrase vectors all point near one direction (an anisotropic backbone), their unit
vectors vary little and the character part, though short, holds most of what varies. KMeans
(entity clustering) follows variance, so it then splits mentions by surface form.

This module measures that, for one model and one clustering set:

- :func:`total_variance`: the trace of the covariance of a set of vectors;
- :func:`view_report`: each view's variance, its share of the joined embedding's variance and
  the clustering NMI of the phrase part, the character part and the joined embedding, with the
  phrase part centred or not (KMeans: k = #types, seed 0, n_init 10, on L2-normalised vectors:
  :func:`pearl.benchmark.evaluate.evaluate_clustering`'s ``protocol="single-seed"``, its protocol
  when the committed readings were made, not its default now);
- :func:`split_surface`: what the 2-means clusters of a set hold in surface terms (a first
  capital letter, an all-capitals token, length), to read what a split follows.

What it leaves out: training (it reads vectors a model gave) and plotting (``pearl.display``).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..training.composition import char_share, total_variance, unit  # noqa: F401 (re-exported: the views' measures)


def join(phrase: np.ndarray, chars: np.ndarray | None, char_scale: float, centre: np.ndarray | None = None) -> np.ndarray:
    """The PEARL embedding of already computed parts, in float64: ``[(p-m)/|p-m| ; a c/|c|]``, by
    the model's own :func:`pearl.training.model.join_parts` (``centre`` None: m = 0)."""
    import torch

    from ..training.model import join_parts

    p = torch.from_numpy(np.asarray(phrase, np.float64))
    c = torch.from_numpy(np.asarray(chars, np.float64)) if chars is not None else None
    m = torch.from_numpy(np.asarray(centre, np.float64)) if centre is not None else None
    return join_parts(p, c, char_scale, m).numpy()


def nmi(vectors: np.ndarray, labels: Sequence[str], seed: int = 0, n_init: int = 10) -> tuple[float, np.ndarray]:
    """(NMI x100, cluster of each row) of KMeans with k = #labels on L2-normalised ``vectors``."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    k = len(set(labels))
    clusters = KMeans(n_clusters=k, random_state=seed, n_init=n_init).fit_predict(unit(vectors))
    return 100 * float(normalized_mutual_info_score(list(labels), clusters)), clusters


def view_report(phrase: np.ndarray, chars: np.ndarray | None, char_scale: float, labels: Sequence[str],
                centre: np.ndarray | None = None) -> dict:
    """Variance and clustering of each view and of the joined embedding (see the module docstring).

    ``phrase``: the phrase part's raw pooled vectors; ``chars``: the character part's (None for a
    model without one); ``centre``: the phrase part's centre (None: uncentred, the old join).
    """
    p = unit(phrase - centre if centre is not None else phrase)
    out = {"var_phrase": total_variance(p), "nmi_phrase": nmi(p, labels)[0]}
    if chars is None:
        return {**out, "var_char": None, "char_share": 0.0, "nmi_char": None, "nmi_embedding": out["nmi_phrase"]}
    c = char_scale * unit(chars)
    var_c = total_variance(c)
    return {**out, "var_char": var_c, "char_share": char_share(out["var_phrase"], var_c),
            "nmi_char": nmi(c, labels)[0], "nmi_embedding": nmi(np.hstack([p, c]), labels)[0]}


def split_surface(phrases: Sequence[str], clusters: Sequence[int]) -> list[dict]:
    """Per cluster: its size, the share of phrases starting with a capital letter, the share
    holding an all-capitals token of two letters or more, and the mean length in characters.

    >>> split_surface(["NaCl", "fever", "HIV", "cough"], [0, 1, 0, 1])[0]
    {'cluster': 0, 'n': 2, 'first_upper': 1.0, 'all_caps_token': 0.5, 'mean_chars': 3.5}
    """
    rows = []
    clusters = np.asarray(clusters)
    for k in sorted(set(clusters.tolist())):
        members = [p for p, c in zip(phrases, clusters) if c == k]
        rows.append({"cluster": int(k), "n": len(members),
                     "first_upper": float(np.mean([p[:1].isupper() for p in members])),
                     "all_caps_token": float(np.mean([any(len(t) > 1 and t.isalpha() and t.isupper() for t in p.split())
                                                      for p in members])),
                     "mean_chars": float(np.mean([len(p) for p in members]))})
    return rows
