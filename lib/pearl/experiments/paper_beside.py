"""The paper's rows beside ours in the experiment tables: Table 3 (ablations, with the paper's
arrows) and Table 4 (Original, + PEARL, Δ), from :mod:`pearl.benchmark.paper`.

What it leaves out: our comparisons themselves (:mod:`pearl.experiments.tables`), and the tables
written again from committed CSVs (the harness's ``harness.redraw.tables_3_4``).
"""
from __future__ import annotations

import math

from ..benchmark import paper
from ..benchmark.tasks import GROUPS
from ..tabular import Table, cell, rows
from . import tables

#: our ablation recipes and the paper's Table 3 rows they re-run
TABLE3_ROWS = {"": "PEARL-small", "no-phrase-aug": "- Phrase DA", "no-entity-type": "- Entity Type",
               "no-token-aug": "- Token DA", "no-hard-negatives": "- Hard Negatives",
               "no-char-encoder": "- Character Encoder", "no-char-aug": "- Character DA"}
COLUMNS3 = [*GROUPS, "average"]
TABLE3_NOTE = ("Rows marked *paper* are the paper's Table 3 as printed (PEARL-small on E5-small, its arrows as "
               "printed, no significance marks); its Avg is Table 1's nine-dataset average, ours the mean of the five "
               "groups. Rows marked *this run*: ↑ / ↓ against our full recipe, * beyond the seed noise (t-test over "
               "seeds, p < 0.05).")
TABLE3_CAPTION = ("Ablations: mean ± std over seeds, the paper's Table 3 rows (as printed) under ours; "
                  "* beyond the seed noise (t-test, p < 0.05).")
TABLE4_NOTE = ("The paper's Table 4 trains BERT, RoBERTa, ALBERT, SpanBERT and LUKE (30 % of its training phrases) and "
               "reports the average over the five phrase tasks; none of these backbones is offline. Its population, raw "
               "language models, has one counterpart here: a small masked LM pretrained here on Wikipedia; the other "
               "rows are encoders already trained contrastively as sentence encoders. Ours: `original` the untrained "
               "encoder, `+ PEARL` the mean ± std over seeds, `Δ` their difference (* beyond the seed noise), `p` a "
               "one-sample t-test of the seeds against the original; `+ SimCSE` (raw LM only) the same backbone "
               "fine-tuned with SimCSE by the same trainer and budget, so PEARL's own share of the lift is its gain "
               "over SimCSE's.")


def _paper3(row: str, column: str) -> str:
    return cell(paper.cell(3, row, column), arrow=paper.arrows(3).at[row, column])


def table3_frame(comparison, labels: dict):
    """Our Table 3 (``comparison`` of :func:`pearl.experiments.tables.compare`) with, under each
    recipe, the paper's row for it: columns recipe, source, the five groups and Average."""
    import pandas as pd

    ours = tables.wide(comparison, labels).set_index("recipe")
    names = {"average": "Average"}
    rows = []
    for recipe in dict.fromkeys(comparison["recipe"]):
        label = labels.get(recipe, recipe)
        rows.append({"recipe": label, "source": "this run", **{names.get(c, c): ours.at[label, names.get(c, c)]
                                                                for c in COLUMNS3}})
        if recipe in TABLE3_ROWS:
            row = TABLE3_ROWS[recipe]
            rows.append({"recipe": row, "source": "paper", **{names.get(c, c): _paper3(row, c) for c in COLUMNS3}})
    return pd.DataFrame(rows)


def table3_markdown(comparison, labels: dict, header: str = "") -> Table:
    """:func:`table3_frame` as Markdown: one table, a *source* column, the note under it."""
    return Table(table3_frame(comparison, labels).astype(str), plain=True, head=header, notes=[TABLE3_NOTE])


def table3_latex(comparison, labels: dict, caption: str = "") -> Table:
    """:func:`table3_frame` as booktabs LaTeX, the paper's rows under ours as in the Markdown."""
    return Table(table3_frame(comparison, labels), float_format=None, na_rep="NaN", caption=caption or None)


def table4_markdown(table, header: str = "") -> Table:
    """Our Table 4 (``table`` of :func:`pearl.experiments.tables.gains` with a ``label`` and a
    ``kind``), then the paper's, in one layout: backbone, kind, source, original, + PEARL, Δ,
    + SimCSE, Δ, seeds, p."""
    def gain(delta, p):
        return cell(delta, sign=True, arrow=("↑" if delta > 0 else "↓") + ("*" if p == p and p < tables.ALPHA else ""))

    body = []
    for r in table.to_dict("records"):
        control = r.get("control", math.nan)
        simcse = ("–", "–") if control != control else (cell(control, r["control_std"]),
                                                        gain(r["control_gain"], r["control_p"]))
        body.append([r["label"], r.get("kind", ""), "this run", cell(r["original"]), cell(r["pearl"], r["pearl_std"]),
                     gain(r["gain"], r["p"]), *simcse, r["n"], cell(r["p"], digits=3, missing="–")])
    wide = paper.wide(4)
    for backbone in wide.columns:
        body.append([backbone, "raw LM", "paper", cell(wide.at["Original", backbone]), cell(wide.at["+ PEARL", backbone]),
                     cell(wide.at["Δ", backbone], arrow=paper.arrows(4).at["Δ", backbone]), "–", "–", "–", "–"])
    return rows(["backbone", "kind", "source", "original", "+ PEARL", "Δ", "+ SimCSE", "Δ SimCSE", "seeds", "p"], body,
                head=header, notes=[TABLE4_NOTE])
