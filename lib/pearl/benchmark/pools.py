"""Pooled candidate sets: the sweep suite's retrieval against a few hard names per query
instead of the whole dictionary.

Scoring one model on the whole YAGO stand-in means encoding 235,270 names, which the sweep
suite cannot afford for every ablation. A random subsample of the dictionary that keeps the
gold names is no substitute: it drops the very names a model confuses the gold with, and
top-1 accuracy rises well above the whole dictionary's. Pooling, as TREC builds its judgement pools, keeps
instead, for each sampled query, its gold names and the names that two fixed **reference
retrievers** rank highest in the whole dictionary:

- lexical: cosine of character 3-gram TF-IDF vectors (scikit-learn), the spelling confusions;
- semantic: cosine under the untrained MiniLM (:data:`REFERENCE`), the confusions of meaning.

A model whose nearest wrong name is in the pool gets the score it would get on the whole
dictionary; one whose nearest wrong name is outside the pool is scored too kindly. Pooled
scores are therefore upper bounds, tightest for models whose confusions the references share
(the MiniLM family); ``perf/sweep_agreement.py`` measures the gap. Pools depend only on
the data and the reference model, so each is built once and cached, with its counts, as JSON
in ``data/derived/dictionaries/``.

>>> from pearl.encode import Encoder
>>> import numpy as np
>>> toy = Encoder(name="toy", dim=2, fn=lambda ps: np.array([[len(p), 1.0] for p in ps]))
>>> pool({"t": (["Pariss"], [["Paris"]], ["Paris", "Rome", "Oslo", "Parish"])}, toy, 1, 1)["t"]
['Paris', 'Parish']

What it leaves out: pooling from the scored models themselves (each model would get its own
pool, and the scores would stop being comparable across models).
"""
from __future__ import annotations

import hashlib
import json
import warnings
from typing import Sequence

import numpy as np

from .. import paths
from ..provenance import write_json

#: the semantic reference retriever (a name for :func:`pearl.models.load_model`)
REFERENCE = "minilm"
#: names kept per query from each reference retriever (see perf/sweep_agreement.py)
K_LEXICAL, K_SEMANTIC = 5, 5
#: bump when the recipe changes, so cached pools are rebuilt
VERSION = 1

#: one part = (queries, gold names of each query, the dictionary they are searched in)
Part = tuple[Sequence[str], Sequence[Sequence[str]], Sequence[str]]


def _top(sims: np.ndarray, k: int) -> np.ndarray:
    """Column indices of each row's ``k`` largest values (all columns when there are fewer)."""
    if k >= sims.shape[1]:
        return np.tile(np.arange(sims.shape[1]), (len(sims), 1))
    return np.argpartition(-sims, k - 1, axis=1)[:, :k]


def lexical_neighbours(queries: Sequence[str], names: Sequence[str], k: int, chunk: int = 256) -> np.ndarray:
    """Each query's ``k`` nearest names by cosine of character 3-gram TF-IDF vectors."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    vectorizer = TfidfVectorizer(analyzer="char_wb", ngram_range=(3, 3), dtype=np.float32)
    keys = vectorizer.fit_transform(names).T.tocsc()
    qs = vectorizer.transform(queries)
    # a dense (chunk x names) block at a time: 256 x 235,270 floats is 240 MB at most
    return np.vstack([_top((qs[s:s + chunk] @ keys).toarray(), k) for s in range(0, len(queries), chunk)])


def semantic_neighbours(queries: Sequence[str], names: Sequence[str], k: int, encoder) -> np.ndarray:
    """Each query's ``k`` nearest names by cosine under ``encoder`` (exact faiss search)."""
    import faiss

    from ..encode import encode

    keys = encode(encoder, list(names))
    index = faiss.IndexFlatIP(keys.shape[1])
    index.add(keys)
    return index.search(encode(encoder, list(queries)), min(k, len(names)))[1]


def pool(parts: dict[str, Part], encoder, k_lexical: int = K_LEXICAL, k_semantic: int = K_SEMANTIC) -> dict[str, list[str]]:
    """Per part, the pooled names in dictionary order: every gold name that is in the dictionary,
    and each query's ``k_lexical`` and ``k_semantic`` nearest names under the two references."""
    out = {}
    for label, (queries, gold, names) in parts.items():
        names = list(dict.fromkeys(names))
        index = {n: i for i, n in enumerate(names)}
        keep = np.zeros(len(names), dtype=bool)
        keep[[index[g] for golds in gold for g in golds if g in index]] = True
        if k_lexical:
            keep[lexical_neighbours(queries, names, k_lexical).ravel()] = True
        if k_semantic:
            keep[semantic_neighbours(queries, names, k_semantic, encoder).ravel()] = True
        out[label] = [n for n, k in zip(names, keep) if k]
    return out


def reference_encoder():
    """The semantic reference, loaded only when a pool is built (cached vectors: seconds after
    notebook 04 has scored MiniLM; a cold cache encodes every dictionary name once)."""
    from ..models import load_model

    return load_model(REFERENCE)


def cached_pool(task: str, parts: dict[str, Part]) -> tuple[dict[str, list[str]], dict]:
    """:func:`pool` of ``parts`` with the default references, built once and cached under
    ``data/derived/dictionaries/``; returns (pools, info with the counts)."""
    digest = hashlib.sha256(json.dumps([REFERENCE, K_LEXICAL, K_SEMANTIC, VERSION]).encode())
    for label in sorted(parts):
        queries, gold, names = parts[label]
        digest.update(json.dumps([label, list(queries), [list(g) for g in gold]]).encode())
        digest.update("\n".join(names).encode())
    path = paths.derived_dir("dictionaries", f"{task}_pool_{digest.hexdigest()[:10]}.json")
    if path.is_file():
        try:
            found = json.loads(path.read_text())
            return found["pools"], found["info"]
        except (ValueError, KeyError, TypeError):  # written atomically, so only a damaged file gets here
            warnings.warn(f"{path} is not a pool file; building the pool again and rewriting the file")
    pools = pool(parts, reference_encoder())
    info = {"kind": "pooled", "reference": REFERENCE, "k_lexical": K_LEXICAL, "k_semantic": K_SEMANTIC,
            "version": VERSION, "queries": sum(len(p[0]) for p in parts.values()),
            "pooled": sum(map(len, pools.values())), "dictionary": sum(len(set(p[2])) for p in parts.values())}
    try:
        write_json(path, {"pools": pools, "info": info})
    except OSError as err:  # a read-only data folder: the pool is still right, only built again next time
        warnings.warn(f"could not cache the pool in {path} ({err}); make the folder writable or set PEARL_OUTPUT")
    return pools, info
