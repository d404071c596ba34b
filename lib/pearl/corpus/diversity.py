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
