"""One route for every table: a :class:`Table` spec, :func:`cell` (the one cell formatter) and
:func:`render` (Markdown, LaTeX or CSV text of a spec).

Every results table (Tables 1-4, the discrepancy tables, the claims ledger, the me5-small and
mlm-wiki tables, the figures' tables) is a frame of cells and a :class:`Table` saying how to show
it; :func:`pearl.provenance.save_table` writes :func:`render`'s text (the harness labels a tiny run's). A cell that is a number
with words around it (``61.3 ± 0.4``, ``+0.6 ↑*``, ``**alias**``, ``–`` for a missing value)
is made by :func:`cell`; a frame of plain numbers is written by the renderer with the spec's
number format.

>>> import pandas as pd
>>> t = Table(pd.DataFrame({"model": ["a"], "score": [cell(61.25, 0.4)]}), head="Scores.", plain=True)
>>> print(render(t, "md"))
Scores.
<BLANKLINE>
| model | score |
|---|---|
| a | 61.2 ± 0.4 |

What it leaves out: what the cells mean (the modules that build the frames), where the text is
written (:mod:`pearl.provenance`) and sentences with numbers (the report, outside the library).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

FORMATS = ("md", "tex", "csv")


@dataclass(frozen=True)
class Table:
    """A frame and how to show it. Markdown is ``head``, the table and each of ``notes`` (text,
    or a table of its own), as paragraphs; LaTeX and CSV are the frame alone."""

    frame: Any  # a pandas DataFrame: the shown cells
    head: str = ""  # Markdown above the table
    notes: Sequence[str | Table] = ()  # paragraphs under it
    index: bool = False  # the frame's index is shown as its first column
    plain: bool = False  # Markdown rows as they are, `| a | b |` under a `|---|` rule (else tabulate's padded pipes)
    floatfmt: str = "g"  # numbers in padded Markdown (tabulate's floatfmt)
    numparse: bool = True  # padded Markdown: number-like text is aligned as a number
    float_format: str | None = "%.3f"  # LaTeX numbers
    na_rep: str = "n/a"  # LaTeX missing value
    caption: str | None = None  # LaTeX
    label: str | None = None  # LaTeX
    escape: bool | None = True  # LaTeX special characters escaped

    def _repr_markdown_(self) -> str:  # a notebook shows the spec as its Markdown: display(table)
        return render(self, "md")


def cell(value, std=None, *, digits: int | str = 1, sign: bool = False, missing: str = "n/a", arrow: str = "",
         beside=None, bold: bool = False, before: str = "") -> str:
    """One table cell as text: ``value`` (a number, or text kept as it is) with ``digits``
    decimals (or a format spec such as ``"g"`` or ``","``), ``+`` on positives with ``sign``;
    `` ± std`` when a std is given (± 0.0 too: the seeds agreed); ``(beside)`` after it (the
    paper's value beside ours, a rank); an ``arrow`` after that; bold with ``bold``; ``missing``
    for None or NaN.

    >>> cell(61.25, 0.0), cell(61.25, float("nan")), cell(float("nan"), 1.0), cell(None, missing="–")
    ('61.2 ± 0.0', '61.2', 'n/a', '–')
    >>> cell(0.6, sign=True, arrow="↑*"), cell(2.0, digits="g", beside=cell(1.84, digits=2)), cell(1234, digits=",")
    ('+0.6 ↑*', '2 (1.84)', '1,234')
    >>> cell("alias", bold=True), cell(0.91234, digits=3, beside=1), cell(0.0123, digits=3, before="TOST ")
    ('**alias**', '0.912 (1)', 'TOST 0.012')
    """
    if value is None or value != value:
        return missing
    spec = digits if isinstance(digits, str) else f".{digits}f"
    text = value if isinstance(value, str) else format(value, ("+" if sign else "") + spec)
    if std is not None and std == std:
        text += f" ± {format(std, spec)}"
    if beside is not None:
        text += f" ({beside})"
    if arrow:
        text += f" {arrow}"
    text = before + text
    return f"**{text}**" if bold else text


def render(table: Table, fmt: str) -> str:
    """``table`` as ``"md"`` (head, table, notes: paragraphs), ``"tex"`` (a booktabs tabular) or
    ``"csv"`` text, without the final newline Markdown gets when written."""
    if fmt == "md":
        notes = [render(n, "md") if isinstance(n, Table) else n for n in table.notes]
        return "\n\n".join([*([table.head] if table.head else []), _markdown(table), *notes])
    if fmt == "tex":
        return table.frame.to_latex(index=table.index, float_format=table.float_format,
                                    na_rep=table.na_rep, caption=table.caption, label=table.label, escape=table.escape)
    if fmt == "csv":
        return table.frame.to_csv(index=table.index)
    raise ValueError(f"unknown table format {fmt!r}; choose from {FORMATS}")


def _markdown(table: Table) -> str:
    frame = table.frame
    if not table.plain:
        return frame.to_markdown(index=table.index, floatfmt=table.floatfmt, disable_numparse=not table.numparse)
    if table.index:
        frame = frame.reset_index()
    rows = [list(map(str, frame.columns)), *([str(v) for v in r] for r in frame.itertuples(index=False))]
    lines = ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join([lines[0], "|" + "---|" * len(frame.columns), *lines[1:]])


def rows(header: Sequence[str], body: Sequence[Sequence], **spec) -> Table:
    """A plain :class:`Table` of a header and rows of cells (``spec``: its other fields)."""
    import pandas as pd

    frame = pd.DataFrame([list(r) for r in body], columns=list(header)) if body else pd.DataFrame(columns=list(header))
    return Table(frame, **{"plain": True, **spec})
