"""What a caller asks of pearl's writers: :class:`Guard`, passed down as ``guard=``.

Every writer of derived data, model folders, tables and figures takes a ``guard``. pearl calls
it at fixed points and knows nothing of why: :meth:`Guard.check` before any target is written
(a stage stops before its first write, not halfway through), :meth:`Guard.check_input` before a
file is read as evidence or training input, :attr:`Guard.note` merged into the metadata pearl
writes (``corpus.json``, ``augment/meta.json``, a build's ``settings.json``, a model's
``pearl.json``), :meth:`Guard.write` for files that carry no metadata of their own, and
:meth:`Guard.table` / :meth:`Guard.figure` for tables and figures. The default :data:`OPEN` checks
nothing, notes nothing and writes atomically: what a researcher importing pearl gets.

What it leaves out: any policy. The harness that runs the notebooks passes its own guard
(:class:`harness.outputs.ScaleGuard`: a tiny run never replaces a full-size output, and a
full-size run never reads a tiny one).
"""
from __future__ import annotations

import json
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

#: the corpus files whose ``corpus.json`` beside them is their metadata (:mod:`pearl.corpus.store`)
CORPUS_FILES = ("phrases.tsv", "labels.json", "corpus.json")
#: the folder of augmentation lexicons and its metadata file (:mod:`pearl.corpus.augment`)
AUGMENT = ("augment", "meta.json")
#: the folder of Wikipedia builds; each build's ``settings.json`` is its metadata (:mod:`pearl.corpus.build`)
BUILDS = ("wikipedia_builds", "settings.json")
#: a model folder's metadata file (:mod:`pearl.training.export`)
MODEL_INFO = "pearl.json"


def metadata_of(path: str | Path) -> Path | None:
    """The metadata file pearl wrote for the output at ``path``, where a :attr:`Guard.note` lands: a
    corpus file's ``corpus.json`` beside it; a file of ``augment/`` (or the folder): its ``meta.json``;
    a Wikipedia build's folder or any file in it: its ``settings.json``; a model folder: its
    ``pearl.json``. None for anything else, or when that file is absent."""
    path = Path(path)
    if path.name in CORPUS_FILES:
        found = path.parent / "corpus.json"
    elif path.name == AUGMENT[0] or path.parent.name == AUGMENT[0]:
        found = (path if path.name == AUGMENT[0] else path.parent) / AUGMENT[1]
    elif BUILDS[0] in path.parts[:-1]:
        found = Path(*path.parts[:path.parts.index(BUILDS[0]) + 2]) / BUILDS[1]
    else:
        found = path / MODEL_INFO
    return found if found.is_file() else None


def noted(path: str | Path) -> bool:
    """Whether the output at ``path`` was written under a caller's note (its :func:`metadata_of`
    holds a ``"note"``); metadata that cannot be read counts as noted, never as clean."""
    meta = metadata_of(path)
    if meta is None:
        return False
    try:
        data = json.loads(meta.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError):
        return True
    return not isinstance(data, dict) or "note" in data


class Guard:
    """The guard that asks nothing: no check, no note, plain atomic writes."""

    #: merged into the metadata pearl writes beside an output (empty, and read-only: nothing added)
    note: Mapping = MappingProxyType({})

    def check(self, targets: Iterable[str | Path]) -> None:
        """Called with every file or folder a writer is about to write, before it writes any."""

    def check_input(self, path: str | Path, fix: str) -> None:
        """Called before ``path`` is read as evidence or training input; ``fix`` says what makes a usable one."""

    def describe(self, path: str | Path) -> dict:
        """What to record about an input the caller let through (listed beside it; nothing here)."""
        return {}

    def write(self, files: dict) -> list[Path]:
        """Write ``{path: text or bytes}`` as one unit (:func:`pearl.atomic.write_atomic_all`); the paths, in order."""
        from .atomic import write_atomic_all

        return write_atomic_all({Path(p): data for p, data in files.items()})

    def table(self, df, name: str, markdown=None, latex=None, root: str | Path | None = None) -> list[Path]:
        """``results/<name>.csv``, ``.md`` and ``.tex`` (:func:`pearl.provenance.save_table`)."""
        from .provenance import save_table

        return save_table(df, name, markdown, latex, root=root, write=self.write)

    def figure(self, fig, name: str, formats=("png", "pdf"), root: str | Path | None = None) -> list[Path]:
        """``figures/<name>.<format>`` (:func:`pearl.provenance.save_figure`)."""
        from .provenance import save_figure

        return save_figure(fig, name, formats, root=root, write=self.write)


#: the default of every ``guard=``: nothing checked, nothing noted
OPEN = Guard()
