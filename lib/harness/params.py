"""Notebook parameters: what papermill (or a reader) set, checked before anything runs.

:func:`check_params` (called by every notebook's preamble, :func:`harness.preamble.start`): types
against the annotations, names against the declared ones, ranges by name. What it leaves out:
converting values (a wrong type is an error naming the fix, never coerced) and the scale a
``SMOKE`` parameter implies (the preamble's :class:`harness.scale.Scale`).
"""
from __future__ import annotations

import ast
import difflib
import math

from pearl import paths

#: the first line of the cell papermill injects with the parameters it was given
INJECTED_HEADER = "# Parameters"


class ParameterError(TypeError):
    """A notebook parameter arrived with the wrong type (say, from papermill's ``-p``)."""


def check_params(namespace: dict, annotations: dict) -> dict:
    """Check each annotated parameter in ``namespace`` against its annotation; return them.

    Every notebook's preamble (:func:`harness.preamble.start`) calls it on the ``parameters`` cell. papermill's ``-p NAME VALUE`` passes a string unless VALUE
    reads as a number, ``True``, ``False`` or ``None``, so ``-p SEEDS "[0]"`` gives the string
    ``"[0]"``: this raises :class:`ParameterError` naming the fix (``-y "SEEDS: [0]"``). None
    always passes (it means "the default"); an int passes for a float; other annotations
    (``str``, ``bool``, ``int``, ``list``, ``dict``) must match exactly (a bool is no int here).
    Only names in ``annotations`` are checked; nothing is converted.

    Each parameter with a meaningful range (:data:`RANGES`, by name: ``SEEDS`` a non-empty list
    of distinct non-negative integers, ``LR`` a finite positive number, ``VARIANT`` a plain
    folder-name part, ...) is checked too, before anything runs: :class:`ParameterError` names
    the parameter, its value and the allowed range.

    One more duty, since every notebook calls it first: a name papermill injected that the
    notebook does not declare (``-p NOT_A_PARAM 3``, ``-p smoke True``: papermill only warns)
    raises :class:`ParameterError` listing the declared ones (see :func:`injected`).

    >>> check_params({"SEEDS": [0], "LR": 1}, {"SEEDS": list, "LR": float})
    {'SEEDS': [0], 'LR': 1}
    >>> check_params({"SEEDS": "[0]"}, {"SEEDS": list})
    Traceback (most recent call last):
    ...
    harness.params.ParameterError: parameter SEEDS must be a list, got the string '[0]': pass it as YAML, papermill -y "SEEDS: [0]" (not -p SEEDS "[0]")
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
    for name, value in out.items():  # ranges, by name: a name means the same in every notebook
        if value is not None and name in RANGES:
            check_range(name, value)
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


def _number(value, low=None, high=None, low_open=False, integer=False) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (integer and not isinstance(value, int)):
        return False
    if not math.isfinite(value):
        return False
    if low is not None and (value <= low if low_open else value < low):
        return False
    return high is None or value <= high


def _name_part(value) -> bool:
    if value == "":
        return True
    try:
        paths.safe_name(value)
    except paths.UnsafeName:
        return False
    return True


def _each(check, nonempty=True, distinct=False):
    def ok(value):
        if not isinstance(value, (list, tuple)) or (nonempty and not value):
            return False
        return all(check(v) for v in value) and (not distinct or len(set(value)) == len(value))
    return ok


def _profile(value) -> bool:
    from pearl.training.profiles import PROFILES  # here: importing the parameter check trains nothing

    return isinstance(value, str) and value in PROFILES


_COUNT = (lambda v: _number(v, 1, integer=True), "an integer >= 1")
_SIZE = (lambda v: _number(v, 0, integer=True), "an integer >= 0 (0: the notebook's 'all' or 'off')")
_RATE = (lambda v: _number(v, 0, low_open=True), "a finite number > 0")
_WEIGHT = (lambda v: _number(v, 0), "a finite number >= 0 (0 turns it off)")
_SHARE = (lambda v: _number(v, 0, 1), "a number in [0, 1]")
_SEEDS = (_each(lambda v: _number(v, 0, integer=True), distinct=True), "a non-empty list of distinct integers >= 0")

#: parameter name -> (check, the allowed range in words); a name means the same in every notebook
RANGES = {
    **{n: _COUNT for n in ("MAX_TOKENS", "MIN_FREQ", "N_PROCESS", "BATCH_SIZE", "WIKI_MIN_FREQ", "CHUNK_ARTICLES",
                           "GLOVE_VOCAB", "STEPS", "N_PER_GROUP", "VOCAB_SIZE", "LATENCY_CANDIDATES", "WORKERS",
                           "DIVERSITY_PHRASES")},
    **{n: _SIZE for n in ("MAX_LINES", "MAX_PHRASES", "WIKI_STRIDE", "WIKI_MAX_ARTICLES", "HN_ANCHORS", "THREADS",
                          "K_NEGATIVES", "HARD_NEGATIVES", "SEED")},
    **{n: _RATE for n in ("LR", "CHOSEN_LR")},
    **{n: _WEIGHT for n in ("P_CHAR", "P_TOKEN", "P_PHRASE", "CHAR_AUG", "TOKEN_AUG", "PHRASE_AUG")},
    **{n: _SEEDS for n in ("SEEDS", "NOISE_SEEDS", "LABEL_SEEDS")},
    "PROFILE": (_profile, "a training profile of pearl.training.profiles.PROFILES: 'tiny', 'cpu' or 'gpu'"),
    "AVERAGE": _SHARE,
    "MAX_DISTANCE": _SHARE,
    "GLOVE_THRESHOLD": (lambda v: _number(v, -1, 1), "a cosine in [-1, 1]"),
    "PHRASE_SHARE": (lambda v: _number(v, 0, 1, low_open=True), "a share in (0, 1]"),
    "LRS": (_each(lambda v: _number(v, 0, low_open=True)), "a non-empty list of finite numbers > 0"),
    "LABEL_SHARES": (_each(lambda v: _number(v, 0, 1, low_open=True)), "a non-empty list of shares in (0, 1]"),
    "HARD_NEGATIVES_LIST": (_each(lambda v: _number(v, 0, integer=True)), "a non-empty list of integers >= 0"),
    "VARIANT": (_name_part, "empty, or a folder-name part: ASCII letters, digits, '-', '_' and '.' only, "
                            "not '.' alone, no '..'"),
    **{n: (_each(lambda v: isinstance(v, str) and bool(v)), "a non-empty list of names")
       for n in ("METHODS", "BACKBONES", "DATASETS", "PROJECTIONS")},
}


def check_range(name: str, value) -> None:
    """:class:`ParameterError` naming ``name``, ``value`` and the allowed range when ``value`` is
    outside :data:`RANGES` ``[name]`` (a list parameter of a scalar name, such as notebook 10's
    ``HARD_NEGATIVES``, is checked element by element).

    >>> check_range("SEEDS", [])
    Traceback (most recent call last):
    ...
    harness.params.ParameterError: parameter SEEDS = [] is out of range: it must be a non-empty list of distinct integers >= 0
    """
    check, allowed = RANGES[name]
    if isinstance(value, list) and name == "HARD_NEGATIVES":
        check, allowed = RANGES["HARD_NEGATIVES_LIST"]
    if not check(value):
        raise ParameterError(f"parameter {name} = {value!r} is out of range: it must be {allowed}")


def notebook_defaults(notebook: str) -> dict:
    """The literal defaults of ``notebooks/<notebook>``'s ``parameters`` cell: what ``make reproduce``
    runs with (read with ``papermill.inspect_notebook``; a default that is not a literal stays text)."""
    import papermill as pm

    out = {}
    for name, p in pm.inspect_notebook(str(paths.ROOT / "notebooks" / notebook)).items():
        try:
            out[name] = ast.literal_eval(p["default"])
        except (ValueError, SyntaxError):
            out[name] = p["default"]
    return out
