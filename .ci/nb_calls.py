"""Count the code cells of the batch notebooks that are plain library calls.

Usage: python .ci/nb_calls.py [THRESHOLD]   (THRESHOLD a share, e.g. 0.8; exit 1 when the total
share of plain cells is below it). Prints, per notebook of ``notebooks/ORDER``: its code cells,
its plain cells, their share, the line of each logic cell; then the total.

It reads the ``# %%`` sources ``notebooks/src/NAME.py`` (a test keeps them in sync with the
notebooks). A code cell is **plain** when every statement in it is one of:

- an ``import`` or ``from ... import``;
- an assignment (``=``, ``+=``, annotated) whose targets are names, attributes, subscripts or
  tuples of those, and whose value is a plain expression;
- an expression statement whose value is a plain expression (a ``print``/``display`` call, a
  library call, a name shown as the cell's output);
- a ``with`` block timing a step, ``with run.timer("x"):`` (its context a plain call of a method
  named ``timer``, bound to no name), whose body is plain statements; ``del`` and ``pass``.

A **plain expression** is a name, a literal (numbers, strings, ``None``, ``True``, ``...``), an
f-string of plain expressions, a tuple/list/set/dict display of plain expressions, an attribute
access, a subscript or slice, a call (positional, keyword, ``*`` and ``**`` arguments, all plain),
or an arithmetic, boolean, comparison or unary operator over plain expressions.

Anything else makes a cell **logic**: ``for``, ``while``, ``if``, ``try``, ``def``, ``class``,
``lambda``, a comprehension or generator expression, a conditional expression (``a if c else b``),
``:=``, ``assert``, ``raise``, ``global``, ``return``, ``yield``, ``await``, ``match``, and any
other ``with`` (``with open(path) as f:`` reads a file in the notebook: that belongs in the library). The
``parameters`` cell and the first cell (the preamble ``start(...)`` and the imports) count like any other.
Markdown cells are prose and are not counted.
"""
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_LEAVES = (ast.Name, ast.Constant)
_OPERATORS = (ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.Compare)
_DISPLAYS = (ast.Tuple, ast.List, ast.Set)


def plain_expression(node: ast.AST) -> bool:
    """True when ``node`` is built only of names, literals, attributes, subscripts, calls and operators."""
    if isinstance(node, _LEAVES):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(plain_expression(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return plain_expression(node.value) and (node.format_spec is None or plain_expression(node.format_spec))
    if isinstance(node, _DISPLAYS):
        return all(plain_expression(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(k is None or plain_expression(k) for k in node.keys) and all(map(plain_expression, node.values))
    if isinstance(node, ast.Starred):
        return plain_expression(node.value)
    if isinstance(node, ast.Attribute):
        return plain_expression(node.value)
    if isinstance(node, ast.Subscript):
        return plain_expression(node.value) and plain_expression(node.slice)
    if isinstance(node, ast.Slice):
        return all(p is None or plain_expression(p) for p in (node.lower, node.upper, node.step))
    if isinstance(node, ast.Call):
        return (plain_expression(node.func) and all(map(plain_expression, node.args))
                and all(plain_expression(k.value) for k in node.keywords))
    if isinstance(node, _OPERATORS):
        return all(plain_expression(c) for c in ast.iter_child_nodes(node) if isinstance(c, ast.expr))
    return False  # lambda, comprehension, conditional expression, :=, await, yield


def _target(node: ast.AST) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(map(_target, node.elts))
    if isinstance(node, ast.Starred):
        return _target(node.value)
    return isinstance(node, ast.Name) or (isinstance(node, (ast.Attribute, ast.Subscript)) and plain_expression(node))


def _timer(item: ast.withitem) -> bool:
    call = item.context_expr
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "timer"
            and plain_expression(call) and item.optional_vars is None)


def plain_statement(node: ast.stmt) -> bool:
    """True when statement ``node`` is an import, a plain assignment or expression, or a plain ``with``."""
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(node, ast.Expr):
        return plain_expression(node.value)
    if isinstance(node, ast.Assign):
        return all(map(_target, node.targets)) and plain_expression(node.value)
    if isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        return _target(node.target) and (node.value is None or plain_expression(node.value))
    if isinstance(node, ast.Delete):
        return all(map(_target, node.targets))
    if isinstance(node, ast.With):
        return all(map(_timer, node.items)) and all(map(plain_statement, node.body))
    return False


def plain_cell(source: str) -> bool:
    """True when every top-level statement of a code cell's ``source`` is plain (see the module doc)."""
    return all(map(plain_statement, ast.parse(source).body))


def code_cells(src: Path) -> list[tuple[int, str]]:
    """(first line, source) of each code cell (``parameters`` included) of a ``# %%`` source file."""
    cells, kind, start, lines = [], None, 0, []
    text = Path(src).read_text(encoding="utf8").splitlines()
    for number, line in enumerate(text + ["# %% [markdown]"], start=1):
        if line.startswith("# %%"):
            if kind == "code":
                cells.append((start, "\n".join(lines)))
            kind = "markdown" if line[4:].strip() == "[markdown]" else "code"
            start, lines = number + 1, []
        else:
            lines.append(line)
    return cells


def count(src: Path) -> tuple[int, int, list[int]]:
    """(code cells, plain cells, first lines of the logic cells) of one ``# %%`` source file."""
    cells = code_cells(src)
    logic = [start for start, source in cells if not plain_cell(source)]
    return len(cells), len(cells) - len(logic), logic


def batch_sources(root: Path = ROOT) -> list[Path]:
    """The ``# %%`` sources of the notebooks listed in ``notebooks/ORDER``, in order."""
    order = (root / "notebooks" / "ORDER").read_text().split()
    return [root / "notebooks" / "src" / name.replace(".ipynb", ".py") for name in order]


def report(sources: list[Path]) -> tuple[int, int, list[str]]:
    """(code cells, plain cells, printed lines) over ``sources``."""
    total = plain = 0
    lines = []
    for src in sources:
        n, p, logic = count(src)
        total, plain = total + n, plain + p
        where = f"  logic at lines {', '.join(map(str, logic))}" if logic else ""
        lines.append(f"{src.stem:<22} {n:3d} code {p:3d} plain {p / max(n, 1):6.0%}{where}")
    lines.append(f"{'total':<22} {total:3d} code {plain:3d} plain {plain / max(total, 1):6.0%}")
    return total, plain, lines


if __name__ == "__main__":
    threshold = float(sys.argv[1]) if len(sys.argv) > 1 else 0.0
    total, plain, lines = report(batch_sources())
    print("\n".join(lines))
    if plain / max(total, 1) < threshold:
        sys.exit(f"nb_calls.py: {plain}/{total} plain code cells, below {threshold:.0%}")
