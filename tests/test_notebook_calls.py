"""Notebooks are prose and library calls: at least 80 % of the batch notebooks' code cells are
plain (``.ci/nb_calls.py`` says what plain means), and the counter itself on hand-made cells."""
import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("nb_calls", ROOT / ".ci" / "nb_calls.py")
nb_calls = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nb_calls)

SHARE = 0.80


@pytest.mark.parametrize("source", [
    "import pandas as pd\nfrom pearl import paths",
    "x = f(a, b=1, *c, **d)\ny = x.attr[0:2]['k']\nz: int = 3",
    "print(f'{n:,} phrases, {a / b:.1%}', -x, a and not b, a < b)",
    "with run.timer('x'):\n    y = g(1)\ndisplay(Markdown(md))",
    "table = {'a': [1, 2], **extra}\nx += 1\nrows = (a, b)",
    "run = Run('01', dict(SMOKE=SMOKE, MAX=MAX or None))",
])
def test_plain_cells(source):
    assert nb_calls.plain_cell(source)


@pytest.mark.parametrize("source", [
    "for x in y:\n    print(x)",
    "if SMOKE:\n    N = 3",
    "x = [a for a in b]",
    "x = {a: 1 for a in b}",
    "x = sum(len(a) for a in b)",
    "x = a if c else b",
    "f = lambda a: a",
    "def f():\n    pass",
    "class A:\n    pass",
    "while x:\n    x -= 1",
    "try:\n    f()\nexcept Exception:\n    pass",
    "with open(p) as f:\n    for line in f:\n        print(line)",
    "print(f'{[a for a in b]}')",
    "assert x",
    "raise ValueError('x')",
    "x = g(h(y, key=lambda a: a))",
    "with lock:\n    y = 1",  # a context that is not a call
    "with open(p) as f:\n    y = f.read()",  # only run.timer(...) blocks are plain
    "with run.timer('x'):\n    if a:\n        y = 1",
])
def test_logic_cells(source):
    assert not nb_calls.plain_cell(source)


def test_cells_are_split_at_the_markers(tmp_path):
    src = tmp_path / "nb.py"
    src.write_text("# %% [markdown]\n# prose\n\n# %% parameters\nSMOKE: bool = False\n\n# %%\nif SMOKE:\n"
                   "    x = 1\n\n# %% [markdown]\n# more\n\n# %%\nprint(x)\n")
    assert nb_calls.code_cells(src) == [(5, "SMOKE: bool = False\n"), (8, "if SMOKE:\n    x = 1\n"), (15, "print(x)")]
    assert nb_calls.count(src) == (3, 2, [8])


def test_notebooks_are_prose_and_calls():
    sources = nb_calls.batch_sources()
    assert len(sources) >= 13 and all(s.is_file() for s in sources)
    total, plain, lines = nb_calls.report(sources)
    assert plain / total >= SHARE, "\n".join(lines)
