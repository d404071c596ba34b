"""Lexical diversity of positive pairs, the three measures of Phrase-BERT (Wang et al. 2021).

For a pair ``(phrase, positive)``, case ignored (a capitalised copy has no new word):

- ``new_token_share``: share of the positive's whitespace tokens (with repeats) that do not
  occur in the phrase: 0 for a reordering or a typo-free copy, 1 for "NYT" of "The New York Times";
- ``lcs_ratio``: longest common character subsequence over the longer string's length
  (``rapidfuzz.distance.LCSseq.normalized_similarity``): 1 for identical strings;
- ``levenshtein``: character edit distance over the longer string's length
  (``rapidfuzz.distance.Levenshtein.normalized_distance``): 0 for identical strings.

Higher ``new_token_share`` and ``levenshtein`` and lower ``lcs_ratio`` mean a more diverse
positive. Left out: semantic measures (whether the positive keeps the meaning).

>>> pair_measures("big house", "big home")
{'new_token_share': 0.5, 'lcs_ratio': 0.7777777777777778, 'levenshtein': 0.2222222222222222}
"""
from __future__ import annotations

from typing import Iterable

from rapidfuzz.distance import Levenshtein, LCSseq

MEASURES = ("new_token_share", "lcs_ratio", "levenshtein")


def pair_measures(phrase: str, positive: str) -> dict[str, float]:
    """The three measures of one pair (see the module docstring)."""
    a, b = phrase.lower(), positive.lower()
    tokens = b.split()
    if not tokens or not a.split():
        raise ValueError(f"empty phrase or positive in the pair {(phrase, positive)!r}: drop it first")
    known = set(a.split())
    return {"new_token_share": sum(t not in known for t in tokens) / len(tokens),
            "lcs_ratio": LCSseq.normalized_similarity(a, b),
            "levenshtein": Levenshtein.normalized_distance(a, b)}


def lexical_diversity(pairs: Iterable[tuple[str, str]]) -> dict[str, float]:
    """Mean of each measure over ``pairs``, with ``pairs`` (how many) and ``identical`` (share of
    positives equal to their phrase, case ignored: what SimCSE's positives all are).

    >>> lexical_diversity([("paris", "Paris"), ("The New York Times", "NYT")])["new_token_share"]
    0.5
    """
    rows = [pair_measures(p, q) for p, q in pairs]
    if not rows:
        raise ValueError("no pairs: lexical diversity of an empty sample is undefined")
    n = len(rows)
    out = {"pairs": n, "identical": sum(r["levenshtein"] == 0 for r in rows) / n}
    out.update({m: sum(r[m] for r in rows) / n for m in MEASURES})
    return out


def sample_phrases(corpus: list, n: int, seed: int = 0) -> list[str]:
    """``n`` phrases of ``corpus`` (rows whose first field is the phrase) drawn without replacement
    with ``seed``, in corpus order; every phrase when the corpus has fewer."""
    import numpy as np

    pick = np.random.default_rng(seed).choice(len(corpus), min(n, len(corpus)), replace=False)
    return [corpus[i][0] for i in sorted(pick)]


def diversity_table(samples: dict[str, list[tuple[str, str]]]):
    """One row per kind of positives (index ``positives``): :func:`lexical_diversity` of its pairs."""
    import pandas as pd

    table = pd.DataFrame({name: lexical_diversity(pairs) for name, pairs in samples.items()}).T
    table.index.name = "positives"
    table["pairs"] = table["pairs"].astype(int)
    return table


def examples(samples: dict[str, list[tuple[str, str]]], phrases: list[str], last: str, n: int = 8):
    """The positive of each kind for ``n`` phrases: those that method ``last`` keeps when it keeps only
    some (Phrase-BERT, PAUSE: phrases with a paraphrase or synonym), else the first ``n``; "" where a
    kind has none."""
    import pandas as pd

    kept = dict(samples[last]) if last in ("phrase_bert", "pause") else {}
    show = [p for p in phrases if p in kept][:n] or phrases[:n]
    return pd.DataFrame({name: [dict(pairs).get(p, "") for p in show] for name, pairs in samples.items()}, index=show)
