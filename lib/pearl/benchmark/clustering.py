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
  How the starts run: a round's starts run together (:func:`lloyd_round`), every running start's
  centres in one matrix and one matrix product per Lloyd iteration, a start leaving the batch when
  it converges; each start is still ``KMeans(k, init="k-means++", n_init=1, tol=0,
  random_state=its seed)`` (same k-means++ draws, same labels, inertias equal to float rounding;
  the tests hold it to scikit-learn start by start, so a scikit-learn that draws or
  updates otherwise fails them). ``perf/clustering_starts.py`` times a round
  against the per-start loop.
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
#: Lloyd iterations a start may run before it stops unconverged (scikit-learn's default ``max_iter``)
MAX_ITER = 300
#: BLAS threads of the starts' matrix products (the labels are the same on one thread or two)
THREADS = 1
#: the cluster sums are recomputed from scratch when more than one label in DENSE_SHARE changed
#: in an iteration, else moved row by row (a sparse product costs about ten times a dense one per entry)
DENSE_SHARE = 10


def _reached(inertia: np.ndarray) -> np.ndarray:
    """Which starts reached the lowest inertia (to float rounding: one fixed point, found twice)."""
    return inertia <= inertia.min() * (1 + 1e-9)


def kmeans_starts(vectors: np.ndarray, k: int, seed: int = 0, restarts: int = RESTARTS, confirm: int = CONFIRM,
                  most: int = MOST_STARTS, threads: int = THREADS) -> tuple[np.ndarray, np.ndarray]:
    """``(inertia of each start, cluster of each row under each start)``: rounds of ``restarts``
    k-means++ starts on ``vectors`` (float64), each run until no label changes (``tol=0``), until
    ``confirm`` starts have reached the lowest inertia or ``most`` starts have run.

    Stopping on a repeated best rather than after a fixed count: on a small set, or one whose best
    solution few starts reach, a hundred starts may find it once or not at all, and a second seed
    then lands on a near-equal solution with another NMI. The starts' seeds are the first of
    ``np.random.SeedSequence(seed)``'s, so two seeds give two independent sets of starts. Each
    start is ``KMeans(k, n_init=1, tol=0, random_state=its seed)``; a round's starts run together
    (:func:`lloyd_round`) on ``threads`` BLAS threads (the result does not depend on them)."""
    from threadpoolctl import threadpool_limits

    if not 1 <= restarts <= most or confirm < 1:
        raise ValueError(f"need 1 <= restarts <= most and confirm >= 1, got restarts={restarts}, most={most}, "
                         f"confirm={confirm}")
    seeds = np.random.SeedSequence(seed).generate_state(most)
    inertia, labels = np.empty(0), np.empty((0, len(vectors)), np.int64)
    with threadpool_limits(limits=threads, user_api="blas"):
        while len(inertia) < most and (not len(inertia) or _reached(inertia).sum() < confirm):
            more, found, _ = lloyd_round(vectors, k, seeds[len(inertia):len(inertia) + restarts])
            inertia, labels = np.concatenate([inertia, more]), np.concatenate([labels, found])
    return inertia, labels


def _plusplus(x: np.ndarray, norms: np.ndarray, k: int, states: Sequence) -> np.ndarray:
    """Each start's k-means++ centres, ``(starts, k)`` row indices into ``x``: scikit-learn's greedy
    k-means++ (``2 + log k`` candidates a centre, the one that lowers the potential most kept),
    run for every start at once.

    Each start draws from its own ``RandomState(seed)`` exactly what ``KMeans(random_state=seed)``
    draws: the first centre by ``choice(n, p=uniform)``, then ``2 + log k`` uniforms per further
    centre (drawn together: the stream is the same). The candidates' distances to every row are
    one matrix product for all starts' candidates."""
    n = len(x)
    trials = 2 + int(np.log(k))
    weight = np.ones(n)
    rngs = [np.random.RandomState(int(s)) for s in states]
    chosen = np.empty((len(rngs), k), np.int64)
    chosen[:, 0] = [rng.choice(n, p=weight / weight.sum()) for rng in rngs]
    uniforms = np.array([rng.uniform(size=(k - 1, trials)) for rng in rngs]).reshape(len(rngs), k - 1, trials)
    closest = _sq_distances(x[chosen[:, 0]], x, norms[chosen[:, 0]], norms)
    potential = closest @ weight
    for c in range(1, k):
        cumulative = np.cumsum(closest, axis=1)
        targets = uniforms[:, c - 1] * potential[:, None]
        candidates = np.array([np.searchsorted(row, t) for row, t in zip(cumulative, targets)])
        np.clip(candidates, None, n - 1, out=candidates)
        flat = candidates.reshape(-1)
        distance = _sq_distances(x[flat], x, norms[flat], norms).reshape(len(rngs), trials, n)
        np.minimum(closest[:, None], distance, out=distance)
        pots = distance @ weight
        best = pots.argmin(1)
        rows = np.arange(len(rngs))
        potential, closest = pots[rows, best], distance[rows, best]
        chosen[:, c] = candidates[rows, best]
    return chosen


def _sq_distances(a: np.ndarray, x: np.ndarray, a_norms: np.ndarray, x_norms: np.ndarray) -> np.ndarray:
    """Squared distances of each row of ``a`` to each row of ``x`` as scikit-learn forms them
    (``-2 a.x + |a|^2 + |x|^2``, clipped at 0), so that k-means++ picks the same candidates."""
    out = -2 * (a @ x.T)
    out += a_norms[:, None]
    out += x_norms[None, :]
    return np.maximum(out, 0, out=out)


def _sums(x: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each start's cluster sums ``(starts, k, d)`` and sizes ``(starts, k)`` from scratch, for
    ``labels`` ``(n, starts)``: one matrix product (a one-hot matrix of every start's clusters times ``x``)."""
    n, starts = labels.shape
    onehot = np.zeros((n, starts * k))
    onehot[np.arange(n)[:, None], labels + np.arange(starts) * k] = 1.0
    return (onehot.T @ x).reshape(starts, k, -1), onehot.sum(0).reshape(starts, k)


def _resum(x: np.ndarray, new: np.ndarray, old: np.ndarray, sums: np.ndarray, counts: np.ndarray, k: int
           ) -> tuple[np.ndarray, np.ndarray]:
    """The cluster sums and sizes after the labels went from ``old`` to ``new`` (both ``(n, starts)``):
    only the rows that changed cluster are moved (a sparse product), unless more than one entry in
    :data:`DENSE_SHARE` changed (the first iteration, all of them), then from scratch (:func:`_sums`).

    Why not from scratch every time: that is a second product the size of the assignment's, and
    after the first few iterations few rows move. The sums it keeps differ from fresh ones only
    by float rounding (each move adds one rounding of the sum's size)."""
    rows, cols = np.nonzero(new != old)
    if len(rows) * DENSE_SHARE > new.size:
        return _sums(x, new, k)
    from scipy import sparse

    starts, d = new.shape[1], x.shape[1]
    into, out_of = cols * k + new[rows, cols], cols * k + old[rows, cols]
    moves = sparse.csr_matrix((np.r_[np.ones(len(rows)), -np.ones(len(rows))], (np.r_[into, out_of], np.r_[rows, rows])),
                              shape=(starts * k, len(x)))
    sizes = counts.reshape(-1) + np.bincount(into, minlength=starts * k) - np.bincount(out_of, minlength=starts * k)
    return sums + (moves @ x).reshape(starts, k, d), sizes.reshape(starts, k).astype(np.float64)


def _means(x: np.ndarray, labels: np.ndarray, centres: np.ndarray, sums: np.ndarray, counts: np.ndarray
           ) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's update for a batch of starts from their cluster sums and sizes: the new centres, and
    whether each start's centres stood still. ``labels`` ``(n, starts)`` were assigned by ``centres``.

    An emptied cluster moves to the row farthest from its centre, taken from that row's cluster (on
    a copy of the sums: the labels do not change), and a mean is a multiplication by the reciprocal
    size: both as scikit-learn does it."""
    sums, counts = sums.copy(), counts.copy()
    for s in np.flatnonzero((counts == 0).any(1)):
        _relocate(x, labels[:, s], centres[s], sums[s], counts[s])
    new = np.empty_like(sums)
    filled = counts > 0
    new[filled] = sums[filled] * (1.0 / counts[filled])[:, None]
    for s, j in zip(*np.nonzero(~filled)):  # scikit-learn puts a cluster still empty on the biggest one
        new[s, j] = new[s, counts[s].argmax()]
    return new, (new == centres).all(axis=(1, 2))


def _relocate(x: np.ndarray, labels: np.ndarray, centres: np.ndarray, sums: np.ndarray, counts: np.ndarray) -> None:
    """One start's empty clusters, in place, as ``sklearn.cluster._k_means_common``'s
    ``_relocate_empty_clusters_dense`` does: each takes one of the rows farthest from their centres."""
    empty = np.flatnonzero(counts == 0)
    distances = ((x - centres[labels]) ** 2).sum(axis=1)
    if distances.max() == 0:
        return
    far = np.argpartition(distances, -len(empty))[:-len(empty) - 1:-1]
    for cluster, row in zip(empty, far):
        sums[labels[row]] -= x[row]
        sums[cluster] = x[row]
        counts[cluster] = 1.0
        counts[labels[row]] -= 1.0


def _assign(x: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row's nearest centre under each start, ``(n, starts)``, and ``|c|^2 - 2 x.c`` for it
    (the row's squared distance less ``|x|^2``): one matrix product for all starts' centres
    ``(starts, k, d)``, formed as scikit-learn forms it (the factor -2 on the centres is exact);
    ties go to the lower cluster, as in scikit-learn."""
    starts, k, d = centres.shape
    flat = centres.transpose(1, 0, 2).reshape(k * starts, d)  # cluster-major: a cluster's column of every start together
    scores = x @ (-2 * flat).T
    scores += np.einsum("ij,ij->i", flat, flat)
    scores = scores.reshape(len(x), k, starts)
    best, labels = scores[:, 0].copy(), np.zeros((len(x), starts), np.int64)
    for j in range(1, k):
        labels[scores[:, j] < best] = j
        np.minimum(best, scores[:, j], out=best)
    return labels, best


def lloyd_round(vectors: np.ndarray, k: int, states: Sequence, max_iter: int = MAX_ITER
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(inertia, labels, iterations)`` of one k-means++ start per seed in ``states``, all run
    together: the same as ``KMeans(k, init="k-means++", n_init=1, tol=0, random_state=seed)`` on
    ``vectors`` in float64 for each seed (same draws, same labels, inertias equal to float
    rounding), at one matrix product per Lloyd iteration for every start still running.

    A start stops when no label changes (or after ``max_iter`` iterations, then the labels are
    taken once more from its last centres); a stopped start leaves the batch. Like scikit-learn it
    works on the rows less their mean (the distances are more accurate). Leaves out the choice of
    BLAS threads (the caller's ``threadpool_limits``)."""
    from sklearn.utils.extmath import row_norms

    x = np.array(vectors, np.float64)
    x -= x.mean(axis=0)
    norms = row_norms(x, squared=True)
    starts = len(states)
    centres = x[_plusplus(x, norms, k, states)]
    labels = np.full((len(x), starts), -1, np.int64)
    sums, counts = np.zeros_like(centres), np.zeros((starts, k))
    iterations = np.zeros(starts, np.int64)
    nearest = np.zeros((len(x), starts))  # each row's |c|^2 - 2 x.c to its centre: the inertia's terms less |x|^2
    running = np.arange(starts)
    for _ in range(max_iter):
        (new, near), old = _assign(x, centres[running]), labels[:, running]
        sums[running], counts[running] = _resum(x, new, old, sums[running], counts[running], k)
        centres[running], still = _means(x, new, centres[running], sums[running], counts[running])
        iterations[running] += 1
        same = (new == old).all(0)
        labels[:, running], nearest[:, running] = new, near
        # stopped without a strict convergence: the labels of the last centres, as scikit-learn reruns the E-step
        stalled = running[still & ~same]
        if len(stalled):
            labels[:, stalled], nearest[:, stalled] = _assign(x, centres[stalled])
        running = running[~(same | still)]
        if not len(running):
            break
    else:
        labels[:, running], nearest[:, running] = _assign(x, centres[running])
    # the inertia from the last assignment's products: a strictly converged start's centres are the
    # ones its labels were assigned by (no label moved, so neither did a sum)
    return (norms[:, None] + nearest).sum(0), labels.T.copy(), iterations


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


def check_clustering(vectors: np.ndarray, truth: list, k: int) -> None:
    """The bounds of a clustering score, each a ``ValueError`` saying what is wrong and the fix (scikit-learn
    failed inside on some, and took others): a vector per mention, at least two types, more mentions than
    types (k = n puts each mention in a cluster of its own, and KMeans cannot place k > n centres), finite vectors."""
    vectors = np.asarray(vectors)
    n = len(truth)
    if vectors.ndim != 2 or len(vectors) != n:
        raise ValueError(f"clustering got {len(vectors)} vectors for {n} mentions: give one vector per mention")
    if n == 0:
        raise ValueError("clustering got no mentions: give the task's mentions (a tiny size keeps at least a few)")
    if k < 2:
        raise ValueError(f"clustering needs at least two entity types, got {k}: the NMI of one cluster is undefined")
    if k >= n:
        raise ValueError(f"clustering got {n} mentions of {k} types: k-means needs more mentions than types "
                         "(k = n makes every mention its own cluster); give more mentions")
    bad = np.flatnonzero(~np.isfinite(vectors).all(axis=1))
    if len(bad):
        raise ValueError(f"clustering got non-finite vectors ({len(bad)} of them, the first for mention {bad[0]}): "
                         "the model gives NaN or infinity there; check its weights (pearl.backbones.weights.verify)")


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
    check_clustering(vectors, truth, k)
    if protocol == "single-seed":
        from sklearn.cluster import KMeans

        found = KMeans(n_clusters=k, random_state=seed, n_init=n_init).fit_predict(vectors)
        return {"score": 100 * float(normalized_mutual_info_score(truth, found)), "protocol": protocol,
                "seed": seed, "n_init": n_init}
    inertia, labels = kmeans_starts(vectors, k, seed, restarts)
    nmi = np.array([100 * normalized_mutual_info_score(truth, found) for found in labels])
    return {**lowest_inertia_score(inertia, nmi, seed), "protocol": protocol, "seed": seed}
