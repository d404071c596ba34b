"""The scale of a result, table or figure on disk: a SMOKE run never replaces a full-size output.

Every table, figure and notebook record is written through :func:`write_output` (by
:func:`pearl.provenance.save_table`, :func:`pearl.provenance.save_figure` and
:meth:`pearl.provenance.Run.save`). The scale is read from structured data, never from a text
prefix (:func:`scale_of`): a record's parameters, or a hidden :func:`sidecar` beside a SMOKE
table or figure that names the sha256 of the bytes it vouches for. A SMOKE write refuses to
replace a full-size file (:func:`refuse_full`), naming the file and the fix; a full-size write
removes a stale sidecar. What it leaves out: model folders, whose scale their ``pearl.json`` says
(:func:`pearl.training.export.refuse_full`).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from . import paths
from .atomic import write_atomic_all

#: the sidecar that marks a table or figure as written by a SMOKE run: ``.<file name>.smoke``
#: beside it, strict JSON ``{"scale": "smoke", "sha256": <the file's digest>}``. Full-size
#: outputs have none (the committed ones included), so a file without a sidecar that vouches
#: for its current bytes counts as full size.
SIDECAR = ".{}.smoke"


def sidecar(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(SIDECAR.format(path.name))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def scale_of(path: str | Path) -> str | None:
    """The scale of the output at ``path``: ``"smoke"``, ``"full"`` or None (no such file), read
    from structured data, never from a text prefix:

    - a notebook record (``results/<name>.json`` holding ``"parameters"``): smoke when it has a
      top-level ``"SMOKE"`` key or ``parameters["SMOKE"]`` is true;
    - anything else (tables, figures): smoke when its :func:`sidecar` names the file's current
      sha256, or when it lies under the default SMOKE root ``smoke-output/``, which only SMOKE
      runs write; otherwise full (a full-size output has no sidecar).

    A record that is not JSON raises ``ValueError`` naming the file (its scale cannot be told)."""
    path = Path(path)
    if not path.is_file():
        return None
    if path.resolve().is_relative_to((paths.ROOT / paths.SMOKE_ROOT).resolve()):
        return "smoke"
    if path.suffix == ".json":
        try:
            record = json.loads(path.read_text(encoding="utf8"))
        except (ValueError, UnicodeDecodeError) as err:
            raise ValueError(f"{path} is not valid JSON ({err}), so whether it holds a full-size result cannot "
                             "be told: delete it if it is debris, or point $PEARL_OUTPUT at a scratch folder") from err
        if isinstance(record, dict) and isinstance(record.get("parameters"), dict):
            return "smoke" if "SMOKE" in record or record["parameters"].get("SMOKE") is True else "full"
    mark = sidecar(path)
    if mark.is_file():
        try:
            said = json.loads(mark.read_text(encoding="utf8"))
        except (ValueError, UnicodeDecodeError):
            said = {}
        if isinstance(said, dict) and said.get("scale") == "smoke" and said.get("sha256") == _digest(path):
            return "smoke"
    return "full"


def read_record(path: str | Path):
    """A results file (``results/<notebook>.json`` and the like) parsed; a damaged one (not JSON)
    raises ``ValueError`` naming the file, what writes it, and the fix."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError) as err:
        stem = path.stem
        writer = (f"notebook notebooks/{stem}.ipynb (make reproduce, or papermill on that notebook)"
                  if stem[:2].isdigit() and stem[2:3] == "_" else "the notebook or script that writes it")
        raise ValueError(f"{path} is damaged: not JSON ({err}). Rerun {writer} to write it again, or restore "
                         f"the committed copy with `git checkout -- {_in_repo(path)}`") from err


def _in_repo(path: Path) -> str:
    """``path`` relative to its output root's parent folder when it is under a ``results/`` folder."""
    parts = path.parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("results"):]) if "results" in parts else str(path)


def refuse_full(path: str | Path, smoke: bool) -> None:
    """In a SMOKE run (``smoke``: the caller's :class:`pearl.scale.Scale` says), refuse to replace the
    full-size output at ``path`` (:func:`scale_of`): ``FileExistsError`` naming the file and the fix."""
    if smoke and scale_of(path) == "full":
        raise FileExistsError(f"{path} holds a full-size output and this is a SMOKE run, which never replaces one: "
                              f"unset $PEARL_OUTPUT (SMOKE runs then write under {paths.ROOT / paths.SMOKE_ROOT}) or "
                              "point it at a scratch folder")


def write_output(path: str | Path, data: str | bytes, smoke: bool) -> Path:
    """Write a result, table or figure atomically, keeping its scale readable (:func:`scale_of`):
    a SMOKE write refuses to replace a full-size file (:func:`refuse_full`) and leaves a
    :func:`sidecar` vouching for the bytes it wrote; a full-size write removes a stale sidecar."""
    return write_outputs({path: data}, smoke)[0]


def write_outputs(files: dict, smoke: bool) -> list[Path]:
    """:func:`write_output` for several files (``{path: data}``) as one unit
    (:func:`pearl.atomic.write_atomic_all`, SMOKE sidecars included): a failure while writing any
    leaves every file, and its scale, as it was. Returns the paths, in order."""
    files = {Path(path): data for path, data in files.items()}
    for path in files:  # every file checked before any is written
        refuse_full(path, smoke)
    marks = {}
    if smoke:
        for path, data in files.items():
            raw = data.encode("utf8") if isinstance(data, str) else data
            said = {"scale": "smoke", "sha256": hashlib.sha256(raw).hexdigest()}
            marks[sidecar(path)] = json.dumps(said, allow_nan=False) + "\n"  # strict JSON, as pearl.provenance.dumps_strict writes it
    written = write_atomic_all({**files, **marks})[:len(files)]
    if not smoke:  # after the rename: a sidecar that names the old bytes vouches for nothing, the new file reads as full
        for path in files:
            sidecar(path).unlink(missing_ok=True)
    return written
