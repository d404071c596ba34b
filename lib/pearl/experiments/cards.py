"""The model cards' scores: each trained folder's Table-1 row, written into its card.

Training's export writes the card (:func:`pearl.training.export.write_card`) without scores; the
benchmark scores any model and imports nothing of training. Joining the two, a table's rows put
into the cards of the folders that were scored, is the work of the layer above both, here.

What it leaves out: the card's other text (:mod:`pearl.training.export`) and the scoring itself
(:mod:`pearl.benchmark.table`, notebook 04).
"""
from __future__ import annotations

import math
from pathlib import Path

from ..benchmark.tasks import SUITES, TASKS
from ..training.export import write_card


def update_cards(table, folders) -> None:
    """Write each of ``folders``' Table-1 row (``table``: Table 1's tidy rows,
    :func:`pearl.benchmark.table.tidy`) into its model card (a caller whose scores are not results
    passes no folders)."""
    for folder in folders:
        rows = table[table["model"] == Path(folder).name].set_index("dataset")["score"]
        if len(rows):
            write_card(folder, {TASKS[d].column if d in TASKS else "Avg": float(rows.get(d, math.nan))
                                for d in (*SUITES["table1"], "average")})
