"""What each notebook of the batch read from the derived data and the models, and whether it changed.

The batch (:mod:`harness.batch`) skips a notebook that finished on the same inputs. Its code and
parameters are in its fingerprint; the files it reads under ``data/derived/`` and ``models/`` of
the output root are tracked here, with no list to keep by hand: a notebook's **inputs** are the
files there when it started that it did not write itself and that no notebook after it wrote
(what a notebook writes is its output, an input of the notebooks after it; what a later notebook
wrote in an earlier batch is not something an earlier notebook reads).

:func:`scan` keeps, for every file, its size, mtime, sha256 and the notebook that last wrote it
(``by``; None: written outside the batch, or before it kept this record). A file whose size and
mtime are those recorded keeps its recorded digest and is not read again, so a resume reads only
the files changed since, and a multi-GB file is hashed once after it is written, in blocks
(:func:`pearl.data.sha256`). :func:`changed` names a notebook's inputs whose digest is no longer
the one it read, unless a notebook after it in the batch's order has written the file since (the
batch's own later step, which a rerun of the earlier notebook would not undo).

What it leaves out: the embedding and score cache (``embeddings.sqlite``: keyed by model and
text, so what it holds never changes a result, and every notebook writes it), hidden files and
folders (atomic writes' temporary files, locks, ``.mlm-wiki.run`` checkpoints), ``models/runs/``
(training checkpoints, deleted once the model is exported), anything outside the two folders
(the raw data folder's name is in the fingerprint). A file rewritten with the same size within
the same mtime tick is not seen; a notebook killed mid-write of a file an earlier one read
reruns that earlier one (the batch cannot tell the kill's write from someone else's).
"""
from __future__ import annotations

import os
from pathlib import Path

from pearl.data import sha256

#: the folders under the output root whose files a notebook reads
ROOTS = ("data/derived", "models")
#: relative paths (or folders) not tracked: see the module's docstring
LEFT_OUT = ("models/runs", "data/derived/embeddings.sqlite")


def _tracked(rel: str) -> bool:
    if any(part.startswith(".") for part in rel.split("/")):
        return False
    return not any(rel == skip or rel.startswith(skip + "/") or rel.startswith(skip + "-") for skip in LEFT_OUT)


def files(root: Path) -> dict[str, os.stat_result]:
    """``{path relative to root: stat}`` of every tracked file under :data:`ROOTS` (links followed:
    a bundle may link one root's derived data into another)."""
    out = {}
    for top in ROOTS:
        for folder, dirs, names in os.walk(Path(root) / top, followlinks=True):
            base = Path(folder).relative_to(root).as_posix()
            dirs[:] = sorted(d for d in dirs if _tracked(f"{base}/{d}"))
            for name in names:
                rel = f"{base}/{name}"
                if _tracked(rel):
                    try:
                        out[rel] = os.stat(Path(root) / rel)
                    except FileNotFoundError:  # a dangling link, or deleted since the listing: not there
                        continue
    return out


def scan(root: Path, known: dict, writer: str | None = None) -> dict[str, dict]:
    """The tracked files now, ``{path: {"size", "mtime_ns", "sha256", "by"}}``: a file whose size
    and mtime are those ``known`` records keeps its digest unread; one whose content changed gets
    ``by=writer`` (the notebook that just ran; None: changed outside the batch); a path of
    ``known`` gone since stays, with ``sha256`` None (deleted)."""
    now = {}
    for rel, st in files(root).items():
        old = known.get(rel) or {}
        same_stat = old.get("size") == st.st_size and old.get("mtime_ns") == st.st_mtime_ns
        digest = old["sha256"] if same_stat and old.get("sha256") else sha256(Path(root) / rel)
        by = old.get("by") if digest == old.get("sha256") else writer
        now[rel] = {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": digest, "by": by}
    for rel, old in known.items():
        if rel not in now:
            now[rel] = {"size": None, "mtime_ns": None, "sha256": None,
                        "by": old.get("by") if old.get("sha256") is None else writer}
    return now


def written(before: dict, after: dict) -> set[str]:
    """The paths written between two scans: new, removed, or another size, mtime or digest."""
    keys = ("size", "mtime_ns", "sha256")
    return {rel for rel, e in after.items() if [e[k] for k in keys] != [(before.get(rel) or {}).get(k) for k in keys]}


def inputs(name: str, before: dict, after: dict, order: list[str]) -> dict[str, str]:
    """``{path: sha256}`` that notebook ``name`` read: the files of ``before`` (its start) it did
    not write (``after``: its end), leaving out those a notebook after it in ``order`` wrote."""
    later = set(_after(name, order))
    wrote = written(before, after)
    return {rel: e["sha256"] for rel, e in before.items()
            if e["sha256"] is not None and rel not in wrote and e.get("by") not in later}


def outputs(before: dict, after: dict) -> dict[str, str]:
    """``{path: sha256}`` that a notebook wrote between two scans and left there (a resume checks they
    still hold these bytes: a notebook whose models were deleted since runs again)."""
    return {rel: after[rel]["sha256"] for rel in sorted(written(before, after)) if after[rel]["sha256"] is not None}


def changed(name: str, read: dict[str, str], now: dict, order: list[str]) -> list[str]:
    """The inputs of notebook ``name`` (``read``: :func:`inputs`) whose content ``now`` (a :func:`scan`)
    differs, unless a notebook after it in ``order`` wrote them since."""
    later = set(_after(name, order))
    out = []
    for rel, digest in sorted(read.items()):
        e = now.get(rel) or {"sha256": None, "by": None}
        if e["sha256"] != digest and e.get("by") not in later:
            out.append(rel)
    return out


def gone(name: str, wrote: dict[str, str], now: dict, order: list[str]) -> list[str]:
    """The outputs of notebook ``name`` (``wrote``: :func:`outputs`) no longer there ``now``, unless a
    notebook after it removed them: deleted models make the notebook that trained them run again. An
    output changed since is left to its readers (:func:`changed`), as an edit made by hand is."""
    return [rel for rel in changed(name, wrote, now, order) if (now.get(rel) or {}).get("sha256") is None]


def _after(name: str, order: list[str]) -> list[str]:
    return order[order.index(name) + 1:] if name in order else []
