"""Atomic writes: readers see the old file or the new one, never a part, and nothing is left behind.

:func:`write_atomic` writes a temporary file ``.<name>.<pid>.<random>.tmp`` in the target's
folder, flushed and fsync'ed, then renames it over the target. A process killed mid-write leaves
its temporary file; the next write of the same target (or :func:`remove_debris` over a folder,
which a run may do over its results and figures folders) deletes those whose process is
gone, never one another live process is still writing. Files get the mode a plain ``open()``
would give them, ``0666`` less the umask (``0644`` under the usual ``022``), not ``mkstemp``'s
``0600``. :func:`write_atomic_all` writes several files as one unit (a table's ``.csv``, ``.md``
and ``.tex``): all are written to temporary files before any is renamed.

A folder written as a whole (a model export, :mod:`pearl.training.export`) is written into a
sibling staging folder (:func:`staging_folder`, ``.<name>.<pid>.staging``) and put in place by
:func:`swap_folder`: one ``rename`` when nothing is there, else Linux's ``renameat2`` exchange of the
two folders in one step, so a reader or a kill sees the old folder or the new one. Where the file
system cannot exchange, the old folder is renamed aside first (``.<name>.<pid>.old``) and put back
by the next :func:`staging_folder` of the same target if a kill came between the two renames.

What it leaves out: file systems shared between machines, where a process id says nothing about
another machine's writers.
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


_FOLDER_DEBRIS = re.compile(r"^\.(?P<name>.+)\.(?P<pid>\d+)\.(?P<kind>staging|old)$")


def staging_folder(target: str | Path) -> Path:
    """An empty sibling folder to write ``target``'s new contents into, before :func:`swap_folder`.
    First the debris of killed writers of the same target is cleared: a staging folder of a gone
    process is deleted, and an old folder set aside by one is put back when ``target`` is missing."""
    import shutil

    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    for path in sorted(target.parent.glob(f".{target.name}.*")):
        m = _FOLDER_DEBRIS.match(path.name)
        if m is None or m["name"] != target.name or (int(m["pid"]) != os.getpid() and _alive(int(m["pid"]))):
            continue  # not this target's, or a live writer's
        if m["kind"] == "old" and not target.exists():
            os.rename(path, target)  # a kill between swap_folder's two renames: the old folder comes back
        else:
            shutil.rmtree(path, ignore_errors=True)
    staged = target.parent / f".{target.name}.{os.getpid()}.staging"
    staged.mkdir()
    return staged


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths in one step (Linux ``renameat2(RENAME_EXCHANGE)``); False where the system cannot."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (22, 38, 95):  # EINVAL, ENOSYS, EOPNOTSUPP: this file system or kernel cannot exchange
        return False
    raise OSError(err, os.strerror(err), str(b))


def swap_folder(staged: str | Path, target: str | Path) -> Path:
    """Put the complete folder ``staged`` (from :func:`staging_folder`) in ``target``'s place, so
    that ``target`` is always the old folder or the new one (see the module docstring); the old
    one is deleted afterwards. Returns ``target``."""
    import shutil

    staged, target = Path(staged), Path(target)
    if not target.exists():
        os.rename(staged, target)
        return target
    if not _exchange(staged, target):
        aside = target.parent / f".{target.name}.{os.getpid()}.old"
        os.rename(target, aside)
        try:
            os.rename(staged, target)
        except BaseException:
            os.rename(aside, target)
            raise
        staged = aside
    shutil.rmtree(staged, ignore_errors=True)  # now the old folder
    return target


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
