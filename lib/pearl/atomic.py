"""Atomic writes: readers see the old file or the new one, never a part, and nothing is left behind.

:func:`write_atomic` writes a temporary file ``.<name>.<pid>.<random>.tmp`` in the target's
folder, flushed and fsync'ed, then renames it over the target. A process killed mid-write leaves
its temporary file; the next write of the same target (or :func:`remove_debris` over a folder,
which every notebook run does for ``results/`` and ``figures/``) deletes those whose process is
gone, never one another live process is still writing. Files get the mode a plain ``open()``
would give them, ``0666`` less the umask (``0644`` under the usual ``022``), not ``mkstemp``'s
``0600``. :func:`write_atomic_all` writes several files as one unit (a table's ``.csv``, ``.md``
and ``.tex``): all are written to temporary files before any is renamed.

What it leaves out: folders written as a whole (a model export writes file by file; see
:mod:`pearl.training.export`), and file systems shared between machines, where a process id
says nothing about another machine's writers.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

_TEMP = re.compile(r"^\.(?P<name>.+?)\.(?:(?P<pid>\d+)\.)?[^.]+\.tmp$")


def umask() -> int:
    """The process's umask, read without changing it (Linux ``/proc``), else by the set-and-restore dance."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's live process
        return True
    return True


def remove_debris(folder: str | os.PathLike, name: str | None = None) -> list[Path]:
    """Delete the temporary files that killed writes left in ``folder`` (those of target ``name``
    only, when given): files named as :func:`write_atomic` names them whose process is gone
    (or, written before the names carried a process id, any). Returns what it deleted."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    gone = []
    for path in folder.glob(f".{name}.*.tmp" if name else ".*.tmp"):
        m = _TEMP.match(path.name)
        if m is None or (name is not None and m["name"] != name):
            continue
        if m["pid"] is None or (int(m["pid"]) != os.getpid() and not _alive(int(m["pid"]))):
            path.unlink(missing_ok=True)
            gone.append(path)
    return gone


def write_atomic(path: str | Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` so that readers see the old file or the new one, never a part
    (see the module docstring: temporary file, fsync, rename; debris of killed writes removed)."""
    return write_atomic_all({path: data})[0]


def write_atomic_all(files: dict) -> list[Path]:
    """Write several files as one unit (``{path: data}``): every one is written to its temporary
    file first, and only when all are written are they renamed over their targets, so a failure
    while writing any of them leaves every target as it was. Returns the paths, in order.
    (A crash between two renames, which do no I/O of their own, can still leave some renamed.)"""
    staged: list[tuple[str, Path]] = []
    try:
        for path, data in files.items():
            path = Path(path)
            path.parent.mkdir(parents=True, exist_ok=True)
            remove_debris(path.parent, path.name)
            staged.append((_stage(path, data.encode("utf8") if isinstance(data, str) else data), path))
        for tmp, path in staged:
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            Path(tmp).unlink(missing_ok=True)
        raise
    return [path for _, path in staged]


def _stage(path: Path, raw: bytes) -> str:
    """``raw`` in a temporary file beside ``path``, flushed and fsync'ed; its name (removed on failure)."""
    import tempfile

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp
