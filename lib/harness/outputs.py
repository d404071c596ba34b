"""The scale of an output on disk: a SMOKE run never replaces a full-size one, and a full-size
run never reads a SMOKE one as evidence or input.

Every table, figure and notebook record is written through :func:`write_output` (by
:func:`save_table`, :func:`save_figure` and the notebook run's record); the derived data under
``data/derived/`` (the corpus, the augmentation lexicons, the hard negatives, the Wikipedia builds)
and the model folders are checked by the same :func:`refuse_full` before pearl's writers write:
they call the :class:`ScaleGuard` the notebook passes them (``guard=run.scale.guard``), pearl's
hook for a caller's policy (:class:`pearl.guard.Guard`). The scale is read from structured
data, never from a text prefix (:func:`scale_of`): a record's parameters, the metadata that
derived data and model folders carry (:func:`pearl.guard.metadata_of`), or a hidden :func:`sidecar` beside a
SMOKE file that has no metadata of its own (a table, a figure, the hard negatives), naming the
sha256 of the bytes it vouches for. A SMOKE write refuses to replace a full-size file
(:func:`refuse_full`; a stage checks all its targets first, :func:`refuse_full_all`), naming the
file and the fix; a full-size write removes a stale sidecar. A full-size reader refuses a SMOKE
input (:func:`refuse_smoke`).

What it leaves out: content-addressed caches (the embedding cache, stand-in dictionaries, pools,
the chunks of a build), whose key is a digest of everything that decides their bytes, so a SMOKE
run adds entries of its own and never rewrites a full-size one.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pearl import paths
from pearl.atomic import write_atomic_all
from pearl.guard import Guard, metadata_of
from pearl.provenance import figure_bytes, table_texts

#: where a SMOKE run writes when no scratch ``$PEARL_OUTPUT`` is set (ignored by git; :class:`harness.scale.Scale` sends it)
SMOKE_ROOT = "smoke-output"

#: the sidecar that marks a table or figure as written by a SMOKE run: ``.<file name>.smoke``
#: beside it, strict JSON ``{"scale": "smoke", "sha256": <the file's digest>}``. Full-size
#: outputs have none (the committed ones included), so a file without a sidecar that vouches
#: for its current bytes counts as full size.
SIDECAR = ".{}.smoke"
#: the SMOKE banner on a table (:func:`smoke_label`)
BANNER = "SMOKE run: tiny subsets; these numbers are not results."
#: what a SMOKE run records in the metadata pearl writes (:attr:`ScaleGuard.note`); a file without it is full size
SMOKE_NOTE = {"smoke": True, "note": "SMOKE run: tiny sizes (a few steps, a slice of the data); not a result"}
#: pearl's training profile of a SMOKE run (:data:`harness.scale.TINY`, which imports this module)
TINY_PROFILE = "tiny"
FIX = (f"unset $PEARL_OUTPUT (SMOKE runs then write under {paths.ROOT / SMOKE_ROOT}) or point it at a "
       "scratch folder")


class SmokeInput(ValueError):
    """A full-size run was handed a SMOKE output to read as evidence or input."""


def sidecar(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(SIDECAR.format(path.name))


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is not valid JSON ({err}), so whether it holds a full-size result cannot "
                         "be told: delete it if it is debris, or point $PEARL_OUTPUT at a scratch folder") from err


def _says_smoke(data) -> bool:
    """Whether parsed metadata or a record says SMOKE: a top-level ``"SMOKE"`` key, ``"smoke": true``,
    a record's ``parameters["SMOKE"]`` true, or a model trained on pearl's tiny profile (``"profile":
    "tiny"``: pearl's own command line writes no SMOKE note, and tiny is the SMOKE size, :mod:`harness.scale`)."""
    if not isinstance(data, dict):
        return False
    params = data.get("parameters")
    return ("SMOKE" in data or data.get("smoke") is True or data.get("profile") == TINY_PROFILE
            or (isinstance(params, dict) and params.get("SMOKE") is True))


def _csv_says_smoke(path: Path) -> bool:
    """A SMOKE table's CSV has a ``smoke`` column (:func:`save_table`)."""
    import csv

    with path.open(encoding="utf8", newline="") as fh:
        return "smoke" in next(csv.reader(fh), [])


def scale_of(path: str | Path) -> str | None:
    """The scale of the output at ``path``: ``"smoke"``, ``"full"`` or None (nothing there, or a
    folder that says no scale), read from structured data, never from a text prefix:

    - anything under the default SMOKE root ``smoke-output/``, which only SMOKE runs write: smoke;
    - derived data and model folders: what their metadata says (:func:`pearl.guard.metadata_of`);
    - a notebook record (``results/<name>.json`` holding ``"parameters"``): smoke when it has a
      top-level ``"SMOKE"`` key or ``parameters["SMOKE"]`` is true;
    - a table's CSV with a ``smoke`` column: smoke;
    - any other file: smoke when its :func:`sidecar` names the file's current sha256; otherwise
      full (a full-size output has neither).

    A record or metadata file that is not JSON raises ``ValueError`` naming the file (its scale
    cannot be told)."""
    path = Path(path)
    if not path.exists():
        return None
    if path.resolve().is_relative_to((paths.ROOT / SMOKE_ROOT).resolve()):
        return "smoke"
    meta = metadata_of(path)
    if meta is not None:
        return "smoke" if _says_smoke(_json(meta)) else "full"
    if not path.is_file():
        return None
    if path.suffix == ".json":
        record = _json(path)
        if isinstance(record, dict) and isinstance(record.get("parameters"), dict):
            return "smoke" if _says_smoke(record) else "full"
    if path.suffix == ".csv" and _csv_says_smoke(path):
        return "smoke"
    mark = sidecar(path)
    if mark.is_file():
        try:
            said = json.loads(mark.read_text(encoding="utf8"))
        except (ValueError, UnicodeDecodeError):
            said = {}
        if isinstance(said, dict) and said.get("scale") == "smoke" and said.get("sha256") == _digest(path):
            return "smoke"
    return "full"


def _how(path: Path) -> str:
    meta = metadata_of(path)
    return f" ({meta} says its scale)" if meta is not None and meta != path else ""


def refuse_full(path: str | Path, smoke: bool) -> None:
    """In a SMOKE run (``smoke``: the caller's :class:`harness.scale.Scale` says), refuse to replace the
    full-size output at ``path`` (:func:`scale_of`): ``FileExistsError`` naming the file and the fix."""
    if smoke and scale_of(path) == "full":
        raise FileExistsError(f"{path} holds a full-size output{_how(Path(path))} and this is a SMOKE run, which "
                              f"never replaces one: {FIX}")


def refuse_full_all(targets, smoke: bool) -> None:
    """:func:`refuse_full` over every one of ``targets`` (files or folders), all checked before the
    caller writes any: a stage stops before its first write, not halfway through."""
    for path in targets:
        refuse_full(path, smoke)


def refuse_full_stage(run, *targets, figures=(), own: bool = True) -> None:
    """A notebook stage's check before its first write: in a SMOKE run (``run.scale``, the
    notebook run's record), refuse when any of ``targets`` (derived files and folders), the
    figures named in ``figures`` (``figures/<name>.png`` and ``.pdf``) or, with ``own``, the run's
    record ``results/<run.name>.json`` holds a full-size output, in that order
    (:func:`refuse_full_all`). A stage that writes derived data and then fails on a figure would
    otherwise have replaced the data already."""
    figure_files = [paths.figures_dir(f"{name}.{ext}") for name in figures for ext in ("png", "pdf")]
    record = [paths.results_dir(f"{run.name}.json")] if own else []
    refuse_full_all([*targets, *figure_files, *record], run.scale.smoke)


def refuse_smoke(path: str | Path, smoke: bool, fix: str) -> None:
    """In a full-size run (``smoke`` false), refuse to read the SMOKE output at ``path`` as evidence
    or input: :class:`SmokeInput` naming the file and ``fix`` (what makes a full-size one)."""
    if not smoke and scale_of(path) == "smoke":
        raise SmokeInput(f"{path} holds a SMOKE output{_how(Path(path))}, tiny and not a result, and this is a "
                         f"full-size run, which never reads one: {fix}")


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


def smoke_label(text: str, fmt: str, banner: str | None = None) -> str:
    """``text`` (Markdown or LaTeX) with a SMOKE banner on top, unless it already has one."""
    if fmt == "md":
        return text if text.lstrip().startswith("**SMOKE") else f"**{banner or BANNER}**\n\n" + text
    if fmt == "tex":
        return text if "SMOKE" in text else f"% {banner or BANNER}\n" + text
    raise ValueError(f"a SMOKE banner goes on md or tex, not {fmt!r}")


def save_table(df, name: str, markdown=None, latex=None, *, smoke: bool, root: str | Path | None = None) -> list[Path]:
    """Write ``results/<name>.csv`` (the frame ``df``; None leaves the CSV alone), ``.md`` and
    ``.tex`` (:func:`pearl.provenance.table_texts`, the one route of every table) as one unit
    (:func:`write_outputs`: all or none). At ``smoke`` size the CSV gets a ``smoke`` column and the
    text a SMOKE banner (:func:`smoke_label`), so a smoke table cannot pass for a result (``smoke``
    has no default: every caller says its scale)."""
    df = df.assign(smoke=True) if smoke and df is not None else df
    texts = {ext: smoke_label(text, ext) if smoke and ext != "csv" else text
             for ext, text in table_texts(df, markdown, latex).items()}
    return write_outputs({paths.results_dir(f"{name}.{ext}", root=root): text for ext, text in texts.items()}, smoke)


def save_figure(fig, name: str, formats=("png", "pdf"), *, smoke: bool, root: str | Path | None = None) -> list[Path]:
    """``figures/<name>.png`` (150 dpi) and ``.pdf`` as one unit (:func:`write_outputs`). At ``smoke``
    size the figure carries a SMOKE banner, so it cannot pass for a result."""
    for ext in formats:  # every format checked before the figure is drawn on
        refuse_full(paths.figures_dir(f"{name}.{ext}", root=root), smoke)
    if smoke:
        fig.text(0.5, 1.0, "SMOKE run: tiny subsets, not results", ha="center", va="bottom",
                 color="darkred", fontsize=12, fontweight="bold")
    return write_outputs({paths.figures_dir(f"{name}.{ext}", root=root): data
                          for ext, data in figure_bytes(fig, formats).items()}, smoke)


class ScaleGuard(Guard):
    """The guard a notebook run passes pearl's writers (``run.scale.guard``): a SMOKE run refuses to
    replace a full-size output (:func:`refuse_full_all`), records :data:`SMOKE_NOTE` in the metadata
    pearl writes, leaves a sidecar beside a file without metadata and labels its tables and figures;
    a full-size run refuses a SMOKE input (:func:`refuse_smoke`)."""

    def __init__(self, smoke: bool):
        self.smoke = smoke
        self.note = dict(SMOKE_NOTE) if smoke else {}

    def __repr__(self) -> str:
        return f"ScaleGuard(smoke={self.smoke})"

    def check(self, targets) -> None:
        refuse_full_all(targets, self.smoke)

    def check_input(self, path, fix: str) -> None:
        refuse_smoke(path, self.smoke, fix)

    def describe(self, path) -> dict:
        return {"scale": scale_of(path)}

    def write(self, files: dict) -> list[Path]:
        return write_outputs(files, self.smoke)

    def table(self, df, name: str, markdown=None, latex=None, root=None) -> list[Path]:
        return save_table(df, name, markdown, latex, smoke=self.smoke, root=root)

    def figure(self, fig, name: str, formats=("png", "pdf"), root=None) -> list[Path]:
        return save_figure(fig, name, formats, smoke=self.smoke, root=root)
