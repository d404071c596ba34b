"""Every path the project uses, in one place (cookiecutter-data-science style).

Raw data is immutable and lives outside the repository; everything we derive from it
(phrase corpora, synonym tables, trained models) goes under ``data/derived`` or ``models``;
what the paper reports goes under ``results`` and ``figures``.

Nothing here touches the disk at import time: the functions resolve paths when called.

>>> results_dir().name
'results'
"""
from __future__ import annotations

import os
from pathlib import Path

#: the repository root (lib/pearl/paths.py -> ../..)
ROOT = Path(__file__).resolve().parents[2]

#: the environment variable that names the offline data folder
DATA_ENV = "PEARL_DATA"
#: set (to "1") while a SMOKE run is under way; worker processes inherit it
SMOKE_ENV = "PEARL_SMOKE"
#: where a SMOKE run writes when no scratch ``$PEARL_OUTPUT`` is set (ignored by git)
SMOKE_ROOT = "smoke-output"
#: set (to "1") by ``make rehearse``: a SMOKE run that keeps the training profiles it names
#: (:data:`REHEARSED`) instead of turning them into ``"smoke"``, so the ``gpu`` profile's branches run at tiny size
REHEARSAL_ENV = "PEARL_REHEARSAL"
#: the training profiles a rehearsal keeps (their tiny sizes: :data:`pearl.training.profiles.REHEARSAL`)
REHEARSED = ("gpu",)


def raw_data_dir() -> Path | None:
    """The folder holding the raw data sets, or None when only downloading can give them.

    Order: ``$PEARL_DATA``; ``../shared/data`` beside the checkout when it exists.
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
    shared = ROOT.parent / "shared" / "data"
    return shared.resolve() if shared.is_dir() else None


def cache_dir() -> Path:
    """Where downloads go when no raw data folder exists (``$PEARL_CACHE`` overrides)."""
    return Path(os.environ.get("PEARL_CACHE", ROOT / ".cache" / "pearl")).expanduser()


def output_root() -> Path:
    """Root of everything a run writes: the repository, or ``$PEARL_OUTPUT``.

    A SMOKE run (:func:`smoke`) never writes into the repository's ``results/``, ``figures/``,
    ``data/derived/`` or ``models/``: unless ``$PEARL_OUTPUT`` names another folder, its root is
    ``smoke-output/`` in the repository (ignored by git). Tests set ``PEARL_OUTPUT`` to a scratch folder.
    A relative ``$PEARL_OUTPUT`` is taken relative to the repository root, not to the working
    folder (a notebook kernel's is ``notebooks/``), so every process finds the same root.
    """
    env = os.environ.get("PEARL_OUTPUT")
    root = ROOT if not env else (ROOT / Path(env).expanduser()).resolve()
    return ROOT / SMOKE_ROOT if smoke() and root == ROOT else root


def smoke() -> bool:
    """Whether this process runs at SMOKE size (``$PEARL_SMOKE`` set by :func:`set_smoke`)."""
    return os.environ.get(SMOKE_ENV, "") not in ("", "0")


def set_smoke(on: bool) -> None:
    """Mark this process (and the workers it starts) as a SMOKE run, or not. Every notebook's
    parameter check calls it with its ``SMOKE`` (:func:`pearl.params.check_params`)."""
    if on:
        os.environ[SMOKE_ENV] = "1"
    else:
        os.environ.pop(SMOKE_ENV, None)


def rehearsal() -> bool:
    """Whether this process is part of a dress rehearsal (``$PEARL_REHEARSAL``, set by ``make
    rehearse``): a SMOKE run (tiny sizes, scratch output root) in which the ``gpu`` profile keeps
    its name and code paths (:func:`scaled`). Outside a SMOKE run it means nothing."""
    return smoke() and os.environ.get(REHEARSAL_ENV, "") not in ("", "0")


def scaled(value: str) -> str:
    """The scale this run works at: ``"smoke"`` in a SMOKE run (:func:`smoke`), else ``value``;
    in a rehearsal (:func:`rehearsal`) a profile of :data:`REHEARSED` stays itself.

    One notion of scale: a notebook's ``SMOKE`` parameter is the one switch. Its parameter check
    marks the process (:func:`set_smoke`); every task size (``"full"``, ``"sweep"``) and training
    profile (``"cpu"``, ``"gpu"``) it picks goes through here, and every writer reads the same mark
    (tests/test_provenance.py checks both scales).
    """
    if rehearsal() and value in REHEARSED:
        return value
    return "smoke" if smoke() else value


def smoke_subset(values, n: int = 2) -> list:
    """``values`` whole, or their first ``n`` in a SMOKE run (seeds, recipes, backbones: two by
    default, so that a mean ± std and a t-test still run at smoke size)."""
    return list(values)[:n] if smoke() else list(values)


def rehearsal_or(smoke_value, rehearsal_value):
    """``rehearsal_value`` in a rehearsal (:func:`rehearsal`), else ``smoke_value``: a SMOKE size that
    a rehearsal replaces by the gpu profile's own (``paths.smoke_or(MAX_PHRASES, paths.rehearsal_or(300, 0))``:
    the whole tiny corpus, as the gpu profile takes every phrase)."""
    return rehearsal_value if rehearsal() else smoke_value


def smoke_seeds(seeds, n: int = 2) -> list:
    """The training seeds notebook 03 runs: :func:`smoke_subset`, except that a rehearsal keeps at
    least three, so that Table 1 scores the ``gpu`` profile's three seeds (the other notebooks'
    seeds are not the profile's: a rehearsal runs two of them, as a SMOKE run does).

    >>> smoke_seeds([0, 1, 2, 3, 4], 1)
    [0, 1, 2, 3, 4]
    """
    return list(seeds)[:max(n, 3)] if rehearsal() else smoke_subset(seeds, n)


def smoke_or(value, smoke_value):
    """``smoke_value`` in a SMOKE run (:func:`smoke`), else ``value``: a notebook's smaller
    setting at smoke size (``MAX_PHRASES = paths.smoke_or(MAX_PHRASES, 300)``), without an ``if``."""
    return smoke_value if smoke() else value


def derived_dir(*parts: str) -> Path:
    """Derived data (phrase corpora, augmentation tables, hard negatives)."""
    return _made(output_root() / "data" / "derived", *parts)


def models_dir(*parts: str) -> Path:
    """Trained models and checkpoints."""
    return _made(output_root() / "models", *parts)


def results_dir(*parts: str) -> Path:
    """Tables (``tableN.csv/md``) and per-notebook JSON results."""
    return _made(output_root() / "results", *parts)


def figures_dir(*parts: str) -> Path:
    """Figures (``figureN.png/pdf``)."""
    return _made(output_root() / "figures", *parts)


class UnsafeName(ValueError):
    """A name for a file or folder that would leave the folder it belongs in."""


def safe_name(value: str, what: str = "name") -> str:
    """``value`` when it can name one file or folder: not empty, no path separator, not ``.`` or
    ``..``, no NUL; else :class:`UnsafeName` naming ``what`` (a parameter, a model name) and the fix.

    >>> safe_name("no-char-encoder")
    'no-char-encoder'
    >>> safe_name("../x", "VARIANT")
    Traceback (most recent call last):
    ...
    pearl.paths.UnsafeName: VARIANT '../x' cannot name a folder: it holds a path separator or '..'; use letters, digits, '-', '_' and '.' only
    """
    text = str(value)
    if not text or text in (".", "..") or ".." in text or any(c in text for c in ("/", "\\", "\0", os.sep)):
        raise UnsafeName(f"{what} {text!r} cannot name a folder: it holds a path separator or '..'; "
                         "use letters, digits, '-', '_' and '.' only")
    return text


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
