"""What every sentence module shares: the results folder, the one number formatter :func:`num`,
the guard :func:`strict` that turns a missing number into a *no result* note with its reason,
and the model-name shortener.

A sentence never shows ``nan`` or ``None`` where a number belongs: every number a sentence
formats goes through :func:`num`, which refuses a null (what :meth:`harness.record.Run.save`
writes for an undefined metric), a NaN or an infinity, and :func:`strict` renders the sentences
of a function that met one, or a key its results file lacks, as *no result* with the reason
(the record's ``"undefined"`` map when it has one). A damaged results file is an error naming it.
"""
from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import Callable, Sequence

from pearl import paths
from pearl.provenance import read_record
from harness.record import writer

from .. import outputs


def results() -> Path:
    """The committed results folder (the report reads the last full run, never a SMOKE output root)."""
    return paths.ROOT / "results"


def read_json(name: str) -> dict:
    """``results/<name>`` parsed; a damaged file raises ``ValueError`` naming it and the fix, and a
    SMOKE record is refused, naming it (:func:`harness.outputs.refuse_smoke`): the report quotes
    full-size results only."""
    path = results() / name
    record = read_record(path, writer(path))  # first: a damaged file names itself and the fix
    outputs.refuse_smoke(path, smoke=False, fix="the report quotes full-size results only: rerun the notebook that "
                         "wrote it at full size (make reproduce), or restore the committed file (git checkout -- results/)")
    return record


class NoResult(ValueError):
    """A number a sentence needs is null, NaN or infinite: the sentence is *no result*, not a number."""


def num(value, spec: str = "") -> str:
    """``value`` formatted with ``spec``; :class:`NoResult` for None, NaN, infinity or anything not a number.
    (A table cell shows a missing value as a dash, :func:`pearl.tabular.cell`; a sentence has no such place.)

    >>> num(61.25, ".1f"), num(3), num(0.05, ".0%")
    ('61.2', '3', '5%')
    >>> num(None, ".1f")
    Traceback (most recent call last):
    ...
    harness.report.common.NoResult: None where a number belongs
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise NoResult(f"{value!r} where a number belongs")
    return format(value, spec)


def no_result(key: str, reason: str) -> str:
    """The note a sentence shows in place of its numbers."""
    return f"*[no result: `{key}`; {reason}]*"


def undefined(sources: Sequence[str]) -> str:
    """What ``sources`` (results file names) say is undefined and why (their ``"undefined"`` maps), or ``""``."""
    said = []
    for name in sources:
        if exists(name) and name.endswith(".json"):
            record = read_json(name)
            reasons = record.get("undefined") if isinstance(record, dict) else None
            said += [f"`results/{name}` leaves {key} undefined: {why}" for key, why in (reasons or {}).items()]
    return "; ".join(said)


def _reason(err: Exception, sources: Sequence[str]) -> str:
    files = ", ".join(f"`results/{s}`" for s in sources) or "its results file"
    if isinstance(err, KeyError):
        what = f"{files} holds no {err.args[0]!r}"
    elif isinstance(err, FileNotFoundError):
        what = f"{Path(err.filename).name if err.filename else files} is absent"
    elif isinstance(err, IndexError):
        what = f"{files} lacks a row it reads"
    else:  # NoResult, or a null met by arithmetic before num()
        found = "None" if isinstance(err, TypeError) else str(err).split(" where")[0]
        what = f"{files} gives {found} where a number belongs"
    why = undefined(sources)
    return f"{what}{' (' + why + ')' if why else ''}; {_fix(sources)}"


def _fix(sources: Sequence[str]) -> str:
    """What rewrites ``sources``: a notebook's record its notebook, any other file the script that names it.

    >>> print(_fix(["08_ablations.json", "claims.csv"]))  # doctest: +NORMALIZE_WHITESPACE
    rerun notebooks/08_ablations.ipynb and the notebook or script that writes `results/claims.csv`
    (`git grep -l claims.csv scripts perf notebooks/src`)
    """
    if not sources:
        return "rerun what writes it"
    return "rerun " + " and ".join(
        f"notebooks/{Path(s).stem}.ipynb" if Path(s).stem[:2].isdigit() and Path(s).stem[2:3] == "_" else
        f"the notebook or script that writes `results/{s}` (`git grep -l {Path(s).name} scripts perf notebooks/src`)"
        for s in sources)


def strict(make: Callable[[], dict], *prefixes: str, sources: Sequence[str] = ()) -> dict[str, str]:
    """``make()``'s sentences, or, when a number it needs is null, NaN or absent from ``sources``
    (results file names), ``{prefix + "*": reason}`` for each key prefix of ``prefixes``:
    :func:`harness.report.build.render` shows every key under those prefixes as *no result*, with the reason.

    >>> strict(lambda: {"x.a": num(float("nan"), ".1f")}, "x.")
    {'x.*': 'its results file gives nan where a number belongs; rerun what writes it'}
    >>> strict(lambda: {"x.a": num(None)}, "x.", sources=["04_benchmark.json"])["x.*"].endswith(
    ...     "; rerun notebooks/04_benchmark.ipynb")
    True
    """
    try:
        return make()
    except (NoResult, LookupError, FileNotFoundError) as err:
        return {f"{p}*": _reason(err, sources) for p in prefixes}
    except TypeError as err:
        if "NoneType" not in str(err):  # only a null met by arithmetic; any other TypeError is a bug
            raise
        return {f"{p}*": _reason(err, sources) for p in prefixes}


def pick(values: dict[str, str], key: str) -> str | None:
    """``values[key]``; else the *no result* note of a prefix ``key`` falls under (:func:`strict`); else None."""
    if key in values:
        return values[key]
    reasons = [(len(k), r) for k, r in values.items() if k.endswith("*") and key.startswith(k[:-1])]
    return no_result(key, max(reasons)[1]) if reasons else None


def exists(name: str) -> bool:
    return (results() / name).is_file()


def short(model: str) -> str:
    """``glove`` / ``minilm`` / ``pearl...`` for a model key or its display label (results files use either).

    >>> short("GloVe 6B 50-d (stand-in)"), short("PEARL seed 0 (MiniLM backbone)"), short("minilm")
    ('glove', 'pearl-seed-0-(minilm-backbone)', 'minilm')
    """
    if model.startswith("GloVe"):
        return "glove"
    if model.startswith("all-MiniLM-L6-v2"):
        return "minilm"
    return model.lower().replace(" ", "-") if model.startswith("PEARL seed") else model


def stage_label(stage: str) -> str:
    """A timed stage as the report names it: a notebook by its number, then the venv build, HTML, site.

    >>> stage_label("04_benchmark.ipynb"), stage_label("venv build and system packages"), stage_label("html")
    ('04', 'venv build', 'HTML')
    """
    if stage.endswith(".ipynb"):
        return stage.split("_")[0]
    return "venv build" if stage.startswith("venv") else "HTML" if stage == "html" else stage
