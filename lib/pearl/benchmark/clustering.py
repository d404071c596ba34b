"""Entity clustering's score: KMeans with k = the number of types, scored by NMI against the types,
in a form that does not hang on one KMeans initialisation, with the evaluator's own noise beside it.

The paper says only "We apply KMeans [...] and use the NMI metric" (appendix A.1). The authors'
evaluation code runs ``KMeans(n_clusters=k, random_state=0)`` once: scikit-learn's default
``n_init`` (10 before scikit-learn 1.4), the lowest-inertia of ten starts drawn from one seed. On
the clustering sets that answer moves with the seed: the KMeans objective has many solutions whose
inertias differ in the fourth or fifth significant digit and whose NMIs differ by whole points, and
ten starts land on whichever of them the seed favours (``results/clustering_stability.json``
measures it).

Two protocols, named by :data:`PROTOCOLS`:

- ``"lowest-inertia"`` (the default): k-means++ starts, each run by Lloyd's algorithm until no
  label changes, in float64, in rounds of :data:`RESTARTS` until :data:`CONFIRM` starts have
  reached the lowest inertia (at most :data:`MOST_STARTS`); the score is the NMI of the solution
  with the lowest inertia. It is *the* KMeans solution (the one the objective prefers) as far as
  the starts can find it, and found more than once, so a second seed finds the same one or one
  of nearly the same inertia (not always the same: a lower one that few starts reach may turn up
  under one seed only). The dict says how much the answer still hangs on the starts
  (``restarts``: how many ran):
  ``nmi_std``, the bootstrap standard deviation of the score (the starts resampled with
  replacement, the lowest inertia taken again); ``best_share``, the share of starts that reached
  the lowest inertia; ``nmi_near_best``, the lowest and highest NMI of the starts within
  :data:`NEAR_BEST` (relative) of the lowest inertia (the solutions KMeans can hardly tell apart);
  ``nmi_restart_mean`` and ``nmi_restart_std``, the NMI of a single start (the noise of a
  one-start evaluator).
  Averaging NMI over seeds instead was rejected: single starts are bimodal (a poor local minimum
  scores a few points of NMI, the good ones many times more), so the mean mixes in solutions
  KMeans itself rejects, and its spread shrinks only as one over the square root of the seeds.
- ``"single-seed"``: the protocol of every table scored before it, ``KMeans(k, random_state=seed,
  n_init=n_init)`` on the float32 vectors, kept so that those tables' numbers stay reproducible.

What the bootstrap cannot see: a solution none of the starts found. ``best_share`` says how often
the best one was found; a run that stopped at :data:`MOST_STARTS` without :data:`CONFIRM` starts
at its best is a warning that more starts may find a lower one.

What it leaves out: encoding the mentions (:func:`pearl.benchmark.evaluate.evaluate_clustering`
does that and calls :func:`cluster_score`), the task's data (:mod:`pearl.benchmark.tasks`).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

#: the clustering protocols: the default first
PROTOCOLS = ("lowest-inertia", "single-seed")
#: the default protocol's k-means++ starts come in rounds of RESTARTS, until CONFIRM starts have
#: reached the lowest inertia or MOST_STARTS have run
RESTARTS = 100
CONFIRM = 3
MOST_STARTS = 1000
#: a start within this share of the lowest inertia counts as near-best (``nmi_near_best``)
NEAR_BEST = 1e-3
#: bootstrap resamples behind ``nmi_std``
BOOTSTRAP = 1000


def _reached(inertia: np.ndarray) -> np.ndarray:
    """Which starts reached the lowest inertia (to float rounding: one fixed point, found twice)."""
    return inertia <= inertia.min() * (1 + 1e-9)


def kmeans_starts(vectors: np.ndarray, k: int, seed: int = 0, restarts: int = RESTARTS, confirm: int = CONFIRM,
                  most: int = MOST_STARTS) -> tuple[np.ndarray, np.ndarray]:
    """``(inertia of each start, cluster of each row under each start)``: rounds of ``restarts``
    k-means++ starts on ``vectors`` (float64), each run until no label changes (``tol=0``), until
    ``confirm`` starts have reached the lowest inertia or ``most`` starts have run.

    Stopping on a repeated best rather than after a fixed count: on a small set, or one whose best
    solution few starts reach, a hundred starts may find it once or not at all, and a second seed
    then lands on a near-equal solution with another NMI. The starts' seeds are the first of
    ``np.random.SeedSequence(seed)``'s, so two seeds give two independent sets of starts.
    Each start runs on one OpenMP thread: on cores shared with other jobs scikit-learn's waiting
    threads spin, which made a start on a few hundred mentions tens of times slower on two
    threads than on one."""
    from sklearn.cluster import KMeans
    from threadpoolctl import threadpool_limits

    if not 1 <= restarts <= most or confirm < 1:
        raise ValueError(f"need 1 <= restarts <= most and confirm >= 1, got restarts={restarts}, most={most}, "
                         f"confirm={confirm}")
    x = np.asarray(vectors, np.float64)
    seeds = np.random.SeedSequence(seed).generate_state(most)
    inertia, labels = [], []
    with threadpool_limits(limits=1, user_api="openmp"):
        while len(inertia) < most and (not inertia or _reached(np.array(inertia)).sum() < confirm):
            for start in seeds[len(inertia):len(inertia) + restarts]:
                fit = KMeans(n_clusters=k, init="k-means++", n_init=1, tol=0.0, random_state=int(start)).fit(x)
                inertia.append(fit.inertia_)
                labels.append(fit.labels_)
    return np.array(inertia), np.array(labels)


def lowest_inertia_score(inertia: np.ndarray, nmi: np.ndarray, seed: int = 0, resamples: int = BOOTSTRAP) -> dict:
    """The ``"lowest-inertia"`` protocol's numbers from each start's inertia and NMI (x100): the
    score (the NMI of the lowest inertia) and its noise (see the module docstring).

    Three starts, two at the lowest inertia: a resample misses both with chance p = (1/3)^3, so
    the score's bootstrap std is about 45 * sqrt(p (1 - p)), 8.5:

    >>> out = lowest_inertia_score(np.array([10.0, 10.0, 12.0]), np.array([50.0, 50.0, 5.0]))
    >>> out["score"], round(out["best_share"], 3), out["nmi_near_best"], round(out["nmi_std"])
    (50.0, 0.667, [50.0, 50.0], 9)
    """
    inertia, nmi = np.asarray(inertia, np.float64), np.asarray(nmi, np.float64)
    best = int(np.argmin(inertia))
    floor = inertia[best]
    near = inertia <= floor * (1 + NEAR_BEST)
    # a start resampled R times with replacement stands for a fresh set of R starts
    draws = np.random.default_rng(seed).integers(len(inertia), size=(resamples, len(inertia)))
    picked = draws[np.arange(resamples), inertia[draws].argmin(1)]
    return {"score": float(nmi[best]), "nmi_std": float(nmi[picked].std()),
            "best_share": float(np.mean(_reached(inertia))),
            "nmi_near_best": [float(nmi[near].min()), float(nmi[near].max())],
            "nmi_restart_mean": float(nmi.mean()), "nmi_restart_std": float(nmi.std()),
            "inertia": float(floor), "restarts": len(inertia)}


def cluster_score(vectors: np.ndarray, types: Sequence, seed: int = 0, protocol: str = PROTOCOLS[0],
                  restarts: int = RESTARTS, n_init: int = 10) -> dict:
    """KMeans (k = the number of distinct ``types``) on ``vectors`` under ``protocol``, NMI x100
    against ``types``: ``score``, ``protocol``, and the protocol's own details (module docstring).
    ``restarts`` serves ``"lowest-inertia"``, ``n_init`` ``"single-seed"``."""
    from sklearn.metrics import normalized_mutual_info_score

    if protocol not in PROTOCOLS:
        raise ValueError(f"clustering protocol {protocol!r} is not one of {PROTOCOLS}: pass protocol="
                         f"{PROTOCOLS[0]!r} (the default) or {PROTOCOLS[1]!r} (the tables scored before it)")
    truth = list(types)
    k = len(set(truth))
    if protocol == "single-seed":
        from sklearn.cluster import KMeans

        found = KMeans(n_clusters=k, random_state=seed, n_init=n_init).fit_predict(vectors)
        return {"score": 100 * float(normalized_mutual_info_score(truth, found)), "protocol": protocol,
                "seed": seed, "n_init": n_init}
    inertia, labels = kmeans_starts(vectors, k, seed, restarts)
    nmi = np.array([100 * normalized_mutual_info_score(truth, found) for found in labels])
    return {**lowest_inertia_score(inertia, nmi, seed), "protocol": protocol, "seed": seed}
