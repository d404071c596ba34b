"""Provenance for every result: package versions, git SHA, hardware, and the strict writers.

Every JSON file the library writes goes through :func:`write_json`: strict JSON (``NaN`` and
``Infinity`` refused) written atomically; a value that is undefined is saved as ``null``
(:func:`finite`, :func:`nulled`). Tables go through :func:`save_table`, figures through
:func:`save_figure`, each written as one unit by the writer the caller passes (a
:meth:`pearl.guard.Guard.write`; plain atomic writes by default). The git commit comes from
:func:`git_state`, which in a batch run uses the commit recorded at the run's start (the
Makefile's ``reproduce``). Nothing here reads results back, but :func:`read_record`, which parses
one and names the fix when it is damaged.

What it leaves out: a notebook run's record (its parameters, timings and metrics), and the
labels and checks of a tiny run's outputs, which the harness that runs the notebooks adds
(:mod:`harness.outputs`).
"""
from __future__ import annotations

import io
import json
import math
import os
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from . import paths
from .atomic import write_atomic, write_atomic_all
from .tabular import Table, render

PACKAGES = (
    "torch", "transformers", "sentence-transformers", "numpy", "pandas", "scikit-learn",
    "faiss-cpu", "spacy", "nltk", "rapidfuzz", "umap-learn", "matplotlib", "papermill",
)


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def is_before(commit: str, since: str, root: Path | None = None) -> bool | None:
    """Whether the run at ``commit`` came before ``since``: ``since`` is not among its ancestors in
    git's history. None when git cannot tell (no repository, a commit it does not hold, no commit).

    It reads ancestry, not dates: a branch merged after ``since`` without it is still before it."""
    if not commit or not since:
        return None
    try:
        proc = subprocess.run(["git", "merge-base", "--is-ancestor", since, commit], cwd=Path(root or paths.ROOT),
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return {0: False, 1: True}.get(proc.returncode)  # 128: an unknown commit


def changed_paths(root: Path | None = None) -> list[str] | None:
    """Paths ``git status --porcelain`` lists (tracked, untracked, not ignored), sorted; None outside git."""
    out = _git(Path(root or paths.ROOT), "status", "--porcelain", "--untracked-files=all")
    if out is None:
        return None
    return sorted({line[3:].split(" -> ")[-1].strip('"') for line in out.splitlines() if line.strip()})


REGENERATED = ("results/", "figures/")  # the output folders a run writes; in a checkout, tracked so readers see them


def git_state(root: Path | None = None, env=None) -> dict:
    """The commit a result comes from, and whether the tree was clean.

    A batch run (``make reproduce``) records ``git rev-parse HEAD`` and the changed tracked paths
    once, at its start, in ``PEARL_RUN_COMMIT`` and ``PEARL_RUN_DIRTY`` (comma-separated, empty when
    clean; ``PEARL_RUN_UNTRACKED`` the untracked ones): the commit is the one the run started from,
    and files rewritten by earlier notebooks of the run do not make it "dirty". Outside a batch run
    it is the tree as it is now.
    Changed files under ``results/`` and ``figures/`` are listed but do not make it "dirty".
    ``changed_by_run`` lists the paths dirty now that were not dirty at the start (batch runs
    only; None otherwise). Nothing is cached: each call asks git again."""
    root = Path(root or paths.ROOT)
    env = os.environ if env is None else env
    now = changed_paths(root)
    if env.get("PEARL_RUN_COMMIT"):
        start = sorted(p for p in env.get("PEARL_RUN_DIRTY", "").split(",") if p)
        untracked = {p for p in env.get("PEARL_RUN_UNTRACKED", "").split(",") if p}
        commit, dirty = env["PEARL_RUN_COMMIT"], start
        changed = None if now is None else sorted(set(now) - set(start) - untracked)
        source = "batch run: PEARL_RUN_COMMIT, PEARL_RUN_DIRTY recorded at its start"
    else:
        head = _git(root, "rev-parse", "HEAD")
        commit = head.strip() if head else None
        tracked = _git(root, "status", "--porcelain", "--untracked-files=no")
        dirty = sorted(line[3:] for line in (tracked or "").splitlines() if line.strip())
        changed, source = None, "working tree at save time"
    # "-dirty" means the code or inputs differ from the commit. The folders make reproduce
    # regenerates do not count: a run timed in sittings, or notebook 05 run after 04, finds them
    # changed by the same commit's code. They stay listed in dirty_at_start.
    code = [p for p in dirty if not p.startswith(REGENERATED)]
    sha = None if commit is None else commit + ("-dirty" if code else "")
    return {"git_sha": sha, "commit": commit, "dirty_at_start": dirty, "changed_by_run": changed,
            "source": source}


def git_sha(root: Path | None = None) -> str | None:
    return git_state(root)["git_sha"]  # <commit> or <commit>-dirty, as git_state decides


def stamp(root: Path | None = None) -> dict:
    """A log line's provenance: ``git_sha``, and when code was uncommitted a ``provenance_note`` naming it."""
    state = git_state(root)
    code = [p for p in state["dirty_at_start"] if not p.startswith(REGENERATED)]
    return {"git_sha": state["git_sha"], **({"provenance_note": "uncommitted at this run: " + ", ".join(code)} if code else {})}


def hardware() -> dict:
    info = {"platform": platform.platform(), "python": platform.python_version(), "cpu_count": os.cpu_count(),
            "processor": platform.processor() or platform.machine()}
    try:
        import torch
    except ImportError:
        return info
    info["torch_threads"] = torch.get_num_threads()
    # the kernels torch dispatches to (AVX2, AVX512, ...): their rounding differs, so training on another
    # instruction set can give other weights from the same seed
    info["torch_cpu_capability"] = torch.backends.cpu.get_cpu_capability()
    if torch.cuda.is_available():
        info["gpu"] = torch.cuda.get_device_name(0)
    return info


def versions(packages=PACKAGES) -> dict:
    return {name: _version(name) for name in packages}


def _version(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def finite(obj, path: str, found: dict):
    """``obj`` with every non-finite float replaced by None (recorded in ``found[path] = repr``)."""
    if hasattr(obj, "item") and getattr(obj, "ndim", 0) == 0:  # numpy / torch scalars
        obj = obj.item()
    elif hasattr(obj, "tolist"):
        obj = obj.tolist()
    if isinstance(obj, float):
        if math.isfinite(obj):
            return obj
        found[path] = str(obj)
        return None
    if isinstance(obj, dict):
        return {k: finite(v, f"{path}/{k}" if path else str(k), found) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite(v, f"{path}/{i}" if path else str(i), found) for i, v in enumerate(obj)]
    return obj


def dumps_strict(obj, **kwargs) -> str:
    """``json.dumps`` refusing NaN and Infinity (``ValueError``); numpy scalars, paths, sets, tuples as JSON."""
    return json.dumps(obj, allow_nan=False, default=jsonable, **kwargs)


def write_json(path: str | Path, obj, indent: int | None = 2, **kwargs) -> Path:
    """Strict JSON (:func:`dumps_strict`) written atomically (:func:`write_atomic`)."""
    return write_atomic(path, dumps_strict(obj, indent=indent, **kwargs) + "\n")


def nulled(obj) -> tuple[object, dict]:
    """``obj`` with every non-finite number replaced by None, and ``{path: "nan"}`` of those replaced."""
    found: dict = {}
    return finite(obj, "", found), found


def append_jsonl(path: str | Path, record: dict) -> Path:
    """Append ``record`` to a JSON-lines log as one strict line (a non-finite number becomes
    ``null``, listed under ``"undefined"``), flushed and fsync'ed: a killed run loses at most the
    line it was writing, which a reader skips as unparseable; the next record starts a line of its
    own after such a cut line, so it is never swallowed by it."""
    record, found = nulled(dict(record))
    if found:
        record["undefined"] = {k: f"{v} (not a finite number)" for k, v in found.items()}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a+b") as fh:
        cut = fh.seek(0, os.SEEK_END) > 0 and (fh.seek(-1, os.SEEK_END), fh.read(1))[1] != b"\n"
        # a line cut by a kill stays a line of its own (a reader skips it), never the start of the next record
        fh.write((("\n" if cut else "") + dumps_strict(record) + "\n").encode("utf8"))
        fh.flush()
        os.fsync(fh.fileno())
    return path


def jsonable(obj):
    """JSON for what ``json`` cannot write itself: numpy/torch scalars and arrays, paths, sets, tuples."""
    if hasattr(obj, "item") and getattr(obj, "ndim", 0) == 0:
        return obj.item()
    if hasattr(obj, "tolist"):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (set, tuple)):
        return list(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def table_texts(df, markdown: Table | None = None, latex: Table | None = None) -> dict[str, str]:
    """``{"csv", "md", "tex": text}`` of a table: the frame ``df`` (None: no CSV) and the specs
    ``markdown`` and ``latex`` (default: ``df`` as it is), rendered by :func:`pearl.tabular.render`,
    the one route of every table."""
    if any(isinstance(spec, str) for spec in (markdown, latex)):
        raise TypeError("save_table takes pearl.tabular.Table specs, not text: every table goes through tabular.render")
    specs = {"csv": None if df is None else Table(df), "md": markdown or Table(df), "tex": latex or (df is not None and Table(df))}
    return {ext: render(spec, ext) + ("\n" if ext == "md" else "") for ext, spec in specs.items() if spec}


def save_table(df, name: str, markdown: Table | None = None, latex: Table | None = None, *,
               root: str | Path | None = None, write=write_atomic_all) -> list[Path]:
    """Write ``results/<name>.csv`` (the frame ``df``; None leaves the CSV alone), ``.md`` and
    ``.tex`` (:func:`table_texts`) under ``root`` (default :func:`pearl.paths.output_root`) as one
    unit: ``write`` (``{path: text}``, all or none; :func:`pearl.atomic.write_atomic_all`)."""
    return write({paths.results_dir(f"{name}.{ext}", root=root): text for ext, text in table_texts(df, markdown, latex).items()})


def figure_bytes(fig, formats=("png", "pdf")) -> dict[str, bytes]:
    """``{format: bytes}`` of ``fig``: png at 150 dpi, pdf without a creation date (the same figure
    gives the same bytes, and a re-run leaves git clean)."""
    out = {}
    for ext in formats:
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=150 if ext == "png" else None, bbox_inches="tight",
                    metadata={"CreationDate": None} if ext == "pdf" else None)
        out[ext] = buf.getvalue()
    return out


def save_figure(fig, name: str, formats=("png", "pdf"), *, root: str | Path | None = None,
                write=write_atomic_all) -> list[Path]:
    """``figures/<name>.png`` and ``.pdf`` (:func:`figure_bytes`) under ``root``, written by ``write`` as one unit."""
    return write({paths.figures_dir(f"{name}.{ext}", root=root): data for ext, data in figure_bytes(fig, formats).items()})


def read_record(path: str | Path, writer: str = "the notebook or script that writes it"):
    """A results file (a run's ``<name>.json`` record and the like) parsed; a damaged one (not JSON)
    raises ``ValueError`` naming the file, ``writer`` (what writes it: the caller knows) and the fix."""
    path = Path(path)
    try:
        return json.loads(path.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise ValueError(f"{path} is damaged: not JSON ({err}). Rerun {writer} to write it again, or restore "
                         f"the committed copy with `git checkout -- {_in_repo(path)}`") from err


def _in_repo(path: Path) -> str:
    """``path`` relative to its output root's parent folder when it is under a ``results/`` folder."""
    parts = path.parts
    return "/".join(parts[len(parts) - 1 - parts[::-1].index("results"):]) if "results" in parts else str(path)
