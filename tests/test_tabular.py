"""pearl.tabular, the one table route: the renderer and the cell formatter on a table written by
hand, and a lint that every table writer in the library, the scripts and the notebooks goes
through them."""
import re
from pathlib import Path

import pandas as pd
import pytest

from pearl import provenance
from pearl.tabular import Table, cell, render, rows

ROOT = Path(__file__).resolve().parents[1]


def _tiny():
    return pd.DataFrame({"model": ["a_b", "c"], "score": [61.25, float("nan")]})


def test_plain_markdown_with_head_and_notes_by_hand():
    spec = rows(["model", "score"], [["a", cell(61.25, 0.4)], ["b", cell(None)]], head="Scores.",
                notes=["n/a: not run.", rows(["k"], [["1"]])])
    assert render(spec, "md") == ("Scores.\n\n| model | score |\n|---|---|\n| a | 61.2 ± 0.4 |\n| b | n/a |\n\n"
                                  "n/a: not run.\n\n| k |\n|---|\n| 1 |")


def test_padded_markdown_tex_and_csv_by_hand():
    t = Table(_tiny(), floatfmt=".1f")
    assert render(t, "md") == ("| model   |   score |\n|:--------|--------:|\n| a_b     |    61.2 |\n"
                               "| c       |   nan   |")
    assert render(t, "csv") == "model,score\na_b,61.25\nc,\n"
    assert render(t, "tex") == ("\\begin{tabular}{lr}\n\\toprule\nmodel & score \\\\\n\\midrule\n"
                                "a\\_b & 61.250 \\\\\nc & n/a \\\\\n\\bottomrule\n\\end{tabular}\n")
    tex = render(Table(_tiny(), float_format="%.1f", caption="C", label="tab:x", escape=None), "tex")
    assert "a_b & 61.2" in tex and "\\caption{C}" in tex and "\\label{tab:x}" in tex
    with pytest.raises(ValueError, match="choose from"):
        render(t, "html")


def test_numparse_off_keeps_signed_text_as_written():
    frame = pd.DataFrame({"gain": [cell(0.5, digits=2, sign=True), cell(None, missing="–")]})
    assert render(Table(frame, numparse=False), "md") == "| gain   |\n|:-------|\n| +0.50  |\n| –      |"


def test_one_cell_formatter():
    assert [cell(94.786, 0.0), cell(67.25, float("nan")), cell(None, 1.0), cell(61.04, 1.44)] == \
        ["94.8 ± 0.0", "67.2", "n/a", "61.0 ± 1.4"]
    assert cell(-4.44, sign=True, arrow="↓*") == "-4.4 ↓*" and cell(17.7, arrow="") == "17.7"
    assert cell(83.2, 0.4, beside="paper 83.0") == "83.2 ± 0.4 (paper 83.0)"
    assert cell(61.25, bold=True) == "**61.2**" and cell("NYTimes", bold=True) == "**NYTimes**"
    assert cell(float("nan"), missing="–", bold=True) == "–"  # a missing cell is never bold
    assert cell(1e-5, digits="g") == "1e-05" and cell(572000, digits=",.0f") == "572,000"


def test_save_table_writes_specs_and_refuses_text(scratch_output):
    spec = rows(["model"], [["a"]], head="H")
    csv, md, tex = provenance.save_table(_tiny(), "unit_route", markdown=spec, latex=Table(_tiny(), float_format="%.1f"))
    assert md.read_text() == render(spec, "md") + "\n" and "61.2" in tex.read_text() and csv.read_text().startswith("model")
    only_md = provenance.save_table(None, "unit_route", markdown=spec)
    assert [p.suffix for p in only_md] == [".md"]
    with pytest.raises(TypeError, match="Table specs"):
        provenance.save_table(_tiny(), "unit_route", markdown="| a |\n|---|")


#: files that may spell a Markdown table themselves, and why
NOT_TABLES = {
    "lib/harness/site_text.py": "reads a rendered table (the claims ledger) and moves its columns for the site",
    "lib/pearl/training/export.py": "a model card: the README of a model folder, not a results table",
}
#: a table written or formatted by hand: pandas' or tabulate's writers, a Markdown rule, a "± std" cell
BY_HAND = re.compile(r"\.to_markdown\(|\.to_latex\(|\btabulate\(|import tabulate|---\||± \{")


def test_every_table_goes_through_the_one_renderer_and_formatter():
    files = [p for d in ("lib", "scripts", "perf", "notebooks/src") for p in (ROOT / d).rglob("*.py")]
    assert len(files) > 60
    offenders = []
    for path in files:
        rel = str(path.relative_to(ROOT))
        if rel == "lib/pearl/tabular.py" or rel in NOT_TABLES or rel.startswith("lib/harness/report/"):
            continue  # the report's modules write sentences, not cells
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0] if not line.lstrip().startswith("#") else ""
            if BY_HAND.search(code):
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert not offenders, "write tables with pearl.tabular (Table, render, cell):\n" + "\n".join(offenders)


def test_the_lint_catches_a_table_written_by_hand():
    assert BY_HAND.search('lines = ["| a |", "|" + "---|" * 2]') and BY_HAND.search("df.to_markdown(index=False)")
    assert BY_HAND.search('f"{m:.1f} ± {s:.1f}"') and not BY_HAND.search("render(Table(df), 'md')")
