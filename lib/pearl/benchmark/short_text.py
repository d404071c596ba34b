"""The short-text classification data of Table 2 (paper §5.1, appendix A.1.2): Twitter-S/L and ATIS-S/L.

>>> length_band([1, 2, 2, 3, 3, 3, 4, 9, 9, 10], target=2.5, n_min=5)
(2, 3)

**Stand-in.** Sentiment140 (100,000 tweets, positive / negative) stands in for the paper's
Twitter corpus (``carblacac/twitter-sentiment-analysis``, derived from the same tweets). ATIS is
the standard split (4,478 / 500 / 893 queries, 21 / 16 / 20 intent labels).

**Tokens** are whitespace-separated words: ``len(text.split())`` (:func:`token_count`).

**Length rule** (:func:`length_band`), the same for the four sets: a set takes the items whose
token count lies in the narrowest range ``[lo, hi]`` that contains the paper's mean length
(4.5 / 9.2 / 2.7 / 12.1 tokens) and holds at least ``n`` items; between equally narrow ranges,
the one whose mean is nearest the paper's. Twitter-S and Twitter-L then draw 10,000 and 20,000
tweets (the paper's sizes) from their range, seeded, and split them 70/15/15 into
train / validation / test, stratified by label. ATIS keeps its standard train / validation / test
split: the range is chosen on the training queries (``n`` = ``atis_min_train``) and applied to
all three.

**Multi-intent ATIS labels** (``atis_flight#atis_airfare``, 23 / 3 / 15 rows): ``"first"`` keeps
the first intent (the default), ``"own"`` keeps each combination as a class of its own. A test
label never seen in training can only be an error; :func:`build` reports how many there are.

Duplicate tweets are dropped before sampling (the first copy is kept), so no text sits in both
the training and the test part. What it leaves out: any text cleaning (mentions, URLs, HTML
entities such as ``&amp;`` are kept as written).
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from .. import data

#: the paper's mean token counts (appendix A.1.2, quoted: the paper's text is not among the offline
#: sources to check them against) and the Twitter set sizes (ATIS keeps its standard split)
PAPER_MEAN_TOKENS = {"twitter_s": 4.5, "twitter_l": 9.2, "atis_s": 2.7, "atis_l": 12.1}
TWITTER_SIZES = {"twitter_s": 10_000, "twitter_l": 20_000}
COLUMNS = {"twitter_s": "Twitter-S", "twitter_l": "Twitter-L", "atis_s": "ATIS-S", "atis_l": "ATIS-L"}
SETS = tuple(COLUMNS)
#: tiny size: at most this many texts per part of each set (enough for every code path)
TINY = {"train": 200, "valid": 50, "test": 50}
#: sweep size (the neighbouring methods' short-text column, notebook 11): each Twitter set keeps a
#: seeded 5,000 of its texts (70/15/15, a subset of the full set's parts, so vectors already
#: cached for the full set are reused); ATIS is small enough to stay whole
SWEEP = {"train": 3_500, "valid": 750, "test": 750}
SIZES = ("full", "sweep", "tiny")
ATIS_SPLITS = ("train", "valid", "test")


def token_count(text: str) -> int:
    """Whitespace-separated words, the token count of every length in Table 2.

    >>> token_count("i want to fly  from boston")
    6
    """
    return len(text.split())


def read_tweets() -> list[tuple[str, int]]:
    """The 100,000 Sentiment140 tweets as ``(text, label)``, label 1 for positive; blank lines dropped."""
    out = []
    for label, name in enumerate(("negative", "positive")):
        text = data.fetch(f"short_text/twitter_sentiment140/{name}.txt").read_text(encoding="utf8")
        # split on "\n" only: str.splitlines would also split inside tweets holding U+2028 or U+0085
        out += [(line.strip(), label) for line in text.split("\n") if line.strip()]
    return out


def read_atis(split: str) -> list[tuple[str, str]]:
    """ATIS queries of the standard ``split`` (train, valid, test) as ``(query, intent)``, labels as written."""
    if split not in ATIS_SPLITS:
        raise ValueError(f"unknown ATIS split {split!r}; choose from {', '.join(ATIS_SPLITS)}")
    lines = data.fetch(f"short_text/atis/atis_{split}.tsv").read_text(encoding="utf8").splitlines()
    return [(query.strip(), intent) for intent, query in (line.split("\t", 1) for line in lines if "\t" in line)]


def intent_label(intent: str, multi_intent: str = "first") -> str:
    """``"first"``: the first intent of a multi-intent label; ``"own"``: the label as written.

    >>> intent_label("atis_flight#atis_airfare"), intent_label("atis_flight#atis_airfare", "own")
    ('atis_flight', 'atis_flight#atis_airfare')
    """
    if multi_intent not in ("first", "own"):
        raise ValueError(f"unknown multi_intent {multi_intent!r}; choose 'first' or 'own'")
    return intent.split("#")[0] if multi_intent == "first" else intent


def length_band(lengths: Sequence[int], target: float, n_min: int) -> tuple[int, int]:
    """The narrowest ``(lo, hi)`` with ``lo <= target <= hi`` holding at least ``n_min`` of ``lengths``;
    ties go to the range whose mean is nearest ``target``, then to the lower one. A target outside
    the observed lengths is clipped to them."""
    counts = Counter(int(n) for n in lengths)
    if sum(counts.values()) < n_min or not counts:
        raise ValueError(f"only {sum(counts.values())} items, fewer than the {n_min} asked for")
    low, high = min(counts), max(counts)
    lo_max = min(max(math.floor(target), low), high)
    hi_min = max(min(math.ceil(target), high), low)
    best = None
    for lo in range(low, lo_max + 1):
        n = total = 0
        for hi in range(lo, high + 1):
            n, total = n + counts[hi], total + hi * counts[hi]
            if hi >= hi_min and n >= n_min:
                key = (hi - lo, abs(total / n - target), lo)
                best = min(best or (key, (lo, hi)), (key, (lo, hi)))
                break  # a larger hi is only wider
    return best[1]


def within(texts: Sequence[str], band: tuple[int, int]) -> list[int]:
    """Indices of the texts whose token count lies in ``band`` (both ends included).

    >>> within(["a b", "a", "a b c d"], (1, 2))
    [0, 1]
    """
    return [i for i, t in enumerate(texts) if band[0] <= token_count(t) <= band[1]]


@dataclass
class ShortTextSet:
    """One of the four sets: texts and string labels of each part, and how it was built."""

    name: str
    parts: dict[str, tuple[list[str], list]]  # "train" / "valid" / "test" -> (texts, labels)
    band: tuple[int, int]
    info: dict = field(default_factory=dict)

    def texts(self) -> list[str]:
        return [t for texts, _ in self.parts.values() for t in texts]

    def summary(self) -> dict:
        texts = self.texts()
        train_labels = set(self.parts["train"][1])
        return {"set": COLUMNS[self.name], "band": f"{self.band[0]}-{self.band[1]}",
                **{f"n_{p}": len(t) for p, (t, _) in self.parts.items()},
                "mean_tokens": round(float(np.mean([token_count(t) for t in texts])), 2),
                "paper_mean_tokens": PAPER_MEAN_TOKENS[self.name], "classes": len(train_labels),
                "test_unseen_label": sum(y not in train_labels for y in self.parts["test"][1]), **self.info}


def twitter_sets(seed: int = 0, sizes: dict | None = None) -> dict[str, ShortTextSet]:
    """Twitter-S and Twitter-L: each ``sizes[name]`` tweets drawn (seeded) from its length range, split 70/15/15."""
    sizes = sizes or TWITTER_SIZES
    first: dict[str, int] = {}
    raw = read_tweets()
    for text, label in raw:
        first.setdefault(text, label)  # a duplicate tweet keeps its first copy's label
    tweets = list(first.items())
    out = {}
    for name in ("twitter_s", "twitter_l"):
        out[name] = select(tweets, name, sizes[name], seed)
        out[name].info["duplicates_dropped"] = len(raw) - len(tweets)
    return out


def select(items: list[tuple[str, int]], name: str, size: int, seed: int) -> ShortTextSet:
    """``size`` items drawn (seeded) from the length range of ``name``, split 70/15/15 stratified by label."""
    band = length_band([token_count(t) for t, _ in items], PAPER_MEAN_TOKENS[name], size)
    inside = within([t for t, _ in items], band)
    chosen = np.random.default_rng(seed).choice(inside, size=size, replace=False)
    texts, labels = [items[i][0] for i in chosen], [items[i][1] for i in chosen]
    parts = split_parts(texts, labels, seed)
    return ShortTextSet(name, parts, band, {"in_band": len(inside)})


def split_parts(texts: list[str], labels: list, seed: int, fractions=(0.70, 0.15, 0.15)) -> dict:
    """Seeded train / valid / test parts (``fractions``), stratified by label (scikit-learn)."""
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(texts))
    train, rest = train_test_split(idx, train_size=fractions[0], random_state=seed, stratify=labels)
    share = fractions[1] / (fractions[1] + fractions[2])
    valid, test = train_test_split(rest, train_size=share, random_state=seed, stratify=[labels[i] for i in rest])
    return {part: ([texts[i] for i in ids], [labels[i] for i in ids])
            for part, ids in (("train", train), ("valid", valid), ("test", test))}


def atis_sets(min_train: int = 1000, multi_intent: str = "first") -> dict[str, ShortTextSet]:
    """ATIS-S and ATIS-L on the standard split: the range is chosen on the training queries."""
    splits = {s: [(q, intent_label(i, multi_intent)) for q, i in read_atis(s)] for s in ATIS_SPLITS}
    out = {}
    for name in ("atis_s", "atis_l"):
        band = length_band([token_count(q) for q, _ in splits["train"]], PAPER_MEAN_TOKENS[name], min_train)
        parts = {}
        for s, rows in splits.items():
            kept = [rows[i] for i in within([q for q, _ in rows], band)]
            parts[s] = ([q for q, _ in kept], [y for _, y in kept])
        out[name] = ShortTextSet(name, parts, band, {"multi_intent": multi_intent})
    return out


def build(size: str = "full", seed: int = 0, atis_min_train: int = 1000,
          multi_intent: str = "first") -> dict[str, ShortTextSet]:
    """The four sets, in the paper's column order. ``size="tiny"``: a seeded few hundred texts
    of each; ``size="sweep"``: 5,000 texts of each Twitter set (:data:`SWEEP`), ATIS whole."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose one of {', '.join(map(repr, SIZES))}")
    sets = {**twitter_sets(seed), **atis_sets(atis_min_train, multi_intent)}
    if size == "tiny":
        sets = {name: shrink(s, seed) for name, s in sets.items()}
    elif size == "sweep":
        sets = {name: shrink(s, seed, "sweep") if name.startswith("twitter") else s for name, s in sets.items()}
    return {name: sets[name] for name in SETS}


def shrink(s: ShortTextSet, seed: int, size: str = "tiny") -> ShortTextSet:
    """A seeded subsample of every part, at most :data:`TINY` or :data:`SWEEP` texts each (by
    ``size``): the same range and split, fewer texts; ``info`` says which ``size`` it is."""
    sizes, rng = {"tiny": TINY, "sweep": SWEEP}[size], np.random.default_rng(seed)
    parts = {}
    for part, (texts, labels) in s.parts.items():
        keep = np.sort(rng.permutation(len(texts))[: sizes[part]])
        parts[part] = ([texts[i] for i in keep], [labels[i] for i in keep])
    return ShortTextSet(s.name, parts, s.band, {**s.info, size: True})


def summaries(sets: dict[str, ShortTextSet]) -> list[dict]:
    """:meth:`ShortTextSet.summary` of each set, in order."""
    return [s.summary() for s in sets.values()]


def atis_short_queries(max_tokens: int = 3) -> int:
    """How many ATIS training queries have at most ``max_tokens`` tokens (:func:`token_count`)."""
    return sum(token_count(q) <= max_tokens for q, _ in read_atis("train"))
