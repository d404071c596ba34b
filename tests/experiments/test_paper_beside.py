"""The paper's rows beside ours in Tables 3 and 4: under each of our recipes the paper's row for
it, with its printed arrows; the paper's Table 4 after ours."""
import math

import pandas as pd

from pearl.experiments import paper_beside, tables
from pearl.experiments.runner import ABLATION_LABELS
from pearl.tabular import render


def _groups():
    rows = []
    for recipe, base in (("", 60.0), ("no-entity-type", 58.0)):
        for seed in range(3):
            rows.append({"recipe": recipe, "model": f"{recipe}{seed}",
                         **{c: base + seed for c in paper_beside.COLUMNS3}})
    return pd.DataFrame(rows)


def test_table3_puts_the_papers_row_under_ours():
    md = render(paper_beside.table3_markdown(tables.compare(_groups(), ""), ABLATION_LABELS, header="T3"), "md")
    lines = md.splitlines()
    ours = next(i for i, line in enumerate(lines) if line.startswith("| − entity type | this run |"))
    assert lines[ours + 1] == ("| - Entity Type | paper | 82.9 ± 1.0 ↓ | 63.7 ± 0.2 ↑ | 44.3 ± 0.2 ↓ | 45.7 ± 0.5 ↓ | "
                               "74.9 ± 0.1 ↑ | 60.9 ± 0.1 ↓ |")
    assert "| PEARL-small | paper | 83.2 ± 0.4 | 62.9 ± 0.1 |" in md and md.startswith("T3")
    assert "| 59.0 ± 1.0 ↓ |" in lines[ours]  # 59 against 61, std 1, 3 seeds: t = 2.45, p = 0.07, no star
    assert "nine-dataset average" in md


def test_table3_latex_has_the_same_rows_as_the_markdown():
    comparison = tables.compare(_groups(), "")
    tex = render(paper_beside.table3_latex(comparison, ABLATION_LABELS, caption="C"), "tex")
    assert "\\toprule" in tex and "\\caption{C}" in tex
    # our two recipes and the paper's row under each: 4 body rows, the paper's printed under ours
    body = [line for line in tex.splitlines() if line.endswith("\\\\") and "&" in line][1:]
    assert [line.split(" & ")[1] for line in body] == ["this run", "paper", "this run", "paper"]
    assert body[3].startswith("- Entity Type & paper & 82.9 ± 1.0 ↓")


def test_table4_lists_ours_then_the_papers_five_backbones():
    table = pd.DataFrame([{"backbone": "minilm", "label": "MiniLM", "kind": "sentence encoder", "original": 66.08,
                           "pearl": 66.66, "pearl_std": 0.47, "n": 3, "gain": 0.58, "p": 0.164, "beyond_noise": False},
                          {"backbone": "x", "label": "X", "kind": "raw LM", "original": 50.0, "pearl": 49.0,
                           "pearl_std": math.nan, "n": 1, "gain": -1.0, "p": math.nan, "beyond_noise": False,
                           "control": 52.0, "control_std": 0.5, "control_n": 3, "control_gain": 2.0,
                           "control_p": 0.01}])
    md = render(paper_beside.table4_markdown(table), "md")
    assert "| MiniLM | sentence encoder | this run | 66.1 | 66.7 ± 0.5 | +0.6 ↑ | – | – | 3 | 0.164 |" in md
    # one seed: no std, as in every table (it printed "49.0 ± nan" before the one cell formatter)
    assert "| X | raw LM | this run | 50.0 | 49.0 | -1.0 ↓ | 52.0 ± 0.5 | +2.0 ↑* | 1 | – |" in md
    assert "| BERT | raw LM | paper | 39.4 | 57.1 | 17.7 ↑ | – | – | – | – |" in md
    assert "| LUKE | raw LM | paper | 31.9 | 52.7 | 20.8 ↑ | – | – | – | – |" in md
