"""Tables of the training data that notebooks 01 and 02 show: the frequency filter's effect on
the phrase types, synonyms of a few words, hard negatives of a few phrases.

Left out: figures (:mod:`pearl.display.data_figures`) and anything computed (it only arranges).
"""
from __future__ import annotations

from typing import Mapping, Sequence

from .data_figures import class_shares


def filter_table(kept: Mapping[int, Sequence[tuple]]):
    """One row per frequency filter: ``min_freq``, distinct phrases kept and their lexical-class
    shares (%), from ``{min_freq: rows}`` (:func:`pearl.corpus.summary.by_min_freq`)."""
    import pandas as pd

    return pd.DataFrame([{"min_freq": mf, "distinct phrases": len(rows), **class_shares([r[1] for r in rows])}
                         for mf, rows in kept.items()])


def synonym_examples(words: Sequence[str], lexicons: Mapping[str, Mapping[str, list]], n: int = 4):
    """The first ``n`` synonyms of each of ``words`` in each table (``{"WordNet": table, ...}``), comma-joined."""
    import pandas as pd

    return pd.DataFrame({name: [", ".join(table.get(w, [])[:n]) for w in words] for name, table in lexicons.items()},
                        index=list(words))


def hard_negative_examples(negatives: Mapping[str, list], phrases: Sequence[str], n: int = 6):
    """The first ``n`` hard negatives of each of ``phrases`` that has any mined (the others are left out)."""
    import pandas as pd

    show = [p for p in phrases if p in negatives]
    return pd.DataFrame({"hard negatives": [", ".join(negatives[p][:n]) for p in show]}, index=show)
