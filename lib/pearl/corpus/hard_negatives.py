"""Hard negatives (paper §3.4): lexically close phrases that mean something else.

For each phrase of a corpus:

1. **Candidates by edit distance, with blocking.** Comparing every pair is quadratic, so a
   phrase is compared only with phrases that share a block: a content token (lower-cased,
   not a stop word), or a content token with one letter deleted (SymSpell-style keys, so
   "the war" meets "the way" through "wa"). Blocks larger than ``max_block`` are skipped.
   Within the candidates, rapidfuzz keeps those whose normalised Levenshtein distance is
   at most ``max_distance`` (the ``limit`` closest), one ``cdist`` call per block.
2. **Exclusions.** Never the phrase itself, nor anything that is one of its own
   augmentations or synonyms: the same text up to case and punctuation, or up to a plural
   "s" ("the wars"); the same tokens in another order (token swap); one token replaced by
   a WordNet/GloVe synonym of the lexicons; a paraphrase in the lexicons, in either direction.
   Another *real* phrase one letter away ("the way" for "the war") is kept: it is exactly
   the kind of hard negative the paper wants. (Character-level augmentations are random
   strings made during training and are not phrases of the corpus.)
3. **Lowest cosine.** Candidates are encoded with the backbone (:func:`pearl.encode.encode`)
   and the ``k`` (default 12) with the *lowest* cosine to the phrase are kept: close in
   spelling, far in meaning ("the war" vs "the way").

A phrase with fewer than ``k`` admissible candidates keeps what it has (the statistics
report how many have all ``k``). Encoding is the slow step on a CPU
(``perf/hard_negative_mining.py`` times each step), so :func:`mine` can work on the
``anchors`` most frequent phrases and encode only them and their candidates. ``method="ann"``
finds the candidates of step 1 approximately instead (:mod:`pearl.corpus.ngram_search`: faiss
over character n-grams, then the same filters); exact blocking stays the default and is what
every corpus here uses.
"""
from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

from .. import paths
from ..encode import encode
from ..guard import OPEN, Guard
from ..provenance import dumps_strict
from ..workers import forked_map, shared

#: decimals of the cosines that rank candidates (see :func:`select`)
ROUND = 5


def _norm(p: str) -> str:
    return re.sub(r"[\W_]+", "", p.casefold())


def _stem(p: str) -> str:
    return " ".join(re.sub(r"(es|s)$", "", w) for w in re.sub(r"[^\w\s]+", "", p.casefold()).split())


def blocks(phrases: list[str], max_block: int = 2000) -> dict[str, list[int]]:
    """``{block key: [phrase ids]}``: content tokens, and content tokens minus one letter.

    >>> sorted(k for k, v in blocks(["the war", "the way"]).items())
    ['~wa']
    """
    from spacy.lang.en.stop_words import STOP_WORDS

    out: dict[str, list[int]] = defaultdict(list)
    for i, p in enumerate(phrases):
        keys = set()
        for t in (re.sub(r"\W+", "", w.casefold()) for w in p.split()):
            if t and t not in STOP_WORDS:
                keys.add(t)
                if len(t) >= 3:
                    keys.update("~" + t[:j] + t[j + 1:] for j in range(len(t)))
        for key in keys:
            out[key].append(i)
    return {k: v for k, v in out.items() if 1 < len(v) <= max_block}


def edit_candidates(phrases: list[str], max_distance: float = 0.5, limit: int = 64,
                    max_block: int = 2000, progress: bool = False, anchors: list[int] | None = None,
                    slice_size: int = 200_000, by_key: list[list[int]] | None = None,
                    threads: int = -1) -> list[list[int]]:
    """For each anchor (default: every phrase), ids of up to ``limit`` phrases within
    normalised Levenshtein distance ``max_distance`` that share a block with it, closest first
    (ties by phrase id).

    Block by block, not anchor by anchor: each block's anchors against all its members in one
    ``rapidfuzz.process.cdist`` call (C++, over every pair of the block), then the hits of all
    blocks are merged per anchor by one sort. It compares the same pairs as a loop over anchors
    (each anchor against the union of its blocks) and returns the same lists (tested), with the
    per-pair work out of Python (``perf/hard_negative_mining.py`` times both on the whole
    corpus's pool). Anchors go in slices of ``slice_size`` so that the hits held at once
    stay bounded. ``by_key``: the blocks' member lists, when the caller built them already
    (:func:`mine`'s worker processes share one copy). ``threads``: rapidfuzz's threads for a large
    block (-1: every core; 1 in :func:`mine`'s workers, which already fill the cores).
    """
    from tqdm.auto import tqdm

    by_key = list(blocks(phrases, max_block).values()) if by_key is None else by_key
    anchors = np.arange(len(phrases)) if anchors is None else np.asarray(anchors, dtype=np.int64)
    out: list[list[int]] = []
    for s in range(0, len(anchors), slice_size):
        part = anchors[s:s + slice_size]
        bar = tqdm(by_key, disable=not progress, desc=f"edit candidates {s:,}+", unit="block", mininterval=5)
        out += _block_hits(phrases, part, bar, max_distance, limit, threads)
    return out


def _block_hits(phrases, anchors: np.ndarray, by_key, max_distance: float, limit: int,
                threads: int = -1) -> list[list[int]]:
    """:func:`edit_candidates` for one slice of anchors."""
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    is_anchor = np.zeros(len(phrases), dtype=bool)
    is_anchor[anchors] = True
    found_i, found_j, found_d = [], [], []
    for ids in by_key:
        ids = np.asarray(ids)
        rows = ids[is_anchor[ids]]
        if not len(rows):
            continue
        # float64 as process.extract: equal distances stay equal, so ties break the same way
        dist = process.cdist([phrases[i] for i in rows], [phrases[j] for j in ids],
                             scorer=Levenshtein.normalized_distance, score_cutoff=max_distance, dtype=np.float64,
                             workers=threads if len(rows) * len(ids) > 50_000 else 1)
        r, c = np.nonzero(dist <= max_distance)
        keep = rows[r] != ids[c]
        r, c = r[keep], c[keep]
        if len(r) > limit and np.bincount(r).max() > limit:
            # only a block's ``limit`` closest of an anchor can be among its ``limit`` closest over
            # all blocks (a block holds a phrase once), so the rest is dropped here: the hits held
            # stay a few per anchor instead of every pair within the distance (hundreds of millions
            # for a million anchors)
            order = np.lexsort((c, dist[r, c], r))  # ids ascend within a block: c breaks ties by id
            r, c = r[order], c[order]
            rank = np.arange(len(r)) - np.searchsorted(r, r)
            r, c = r[rank < limit], c[rank < limit]
        found_i.append(rows[r]), found_j.append(ids[c]), found_d.append(dist[r, c])
    if not found_i:
        return [[] for _ in anchors]
    i, j, d = np.concatenate(found_i), np.concatenate(found_j), np.concatenate(found_d)
    order = np.lexsort((j, d, i))  # by anchor, then distance, then phrase id
    i, j = i[order], j[order]
    # a pair that shares two blocks was found twice, with the same distance: adjacent after the sort
    first = np.ones(len(i), dtype=bool)
    first[1:] = (i[1:] != i[:-1]) | (j[1:] != j[:-1])
    i, j = i[first], j[first]
    start, end = np.searchsorted(i, anchors), np.searchsorted(i, anchors, side="right")
    return [j[a:min(b, a + limit)].tolist() for a, b in zip(start, end)]


def is_augmentation(phrase: str, cand: str, lexicons=None) -> bool:
    """Whether ``cand`` is ``phrase`` itself or one of its augmentations/synonyms.

    >>> is_augmentation("New York", "new-york"), is_augmentation("New York", "York New")
    (True, True)
    >>> is_augmentation("the war", "the way"), is_augmentation("the war", "The Wars")
    (False, True)
    """
    if _norm(phrase) == _norm(cand) or _stem(phrase) == _stem(cand):
        return True
    a, b = phrase.split(), cand.split()
    if sorted(a) == sorted(b):
        return True
    if lexicons is None:
        return False
    if cand in lexicons.paraphrases.get(phrase, ()) or phrase in lexicons.paraphrases.get(cand, ()):
        return True
    if len(a) == len(b):
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        if len(diff) == 1:
            x, y = diff[0][0].lower(), diff[0][1].lower()
            for table in (lexicons.wordnet, lexicons.glove):
                if y in table.get(x, ()) or x in table.get(y, ()):
                    return True
    return False


def profile_anchors(profile: str, anchors: int) -> int:
    """How many of the most frequent phrases to mine for: ``anchors`` on the cpu profile; 0 (every
    phrase) on the others, where a GPU encodes the whole corpus in seconds."""
    return anchors if profile == "cpu" else 0


def mine(phrases: list[str], model, k: int = 12, lexicons=None, max_distance: float = 0.5, limit: int = 32,
         max_block: int = 2000, vectors: np.ndarray | None = None, anchors: int | None = None,
         progress: bool = False, method: str = "exact", ann=None, workers: int = 1):
    """``({phrase: [hard negative, ...]}, stats)`` with up to ``k`` negatives per phrase,
    lowest cosine first.

    ``anchors`` mines for the first ``anchors`` phrases only (pass them most frequent
    first), encoding just those and their candidates: the CPU budget. ``vectors``
    (L2-normalised, one row per phrase) skips encoding. ``method``: ``"exact"`` (blocking) or
    ``"ann"`` (:func:`pearl.corpus.ngram_search.candidates` with ``ann``, an
    :class:`~pearl.corpus.ngram_search.AnnSettings`; None: its defaults). ``workers`` > 1 runs
    steps 1 to 3 of the exact method in that many forked processes, over contiguous parts of the
    anchors (a phrase's list depends on no other anchor), and returns the same lists; encoding
    stays in this process (one GPU or the model's own threads).
    """
    import time

    t0 = time.perf_counter()
    phrases = list(dict.fromkeys(p for p in phrases if p and p.strip()))
    ids = list(range(len(phrases) if not anchors else min(anchors, len(phrases))))
    if workers > 1:
        if method != "exact":
            raise ValueError(f"workers={workers} splits the exact method only: pass workers=1 with method={method!r}")
        parts = forked_map(_candidates_part, _parts(ids, workers), workers, dict(
            phrases=phrases, lexicons=lexicons, max_distance=max_distance, limit=limit,
            by_key=list(blocks(phrases, max_block).values())))
        raw, cands = [r for part in parts for r in part[0]], [c for part in parts for c in part[1]]
    else:
        raw = candidate_lists(phrases, ids, method, max_distance, limit, max_block, ann, progress)
        cands = admissible(phrases, ids, raw, lexicons)
    n_raw, kept = sum(map(len, raw)), sum(map(len, cands))
    need = sorted(set(ids) | {j for c in cands for j in c})
    t1 = time.perf_counter()
    if vectors is None:
        encoded = encode(model, [phrases[j] for j in need], progress=progress)
        vectors = np.zeros((len(phrases), encoded.shape[1]), dtype=np.float32)
        vectors[need] = encoded
    t2 = time.perf_counter()
    if workers > 1:
        parts = forked_map(_select_part, _parts(ids, workers), workers,
                           dict(phrases=phrases, vectors=vectors, k=k, cands=dict(zip(ids, cands))))
        negatives = {p: n for part in parts for p, n in part[0].items()}
        cosines = [c for part in parts for c in part[1]]
    else:
        negatives, cosines = select(phrases, ids, cands, vectors, k)
    rng = np.random.default_rng(0)
    pairs = rng.choice(need, size=(2, min(20_000, len(need) ** 2))) if need else np.zeros((2, 0), int)
    counts = [len(v) for v in negatives.values()]
    stats = {
        "phrases": len(phrases), "anchors": len(ids), "encoded": len(need),
        "candidates_s": round(t1 - t0, 2), "encode_s": round(t2 - t1, 2),
        "encode_phrases_per_s": len(need) / max(t2 - t1, 1e-9),
        "with_negatives": len(negatives),
        "share_of_anchors_with_k": float(sum(c == k for c in counts) / max(len(ids), 1)),
        "mean_negatives": float(np.mean(counts)) if counts else 0.0,
        "mean_admissible_candidates": float(np.mean([len(c) for c in cands])) if cands else 0.0,
        "share_excluded_as_augmentation": float(1 - kept / n_raw) if n_raw else 0.0,
        "mean_cosine_hard_negative": float(np.mean(cosines)) if cosines else None,
        "mean_cosine_random_pair": float(np.mean(np.sum(vectors[pairs[0]] * vectors[pairs[1]], axis=1)))
        if pairs.size else None,
    }
    if method != "exact":  # the exact path's statistics keep their keys: results files compare them
        stats["method"] = method
    return negatives, stats


def _parts(ids: list[int], workers: int) -> list[list[int]]:
    """``ids`` in contiguous parts, a few a worker, so that a slow part does not hold the rest."""
    n = min(len(ids), 4 * workers)
    bounds = np.linspace(0, len(ids), n + 1).astype(int) if n else np.zeros(1, int)
    return [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _candidates_part(part: list[int]):
    s = shared()
    raw = edit_candidates(s["phrases"], s["max_distance"], s["limit"], anchors=part, by_key=s["by_key"], threads=1)
    return raw, admissible(s["phrases"], part, raw, s["lexicons"])


def _select_part(part: list[int]):
    s = shared()
    return select(s["phrases"], part, [s["cands"][i] for i in part], s["vectors"], s["k"])


def candidate_lists(phrases: list[str], anchors: list[int], method: str = "exact", max_distance: float = 0.5,
                    limit: int = 32, max_block: int = 2000, ann=None, progress: bool = False) -> list[list[int]]:
    """Step 1 for each anchor id, by exact blocking or by the approximate n-gram search."""
    if method == "ann":
        from .ngram_search import candidates

        return candidates(phrases, max_distance, limit, max_block, progress, anchors=anchors, settings=ann)
    if method != "exact":
        raise ValueError(f"unknown method {method!r}: use 'exact' (blocking, the default) or 'ann' (faiss)")
    return edit_candidates(phrases, max_distance, limit, max_block, progress, anchors=anchors)


def admissible(phrases: list[str], anchors: list[int], raw: list[list[int]], lexicons=None) -> list[list[int]]:
    """Step 2: each anchor's candidates less its own augmentations and synonyms."""
    return [[j for j in c if not is_augmentation(phrases[i], phrases[j], lexicons)] for i, c in zip(anchors, raw)]


def select(phrases: list[str], anchors: list[int], cands: list[list[int]], vectors, k: int = 12):
    """Step 3: ``({anchor: its k admissible candidates of lowest cosine}, [their cosines])``;
    ``vectors[j]`` is phrase ``j``'s (a mapping of the ids needed will do)."""
    negatives, cosines = {}, []
    for i, keep in zip(anchors, cands):
        if not keep:
            continue
        sims = np.stack([vectors[j] for j in keep]) @ vectors[i]
        # ranked on cosines rounded to 1e-5, ties in candidate order: a phrase's vector moves in the
        # 7th decimal with the batch that encoded it (fresh or from the embedding cache), which
        # otherwise reorders equal candidates ("the war" / "The War": one uncased input)
        order = np.argsort(np.round(sims, ROUND), kind="stable")[:k]
        negatives[phrases[i]] = [phrases[keep[j]] for j in order]
        cosines.extend(sims[order].tolist())
    return negatives, cosines


def write_hard_negatives(negatives: dict[str, list[str]], path: Path | None = None, guard: Guard = OPEN) -> Path:
    """Write ``{phrase: [hard negative, ...]}`` atomically, by ``guard.write`` (the file has no
    metadata of its own, so a caller that marks its outputs marks it there)."""
    path = Path(path) if path else paths.derived_dir("hard_negatives.json")
    return guard.write({path: dumps_strict(negatives, indent=None, ensure_ascii=False) + "\n"})[0]


class HardNegatives(dict):
    """``{phrase: [hard negative, ...]}`` with ``types``: the type label of every phrase of the corpus
    they were mined from. The reference batch layout (:mod:`pearl.training.batches`) gives a
    hard negative a row with its type label, and a training corpus cut to the mined anchors (or a
    share of them) no longer holds most negatives' labels; a plain dict has no ``types``.

    >>> negs = HardNegatives({"the war": ["the way"]}, [("the war", "NP-EVENT"), ("the way", "NP-OTHER")])
    >>> negs["the war"], negs.types["the way"]
    (['the way'], 'NP-OTHER')
    """

    def __init__(self, pools: dict[str, list[str]], types=()):
        super().__init__(pools)
        self.types = dict(types)


def read_hard_negatives(path: Path | None = None) -> dict[str, list[str]]:
    """``{phrase: [hard negative, ...]}`` written by the augmentation notebook."""
    path = Path(path) if path else paths.derived_dir("hard_negatives.json")
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: mine hard negatives first "
                                "(pearl.corpus.training_inputs.build_training_inputs mines them with the lexicons)")
    return json.loads(path.read_text())
