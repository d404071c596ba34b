"""Notebook parameters: each notebook's first code cell checks what papermill (or a reader) set.

``params = check_params(globals(), __annotations__)`` right after the ``parameters`` cell:
types against the annotations, names against the declared ones, and the SMOKE switch. What
it leaves out: converting values (a wrong type is an error naming the fix, never coerced).
"""
from __future__ import annotations

import ast
import difflib

from . import paths

#: the first line of the cell papermill injects with the parameters it was given
INJECTED_HEADER = "# Parameters"


class ParameterError(TypeError):
    """A notebook parameter arrived with the wrong type (say, from papermill's ``-p``)."""


def check_params(namespace: dict, annotations: dict) -> dict:
    """Check each annotated parameter in ``namespace`` against its annotation; return them.

    Every notebook's first code cell calls ``params = check_params(globals(), __annotations__)``
    after the ``parameters`` cell. papermill's ``-p NAME VALUE`` passes a string unless VALUE
    reads as a number, ``True``, ``False`` or ``None``, so ``-p SEEDS "[0]"`` gives the string
    ``"[0]"``: this raises :class:`ParameterError` naming the fix (``-y "SEEDS: [0]"``). None
    always passes (it means "the default"); an int passes for a float; other annotations
    (``str``, ``bool``, ``int``, ``list``, ``dict``) must match exactly (a bool is no int here).
    Only names in ``annotations`` are checked; nothing is converted.

    Two more duties, since every notebook calls it first: a name papermill injected that the
    notebook does not declare (``-p NOT_A_PARAM 3``, ``-p smoke True``: papermill only warns)
    raises :class:`ParameterError` listing the declared ones (see :func:`injected`); and the
    run's ``SMOKE`` decides where it writes (:func:`pearl.paths.set_smoke`).

    >>> check_params({"SEEDS": [0], "LR": 1}, {"SEEDS": list, "LR": float})
    {'SEEDS': [0], 'LR': 1}
    >>> check_params({"SEEDS": "[0]"}, {"SEEDS": list})
    Traceback (most recent call last):
    ...
    pearl.params.ParameterError: parameter SEEDS must be a list, got the string '[0]': pass it as YAML, papermill -y "SEEDS: [0]" (not -p SEEDS "[0]")
    """
    unknown = sorted(set(injected(namespace)) - set(annotations))
    if unknown:
        near = {n: difflib.get_close_matches(n.upper(), list(annotations), n=1, cutoff=0.6) for n in unknown}
        hint = "; ".join(f"{n}: did you mean {m[0]}?" for n, m in near.items() if m)
        raise ParameterError(f"unknown parameter{'s' * (len(unknown) > 1)} {', '.join(unknown)}"
                             f"{f' ({hint})' if hint else ''}: this notebook declares {', '.join(annotations)}")
    out = {}
    for name, kind in annotations.items():
        if name not in namespace:
            continue
        value = out[name] = namespace[name]
        if value is None or not isinstance(kind, type):
            continue
        ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if ok:
            continue
        if isinstance(value, str) and kind in (list, dict):
            raise ParameterError(f"parameter {name} must be a {kind.__name__}, got the string {value!r}: pass it "
                                 f'as YAML, papermill -y "{name}: {value}" (not -p {name} "{value}")')
        if isinstance(value, str) and kind is bool:
            raise ParameterError(f"parameter {name} must be a bool, got the string {value!r}: "
                                 f"pass -p {name} True or -p {name} False (capitalised)")
        raise ParameterError(f"parameter {name} must be a {kind.__name__}, got {type(value).__name__} {value!r}: "
                             f'pass it as YAML, papermill -y "{name}: <value>"')
    if "SMOKE" in annotations:  # last: only a run whose parameters passed changes where it writes
        paths.set_smoke(bool(namespace.get("SMOKE")))
    return out


def injected(namespace: dict) -> list[str]:
    """Names assigned in the cell papermill injected (found in IPython's input history ``In``,
    the latest cell that starts with ``# Parameters``); [] outside a papermill run."""
    for source in reversed(list(namespace.get("In") or ())):
        if isinstance(source, str) and source.lstrip().startswith(INJECTED_HEADER):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return []
            return [t.id for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                    for t in (node.targets if isinstance(node, ast.Assign) else [node.target]) if isinstance(t, ast.Name)]
    return []
