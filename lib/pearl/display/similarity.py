"""The explorer's parts that need no widgets: an LRU embedding cache per model, a debouncer,
nearest-neighbour candidates (faiss), ranking by cosine, the HTML of ranked bars, and the
augmented query variants of the teaching view (:mod:`pearl.display.explorer` joins them in an app).

What it leaves out: widgets and timing (see :mod:`pearl.display.explorer`).
"""
from __future__ import annotations

import html
import threading
from collections import OrderedDict
from typing import Callable, Mapping, Sequence

import numpy as np

from ..corpus.augment import Augmenter, load_lexicons
from ..data import autofj_names, read_autofj
from ..encode import Encoder, encode, torch_threads

#: cap on a query's length: longer input is almost surely a paste by mistake
MAX_QUERY_CHARS = 500
#: typed candidates ranked in one update (the first ones; 50,000 pasted ones blocked an update for
#: 101 s), and rows shown per model (the rest are ranked, not drawn: 21.5 MB of HTML)
MAX_CANDIDATES = 2000
MAX_ROWS = 50
#: batches up to this size are encoded on one CPU thread (see :func:`pearl.encode.torch_threads`)
SMALL_BATCH = 32

class EmbeddingCache:
    """LRU cache of one model's phrase vectors; misses are encoded together in one batch."""

    def __init__(self, model: Encoder, maxsize: int = 50_000):
        self.model, self.maxsize = model, maxsize
        # what a keystroke brings is encoded by the model itself, not through the on-disk cache
        # (pearl.cache) a loaded model may sit behind: that would write every typed prefix to
        # disk, keep it in memory past this LRU's bound, and make "cold" latencies warm
        self.encoder = model.extra.get("inner", model)
        self._vecs: OrderedDict[str, np.ndarray] = OrderedDict()
        self.hits = self.misses = 0

    def __call__(self, phrases: Sequence[str]) -> np.ndarray:
        phrases = list(phrases)
        missing = list(dict.fromkeys(p for p in phrases if p not in self._vecs))
        self.misses += len(missing)
        self.hits += len(phrases) - len(missing)
        if missing:
            small = self.model.device == "cpu" and len(missing) <= SMALL_BATCH
            with torch_threads(1 if small else 0):
                vecs = encode(self.encoder, missing)
            for p, v in zip(missing, vecs):
                self._vecs[p] = v
        out = np.stack([self._vecs[p] for p in phrases]) if phrases else np.zeros((0, self.model.dim), np.float32)
        for p in phrases:
            self._vecs.move_to_end(p)
        while len(self._vecs) > self.maxsize:
            self._vecs.popitem(last=False)
        return out

    def __len__(self) -> int:
        return len(self._vecs)

    def keep_only(self, phrases) -> None:
        """Forget every vector but those of ``phrases`` (used to time cold queries)."""
        keep = set(phrases)
        for p in [p for p in self._vecs if p not in keep]:
            del self._vecs[p]


class Debouncer:
    """Run ``fn`` once, ``wait`` seconds after the last call; ``wait=0`` runs it at once.

    ``timer`` makes the scheduling testable: anything with ``threading.Timer``'s
    signature and ``start``/``cancel``.
    """

    def __init__(self, wait: float, fn: Callable[[], None], timer=threading.Timer):
        self.wait, self.fn, self.timer = wait, fn, timer
        self._pending = None
        self._lock = threading.Lock()

    def __call__(self) -> None:
        if self.wait <= 0:
            self.fn()
            return
        with self._lock:
            if self._pending is not None:
                self._pending.cancel()
            self._pending = self.timer(self.wait, self._fire)
            self._pending.start()

    def _fire(self) -> None:
        with self._lock:
            self._pending = None
        self.fn()

    @property
    def pending(self) -> bool:
        return self._pending is not None


class NeighbourIndex:
    """Exact inner-product (= cosine) faiss index over a vocabulary, encoded once."""

    def __init__(self, cache: EmbeddingCache, vocabulary: Sequence[str]):
        import faiss

        self.cache = cache
        self.vocabulary = list(dict.fromkeys(vocabulary))
        if not self.vocabulary:
            raise ValueError("the neighbour vocabulary is empty: pass some phrases")
        vecs = encode(cache.model, self.vocabulary)
        self.index = faiss.IndexFlatIP(vecs.shape[1])
        self.index.add(vecs)

    def search(self, query: str, k: int = 10) -> list[str]:
        """The ``k`` vocabulary phrases nearest to ``query``, the query itself excluded."""
        _, ids = self.index.search(self.cache([query]), min(k + 1, len(self.vocabulary)))
        return [self.vocabulary[i] for i in ids[0] if i >= 0 and self.vocabulary[i] != query][:k]


def mean_offdiagonal(cosine) -> float:
    """The mean cosine over pairs of distinct phrases of a square cosine matrix whose diagonal is 1
    (unit vectors); NaN for fewer than two phrases (a mean over no pair).

    >>> mean_offdiagonal(np.array([[1.0, 0.5], [0.5, 1.0]]))
    0.5
    """
    n = len(cosine)
    return float((np.asarray(cosine).sum() - n) / (n * n - n)) if n >= 2 else float("nan")


def check_query(query: str) -> str | None:
    """The cleaned query, or None when there is nothing to rank (empty/whitespace)."""
    if not isinstance(query, str):
        raise ValueError(f"the query must be a string, not {type(query).__name__}")
    query = query.strip()[:MAX_QUERY_CHARS]
    return query or None


def rank(cache: EmbeddingCache, query: str, candidates: Sequence[str]) -> list[tuple[str, float]]:
    """``(candidate, cosine)`` pairs, best first (ties keep input order)."""
    if not candidates:
        return []
    vecs = cache([query] + list(candidates))
    scores = vecs[1:] @ vecs[0]
    return [(candidates[i], float(scores[i])) for i in np.argsort(-scores, kind="stable")]


def ranking_html(label: str, ranked: list[tuple[str, float]]) -> str:
    """One model's ranked table with an inline bar per cosine (classes for styling and tests): its first
    :data:`MAX_ROWS`, and a line saying how many more were ranked."""
    more = (f'<tr><td colspan="4"><small>and {len(ranked) - MAX_ROWS:,} more ranked below</small></td></tr>'
            if len(ranked) > MAX_ROWS else "")
    ranked = ranked[:MAX_ROWS]
    rows = "".join(
        f'<tr class="pearl-row"><td>{i}</td><td class="pearl-candidate">{html.escape(c)}</td>'
        f'<td class="pearl-score">{s:.3f}</td><td style="width:140px"><div style="background:#4c72b0;'
        f'height:10px;width:{max(s, 0) * 100:.0f}%"></div></td></tr>'
        for i, (c, s) in enumerate(ranked, 1)
    )
    return (f'<div style="margin-right:24px"><b>{html.escape(label)}</b>'
            f'<table class="pearl-ranking" data-model="{html.escape(label)}">'
            f"<tr><th>#</th><th>candidate</th><th>cosine</th><th></th></tr>{rows}{more}</table></div>")


def variant_scores(caches: Mapping[str, EmbeddingCache], query: str, variants: Mapping[str, str]):
    """Rows ``(operation, variant, {model: cosine to the query})`` for the teaching view."""
    ops = [op for op, v in variants.items() if isinstance(v, str) and v.strip()]
    out = [(op, variants[op], {}) for op in ops]
    for label, cache in caches.items():
        vecs = cache([query] + [variants[op] for op in ops])
        for row, s in zip(out, vecs[1:] @ vecs[0]):
            row[2][label] = float(s)
    return out


def variants_html(rows) -> str:
    if not rows:
        return "<i>no augmentations available for this query</i>"
    models = list(rows[0][2])
    head = "".join(f"<th>cos to query · {html.escape(m)}</th>" for m in models)
    body = "".join(
        f'<tr><td>{html.escape(op)}</td><td class="pearl-variant">{html.escape(v)}</td>'
        + "".join(f"<td>{s[m]:.3f}</td>" for m in models) + "</tr>" for op, v, s in rows
    )
    return f'<table class="pearl-variants"><tr><th>augmentation</th><th>variant</th>{head}</tr>{body}</table>'


class QueryVariants:
    """The teaching view's augmentations: one variant per sub-operation of :mod:`pearl.corpus.augment`.

    Re-seeded for every query so the same query always shows the same variants. Uses the
    synonym and paraphrase lexicons of the augmentation notebook when they exist; without them
    the token-synonym operations are skipped (``self.lexicons is None`` says so).
    """

    def __init__(self, seed: int = 0, lexicons=None):

        if lexicons is None:
            try:
                lexicons = load_lexicons()
            except FileNotFoundError:
                lexicons = None  # 02_augmentation has not run: char, swap and rule-based ops only
        self.seed, self.lexicons = seed, lexicons

    def __call__(self, query: str) -> dict[str, str]:

        return Augmenter(seed_or_rng=self.seed, lexicons=self.lexicons).variants(query)


def autofj_vocabulary(size: int = 3000, seed: int = 0) -> list[str]:
    """A seeded sample of distinct entity names from all 50 AutoFJ tables (neighbour vocabulary)."""

    names = set()
    for ds in autofj_names():
        left, right, _ = read_autofj(ds)
        names.update(n.strip() for n in left + right if n.strip() and n != "nan")
    names = sorted(names)  # sorted: same seed, same sample
    rng = np.random.default_rng(seed)
    return [names[i] for i in sorted(rng.choice(len(names), min(size, len(names)), replace=False))]
