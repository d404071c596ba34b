"""The paper's own numbers, as printed in Chen, Varoquaux and Suchanek (EACL 2024), and the
released checkpoints' numbers from the authors' README, kept apart from them.

Package data, one row per printed cell (``model, size, column, value, std, arrow``), transcribed
from the HAL copy of the paper (``pearl_eacl2024_hal.md``; ``tests/benchmark/test_paper.py``
compares every cell with it when the file is at hand):

- ``paper_table1.csv``: Table 1, every row (String Distance to PEARL-base), ± std where printed;
- ``paper_table2.csv``: Table 2 (short-text classification), ± std where printed (Avg has none);
- ``paper_table3.csv``: Table 3 (ablations of PEARL-small), ± std and the printed arrows;
- ``paper_table4.csv``: Table 4 (Original, + PEARL, Δ per backbone);
- ``paper_figure5.csv``: Figure 5's chosen settings (the text gives no curve values);
- ``paper_slips.csv``: where the paper's printed numbers disagree with its own rows (kept as
  printed everywhere else; :func:`slips` re-derives the arithmetic ones);
- ``released_table1.csv``: the released checkpoints' Table-1 numbers from the authors' GitHub
  README, which differ from the paper's; never to be labelled "paper".

What it leaves out: our scores (:mod:`pearl.benchmark.table`), and Figure 5's curves (not in the text).

>>> float(wide(1).loc["PEARL-small", "Avg"]), float(std(1).loc["PEARL-small", "Avg"])
(63.1, 0.2)
"""
from __future__ import annotations

from pathlib import Path

from .. import tabular

HERE = Path(__file__).parent
#: the source label of each kind of row in our tables
PAPER = "paper"
RELEASED = "released checkpoint (authors' README)"


def table(n: int | str):
    """The paper's Table ``n`` (1-4) as tidy rows; ``"released"`` for the authors' README rows."""
    import pandas as pd

    name = "released_table1.csv" if n == "released" else f"paper_table{n}.csv"
    return pd.read_csv(HERE / name, dtype={"size": str, "arrow": str}, keep_default_na=False,
                       na_values={"value": [""], "std": [""]})


def _pivot(n, field: str):
    rows = table(n)
    out = rows.pivot(index="model", columns="column", values=field)
    fullest = rows["model"].value_counts().idxmax()  # its columns in the printed order
    return out.reindex(index=list(dict.fromkeys(rows["model"])), columns=list(rows.loc[rows["model"] == fullest, "column"]))


def wide(n: int | str):
    """Table ``n``'s values, one row per model in the paper's order, one column per printed column."""
    return _pivot(n, "value")


def std(n: int | str):
    """Table ``n``'s printed ± std (NaN where none is printed)."""
    return _pivot(n, "std")


def arrows(n: int | str):
    """Table ``n``'s printed arrows ("" where none)."""
    return _pivot(n, "arrow").fillna("")


def cell(n: int | str, model: str, column: str, digits: int = 1) -> str:
    """One printed cell as text: ``"69.2 ± 0.7"``, ``"64.7"``, or ``"–"`` where the paper prints none."""
    return tabular.cell(wide(n).at[model, column], std(n).at[model, column], digits=digits, missing="–")


def labelled(which: int | str = 1):
    """Table ``which`` as a frame: ``Model`` (name and printed size), one column per printed
    column, and ``_key`` (the name in :func:`table`)."""
    values = wide(which)
    sizes = table(which).drop_duplicates("model").set_index("model")["size"]
    label = [m if sizes[m] in ("", "-") else f"{m} ({sizes[m]})" for m in values.index]
    return values.rename_axis(columns=None).reset_index(drop=True).assign(Model=label, _key=list(values.index))


def figure5():
    """Figure 5's chosen settings: ``{"lr": 3e-05, "hard_negatives": 2.0}``."""
    import pandas as pd

    return pd.read_csv(HERE / "paper_figure5.csv").set_index("parameter")["chosen"].astype(float).to_dict()


def slips():
    """The recorded disagreements between the paper's printed numbers and its own rows."""
    import pandas as pd

    return pd.read_csv(HERE / "paper_slips.csv", dtype=str)


def row_means(n: int, average: str = "Avg"):
    """Each complete row's mean over its printed columns other than ``average`` (to check the printed one)."""
    values = wide(n)
    body = values.drop(columns=[average])
    return body[body.notna().all(axis=1)].mean(axis=1)
