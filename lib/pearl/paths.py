"""Every path the project uses, in one place (cookiecutter-data-science style).

Raw data is immutable and lives outside the repository; everything we derive from it
(phrase corpora, synonym tables, trained models) goes under ``data/derived`` or ``models``;
what the paper reports goes under ``results`` and ``figures``.

Nothing here writes at import time (one look finds whether this is a checkout): the functions
resolve paths when called.

Where outputs go: in this repository's checkout (an editable install, or ``PYTHONPATH=lib``) the
checkout's root, as the notebooks expect; from an installed wheel the working folder; ``$PEARL_OUTPUT``
overrides both. Nothing is ever derived from an installed package's location (beside
``site-packages`` is no place for a researcher's models).

>>> results_dir().name
'results'
"""
from __future__ import annotations

import os
import re
from pathlib import Path


def checkout(module: Path) -> Path | None:
    """The repository checkout holding ``module`` (``<checkout>/lib/pearl/paths.py``: a
    ``pyproject.toml`` above ``lib/``), or None for an installed wheel (``site-packages/pearl/paths.py``).

    >>> checkout(Path("/venv/lib/python3.11/site-packages/pearl/paths.py")) is None
    True
    """
    top = module.parents[2]
    return top if module.parents[1].name == "lib" and (top / "pyproject.toml").is_file() else None


#: the repository checkout this module lies in, or None when pearl runs from an installed wheel
CHECKOUT = checkout(Path(__file__).resolve())
#: the repository root in a checkout (lib/pearl/paths.py -> ../..); from an installed wheel the
#: working folder at import (:func:`base` follows the working folder when it changes). In a checkout
#: every path below is read from ROOT at call time, so a test that points ROOT at a scratch folder
#: moves the outputs, the cache and the ``../shared/data`` lookup with it
ROOT = CHECKOUT if CHECKOUT is not None else Path.cwd()

#: the environment variable that names the offline data folder
DATA_ENV = "PEARL_DATA"
#: the environment variable naming the default output root (read here, never written: the caller
#: that decides a root passes it down as ``root=``, or sets the variable before pearl runs)
OUTPUT_ENV = "PEARL_OUTPUT"


def raw_data_dir() -> Path | None:
    """The folder holding the raw data sets, or None when only downloading can give them.

    Order: ``$PEARL_DATA``; ``../shared/data`` beside the checkout when it exists (a checkout
    only: an installed wheel never looks beside ``site-packages``).
    """
    env = os.environ.get(DATA_ENV)
    if env:
        path = Path(env).expanduser()
        if not path.is_dir():
            raise FileNotFoundError(
                f"${DATA_ENV}={env} is not a folder. Point it at the data folder "
                f"(the one holding pearl_benchmark/) or unset it to download the data."
            )
        return path.resolve()
    if CHECKOUT is None:
        return None
    shared = ROOT.parent / "shared" / "data"
    return shared.resolve() if shared.is_dir() else None


def base() -> Path:
    """What the default output root and relative roots start from: the checkout's root, or, from an
    installed wheel, the working folder (now, not at import)."""
    return ROOT if CHECKOUT is not None else Path.cwd()


def cache_dir() -> Path:
    """Where downloads go when no raw data folder exists (``$PEARL_CACHE`` overrides): the
    checkout's ``.cache/pearl``; from an installed wheel, ``.cache/pearl`` under :func:`output_root`."""
    env = os.environ.get("PEARL_CACHE")
    if env:
        return Path(env).expanduser()
    return (ROOT if CHECKOUT is not None else output_root()) / ".cache" / "pearl"


def output_root() -> Path:
    """The default root of everything a run writes, when the caller passes no ``root``:
    ``$PEARL_OUTPUT``, else :func:`base` (the repository in a checkout, the working folder from an
    installed wheel).

    Nothing in pearl sets the variable: a researcher sets it, or the harness sets it once at a
    notebook's start, before anything runs. Tests set ``PEARL_OUTPUT`` to a scratch folder. A
    relative ``$PEARL_OUTPUT`` is taken relative to :func:`base`: in a checkout the repository root,
    not the working folder (a notebook kernel's is the notebook's folder), so every process finds the same root.
    """
    env = os.environ.get(OUTPUT_ENV)
    return base() if not env else usable((base() / Path(env).expanduser()).resolve(), env)


def usable(root: Path, said: str | Path) -> Path:
    """``root`` when a run can write under it: a folder, or none yet under a folder it may write in;
    else ``NotADirectoryError`` or ``PermissionError`` naming ``$PEARL_OUTPUT`` (set to ``said``) and the fix."""
    found = next(p for p in (root, *root.parents) if p.exists())  # the root itself, or the nearest folder above
    if not found.is_dir():
        problem, error = (("is a file, not a folder" if found == root else f"lies under {found}, which is a file"),
                          NotADirectoryError)
    elif not os.access(found, os.W_OK | os.X_OK):
        problem, error = f"cannot be written: {found} is not writable by this user", PermissionError
    else:
        return root
    raise error(f"${OUTPUT_ENV}={said} ({root}) {problem}. Point ${OUTPUT_ENV} at a folder you can write (it is "
                "created when absent), or unset it to write into "
                + ("the repository" if CHECKOUT is not None else "the working folder"))


def _root(root: str | Path | None) -> Path:
    """``root`` as given (relative to :func:`base`: the repository root in a checkout), or :func:`output_root`."""
    return output_root() if root is None else (base() / Path(root).expanduser()).resolve()


def derived_dir(*parts: str, root: str | Path | None = None) -> Path:
    """Derived data (phrase corpora, augmentation lexicons, hard negatives) under ``root``
    (default :func:`output_root`; so for every folder below)."""
    return _made(_root(root) / "data" / "derived", *parts)


def models_dir(*parts: str, root: str | Path | None = None) -> Path:
    """Trained models and checkpoints."""
    return _made(_root(root) / "models", *parts)


def results_dir(*parts: str, root: str | Path | None = None) -> Path:
    """Tables (``tableN.csv/md``) and per-notebook JSON results."""
    return _made(_root(root) / "results", *parts)


def figures_dir(*parts: str, root: str | Path | None = None) -> Path:
    """Figures (``figureN.png/pdf``)."""
    return _made(_root(root) / "figures", *parts)


class UnsafeName(ValueError):
    """A name for a file or folder that would leave the folder it belongs in."""


#: what a file or folder name built from a parameter may hold (:func:`safe_name`), and how long it may be
NAME = re.compile(r"[A-Za-z0-9._-]+")
MAX_NAME = 100


def safe_name(value: str, what: str = "name") -> str:
    """``value`` when it can name one file or folder: ASCII letters, digits, ``-``, ``_`` and ``.``
    only, not ``.``, not holding ``..``; else :class:`UnsafeName` naming ``what`` (a parameter, a
    model name), what is wrong and the fix. The message promises what the check accepts, no more.

    >>> safe_name("no-char-encoder")
    'no-char-encoder'
    >>> safe_name("../x", "VARIANT")
    Traceback (most recent call last):
    ...
    pearl.paths.UnsafeName: VARIANT '../x' cannot name a folder: it holds '..' and '/'; use ASCII letters, digits, \
'-', '_' and '.' only (not '.' alone, no '..'), at most 100 characters
    """
    text = str(value)
    if NAME.fullmatch(text) and text != "." and ".." not in text and len(text) <= MAX_NAME:
        return text
    found = ["'..'"] * (".." in text) + [repr(c) for c in sorted(set(NAME.sub("", text)))]
    problem = ("it is empty" if not text else "it is '.'" if text == "." else f"it holds {' and '.join(found)}" if found
               else f"it is {len(text)} characters long")  # a folder name and its staging copy's must fit the file system's 255 bytes
    shown = repr(text) if len(text) <= 60 else repr(text[:60]) + "..."
    raise UnsafeName(f"{what} {shown} cannot name a folder: {problem}; use ASCII letters, digits, '-', '_' and "
                     f"'.' only (not '.' alone, no '..'), at most {MAX_NAME} characters")


def under(base: Path, path: Path) -> Path:
    """``path`` when it stays inside ``base`` once its ``..`` parts are collapsed, else
    :class:`UnsafeName` naming both: no name built from a parameter lands outside its root.
    Links are not followed: a link someone placed inside the root (the GPU bundle links the
    derived data of one output root into another) is where they chose to write."""
    if not Path(os.path.normpath(path)).is_relative_to(Path(os.path.normpath(base))):
        raise UnsafeName(f"{path} leaves its output folder {base}: a name built from a parameter holds '..' "
                         "or a path separator; use a plain name")
    return Path(path)


def _made(base: Path, *parts: str) -> Path:
    """``base/parts``, checked to stay under ``base`` (:func:`under`); the folder part is created
    on first use, never at import."""
    path = under(base, base.joinpath(*parts))
    folder = path if not path.suffix else path.parent
    folder.mkdir(parents=True, exist_ok=True)
    return path
