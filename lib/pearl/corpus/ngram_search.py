"""Approximate edit-distance candidates for hard-negative mining: faiss over character n-grams.

Exact mining (:func:`pearl.corpus.hard_negatives.edit_candidates`) compares each anchor with
every phrase that shares a block with it (a content token, or one with a letter deleted): a
few thousand Levenshtein distances per anchor. Here each phrase becomes a vector of hashed
character n-gram counts (scikit-learn's ``HashingVectorizer``, ``dim`` buckets, L2-normalised,
so the inner product is the cosine of the n-gram profiles), and a faiss index returns each
anchor's ``probe`` nearest phrases: an IVF-Flat index (``nlist`` k-means cells, ``nprobe`` of
them visited) or HNSW (``hnsw_m`` links, ``ef_search``). Those neighbours then go through the
exact path's own filters, in its order: share a block (of 2 to ``max_block`` phrases),
normalised Levenshtein distance at most ``max_distance``, the ``limit`` closest (ties by phrase
id). So an exhaustive search (``probe`` at least the number of phrases, ``nprobe = nlist``)
returns exactly :func:`~pearl.corpus.hard_negatives.edit_candidates`' lists (tested); smaller
settings miss a candidate whose n-gram profile is not among the ``probe`` nearest.
``perf/hard_negative_mining.py`` measures that recall and the cost against exact mining.

Left out: product quantisation and GPU indexes (the float32 index of a
whole-corpus build fits in memory uncompressed), and persisting the index (it is rebuilt in a minute).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

import numpy as np

INDEXES = ("ivf", "hnsw")


@dataclass(frozen=True)
class AnnSettings:
    """How the approximate search runs. ``nlist = 0`` picks ``4 * sqrt(phrases)`` cells."""

    index: str = "ivf"
    dim: int = 256  # hashed n-gram buckets
    ngrams: tuple[int, int] = (2, 3)  # character n-gram lengths, within word boundaries
    nlist: int = 0
    nprobe: int = 16
    probe: int = 64  # neighbours fetched per anchor before the Levenshtein filter
    hnsw_m: int = 32
    ef_search: int = 128
    seed: int = 0  # k-means training sample and initialisation

    def cells(self, n: int) -> int:
        return self.nlist or max(1, min(n, int(4 * np.sqrt(n))))

    def check(self, n: int, limit: int) -> None:
        """A ``ValueError`` naming the fix for settings that cannot work on ``n`` phrases."""
        if self.index not in INDEXES:
            raise ValueError(f"unknown index {self.index!r}: choose one of {', '.join(INDEXES)}")
        if self.dim < 8:
            raise ValueError(f"dim={self.dim} is too small to tell phrases apart: use dim >= 8 (256 is the default)")
        lo, hi = self.ngrams
        if not 1 <= lo <= hi:
            raise ValueError(f"ngrams={self.ngrams} must be (low, high) with 1 <= low <= high, e.g. (2, 3)")
        if self.probe < min(limit, n - 1):  # on a pool smaller than limit, probe = n is exhaustive
            raise ValueError(f"probe={self.probe} < limit={limit}: fetch at least as many neighbours as "
                             f"candidates kept (probe >= {limit})")
        if self.index == "ivf":
            cells = self.cells(n)
            if cells > n:
                raise ValueError(f"nlist={cells} cells for {n} phrases: use nlist <= {n} (0 picks 4 * sqrt(n))")
            if not 1 <= self.nprobe <= cells:
                raise ValueError(f"nprobe={self.nprobe} must be between 1 and nlist={cells}: "
                                 f"nprobe = nlist is the exhaustive search")
        elif self.hnsw_m < 2 or self.ef_search < self.probe:
            raise ValueError(f"hnsw_m={self.hnsw_m}, ef_search={self.ef_search}: use hnsw_m >= 2 and "
                             f"ef_search >= probe={self.probe}")


def ngram_vectors(phrases: list[str], dim: int = 256, ngrams: tuple[int, int] = (2, 3),
                  chunk: int = 100_000) -> np.ndarray:
    """``(len(phrases), dim)`` float32, L2-normalised hashed character n-gram counts (lower-cased).

    >>> v = ngram_vectors(["the war", "the way", "lobster"], dim=64)
    >>> bool(v[0] @ v[1] > v[0] @ v[2])
    True
    """
    from sklearn.feature_extraction.text import HashingVectorizer

    vec = HashingVectorizer(analyzer="char_wb", ngram_range=tuple(ngrams), n_features=dim,
                            alternate_sign=False, norm="l2", lowercase=True, dtype=np.float32)
    out = np.empty((len(phrases), dim), dtype=np.float32)
    for s in range(0, len(phrases), chunk):  # dense in slices: the sparse matrix of all is larger
        out[s:s + chunk] = vec.transform(phrases[s:s + chunk]).toarray()
    return out


def build_index(vectors: np.ndarray, settings: AnnSettings):
    """A faiss inner-product index over ``vectors`` (trained on a seeded sample for IVF)."""
    import faiss

    n, dim = vectors.shape
    if settings.index == "hnsw":
        index = faiss.IndexHNSWFlat(dim, settings.hnsw_m, faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efSearch = settings.ef_search
    else:
        cells = settings.cells(n)
        index = faiss.IndexIVFFlat(faiss.IndexFlatIP(dim), dim, cells, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = settings.seed
        # k-means wants about 40 points a cell (faiss warns below 39); more only slows training
        rng = np.random.default_rng(settings.seed)
        sample = np.sort(rng.choice(n, size=min(n, 40 * cells), replace=False))
        index.cp.min_points_per_centroid = 1  # tiny corpora (tests) train without a warning
        index.train(vectors[sample])
        index.nprobe = settings.nprobe
    index.add(vectors)
    return index


_NON_WORD = re.compile(r"\W+")


def _keys(phrase: str, stop) -> set[str]:
    """The block keys of :func:`pearl.corpus.hard_negatives.blocks`, for one phrase."""
    keys = set()
    for t in (_NON_WORD.sub("", w.casefold()) for w in phrase.split()):
        if t and t not in stop:
            keys.add(t)
            if len(t) >= 3:
                keys.update("~" + t[:j] + t[j + 1:] for j in range(len(t)))
    return keys


def _shares_block(phrase: str, own: set[str], stop) -> bool:
    """Whether one of ``phrase``'s block keys is in ``own`` (:func:`_keys`, stopping at the first)."""
    for t in (_NON_WORD.sub("", w.casefold()) for w in phrase.split()):
        if t and t not in stop:
            if t in own:
                return True
            if len(t) >= 3 and any("~" + t[:j] + t[j + 1:] in own for j in range(len(t))):
                return True
    return False


class NgramIndex:
    """The n-gram vectors, the faiss index and the block sizes of ``phrases``, built once, so that
    several anchor sets (a benchmark's sample, then every phrase) share one build."""

    def __init__(self, phrases: list[str], settings: AnnSettings | None = None, max_block: int = 2000,
                 limit: int = 32):
        from spacy.lang.en.stop_words import STOP_WORDS

        self.phrases, self.settings, self.max_block, self.stop = phrases, settings or AnnSettings(), max_block, STOP_WORDS
        self.settings.check(len(phrases), limit)
        self.sizes = Counter(k for p in phrases for k in _keys(p, STOP_WORDS))
        self.vectors = ngram_vectors(phrases, self.settings.dim, self.settings.ngrams)
        self.index = build_index(self.vectors, self.settings)

    def candidates(self, anchors: list[int] | None = None, max_distance: float = 0.5, limit: int = 32,
                   progress: bool = False, batch: int = 16_384) -> list[list[int]]:
        """Each anchor's candidate ids, as :func:`candidates` describes."""
        from rapidfuzz import process
        from rapidfuzz.distance import Levenshtein
        from tqdm.auto import tqdm

        phrases, stop = self.phrases, self.stop
        self.settings.check(len(phrases), limit)
        anchors = list(range(len(phrases))) if anchors is None else list(anchors)
        fetch = min(self.settings.probe + 1, len(phrases))  # +1: the anchor finds itself
        out = []
        for s in tqdm(range(0, len(anchors), batch), disable=not progress, desc="ann candidates", unit="batch"):
            ids = anchors[s:s + batch]
            _, found = self.index.search(self.vectors[ids], fetch)
            for i, row in zip(ids, found):
                near = sorted({int(j) for j in row if j >= 0} - {i})
                own = {k for k in _keys(phrases[i], stop) if 1 < self.sizes[k] <= self.max_block}
                if not near or not own:
                    out.append([])
                    continue
                hits = process.extract(phrases[i], [phrases[j] for j in near], scorer=Levenshtein.normalized_distance,
                                       score_cutoff=max_distance, limit=None)
                kept = []
                for h in hits:  # sorted by distance, then by phrase id: the exact path's order
                    j = near[h[2]]
                    if _shares_block(phrases[j], own, stop):
                        kept.append(j)
                        if len(kept) == limit:
                            break
                out.append(kept)
        return out


def candidates(phrases: list[str], max_distance: float = 0.5, limit: int = 64, max_block: int = 2000,
               progress: bool = False, anchors: list[int] | None = None,
               settings: AnnSettings | None = None) -> list[list[int]]:
    """Like :func:`pearl.corpus.hard_negatives.edit_candidates`, from the ``settings.probe``
    nearest n-gram profiles of each anchor instead of its whole blocks."""
    return NgramIndex(phrases, settings, max_block, limit).candidates(anchors, max_distance, limit, progress)
