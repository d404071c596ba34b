"""A run's batches drawn once into arrays, then every step gathered by index: the trainer fed from tensors.

Today's :class:`pearl.training.batches.Collator` does, at every step and for every phrase, the
Python work of a batch: augment, draw hard negatives, tokenise, build byte ids. Here that work is
done once, before the loop, for every step of the run (:func:`draw`):

1. **draw**: each step's texts are :meth:`Collator.texts` of ``(seed, t)``, the very call the
   Collator makes, so the recipe is unchanged (per-step character edits and word swaps included)
   and the batches are the same, tensor for tensor (``tests/training/test_arrays.py`` hashes both).
   Steps are independent (a pure function of ``(seed, t)``), so they are drawn in ``workers``
   forked processes, a chunk of steps each;
2. **tokenise once**: the distinct texts of the whole run become one table (:class:`TextTable`):
   token ids padded to the longest, their lengths, UTF-8 bytes (the character encoder's ids less
   one) and their lengths, tokenised in chunks by the same workers; each step keeps only the table rows of its texts
   (``(2 + k) x batch`` int32), its labels and, for PAUSE, its labelled flags;
3. **save once**: a folder of ``.npy`` files and a ``manifest.json`` holding the key of everything
   that decides them (the inputs' digest, the tokenizer, the config's drawing fields, the steps)
   and each file's sha256; written into a temporary sibling and renamed into place whole, read
   back memory-mapped after the checksums verify. A folder of another key is refused, naming it.

A step's batch (:meth:`StepArrays.batch`) is then a gather: rows of the step, the table's rows,
trimmed to the step's longest text; no Python loop over phrases. The batch dict is the Collator's
(``step``, ``n``, ``inputs``, ``labels``, ``labelled``), so :func:`pearl.training.train.train` and
resume are unchanged: the "sampler state" is still the step.

Shapes: with ``pad_multiple`` > 1 the widths are rounded up to a multiple (8 on a GPU), so a run
sees a few shapes only (the padding is masked: the same vectors up to float rounding); 1 keeps the
Collator's exact widths. With ``buckets`` > 1 the batch also carries the model's length buckets
(``bucket_order``, ``bucket_widths``) computed from the host-side lengths, so the model need not
read the lengths back from the device.

What it leaves out: the draws themselves (the Collator's), the order of phrases (:class:`BatchPlan`),
data parallel shards other than the Collator's rule (rank ``r`` of ``world`` keeps the contiguous
slice ``r``), the gather on the device (it runs on the host, a millisecond for a step of 512 phrases,
and the batch moves from pinned memory without a wait), and cost: the drawing still does the Python
work once per phrase-view, spread over processes and out of the training loop
(``perf/batch_builder.py`` times both parts).
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np
import torch

from ..atomic import staging_folder, swap_folder
from ..data import sha256
from ..provenance import write_json
from ..workers import forked_map, shared
from .batches import BatchPlan, Collator

#: the character encoder's byte window (pearl.training.char_encoder.char_ids' max_chars)
MAX_CHARS = 48
#: the table's and the steps' files, in the order they are written
FILES = ("ids", "lengths", "chars", "char_lengths", "rows", "labels", "labelled")
MANIFEST = "manifest.json"
#: distinct texts a worker tokenises at a time
TOKENISE_CHUNK = 1 << 16
#: bump when the layout of the files changes: a folder of another version is rebuilt, not misread
VERSION = 1


@dataclass
class TextTable:
    """Distinct texts tokenised once: ``ids`` (n, width) padded with ``pad_id``, ``lengths`` (n,),
    ``chars`` (n, <= 48) UTF-8 bytes padded with 0, ``char_lengths`` (n,); ``token_types``: whether
    the tokenizer returns ``token_type_ids`` (all 0 for one text)."""

    ids: np.ndarray
    lengths: np.ndarray
    chars: np.ndarray
    char_lengths: np.ndarray
    pad_id: int
    token_types: bool


def tokenise(tokenizer, texts: Sequence[str], max_length: int, chunk: int = 4096) -> TextTable:
    """The :class:`TextTable` of ``texts`` as the Collator tokenises them (``truncation``,
    ``max_length``; an empty text's bytes are one space, as :func:`pearl.training.char_encoder.char_ids`)."""
    if tokenizer.padding_side != "right":
        raise ValueError(f"the tokenizer pads on the {tokenizer.padding_side}: the arrays assume right padding "
                         "(set tokenizer.padding_side = 'right')")
    n = len(texts)
    ids = np.full((n, max_length), tokenizer.pad_token_id, dtype=np.int32)
    lengths = np.zeros(n, dtype=np.int16)
    token_types = False
    for lo in range(0, n, chunk):
        part = tokenizer(list(texts[lo:lo + chunk]), padding=True, truncation=True, max_length=max_length,
                         return_tensors="np")
        token_types = token_types or "token_type_ids" in part
        if "token_type_ids" in part and part["token_type_ids"].any():
            raise ValueError("the tokenizer gives one text nonzero token_type_ids: the arrays store none")
        width = part["input_ids"].shape[1]
        ids[lo:lo + len(part["input_ids"]), :width] = part["input_ids"]
        lengths[lo:lo + len(part["input_ids"])] = part["attention_mask"].sum(1)
    width = int(lengths.max()) if n else 1
    encoded = [t.encode("utf-8")[:MAX_CHARS] or b" " for t in texts]
    char_lengths = np.fromiter((len(b) for b in encoded), dtype=np.uint8, count=n)
    chars = np.zeros((n, int(char_lengths.max()) if n else 1), dtype=np.uint8)
    flat = np.frombuffer(b"".join(encoded), dtype=np.uint8)
    cols = np.arange(chars.shape[1])
    chars[cols[None, :] < char_lengths[:, None]] = flat  # row-major order matches the joined bytes
    return TextTable(np.ascontiguousarray(ids[:, :width]), lengths, chars, char_lengths,
                     int(tokenizer.pad_token_id), token_types)


def tokenizer_identity(tokenizer) -> dict:
    """What decides a tokenizer's ids, for the key: its class, name, vocabulary size, special ids and
    a probe's ids (a tokenizer of another vocabulary gives other ids)."""
    probe = tokenizer("New York Times, état 1984 naïve", truncation=True, max_length=32)["input_ids"]
    return {"class": type(tokenizer).__name__, "name": getattr(tokenizer, "name_or_path", ""), "vocab": len(tokenizer),
            "pad": tokenizer.pad_token_id, "probe": list(map(int, probe))}


# ---------------------------------------------------------------------------------------- drawing
def _draw_chunk(bounds: tuple[int, int]) -> tuple[list[list[str]], list[list[int]]]:
    collator, plan = shared()
    texts, labels = [], []
    for step in range(*bounds):
        originals, augmented, negatives, step_labels = collator.texts(step, plan.indices(step))
        texts.append([*originals, *augmented, *negatives])
        labels.append(step_labels)
    return texts, labels


def _tokenise_chunk(texts: list[str]) -> TextTable:
    tokenizer, max_length = shared()
    return tokenise(tokenizer, texts, max_length)


def _concat(tables: list[TextTable]) -> TextTable:
    """One table of ``tables`` in order, padded to the widest."""
    def stack(parts, fill, dtype):
        out = np.full((sum(len(p) for p in parts), max(p.shape[1] for p in parts)), fill, dtype=dtype)
        at = 0
        for p in parts:
            out[at:at + len(p), : p.shape[1]] = p
            at += len(p)
        return out

    first = tables[0]
    return TextTable(stack([t.ids for t in tables], first.pad_id, np.int32), np.concatenate([t.lengths for t in tables]),
                     stack([t.chars for t in tables], 0, np.uint8), np.concatenate([t.char_lengths for t in tables]),
                     first.pad_id, any(t.token_types for t in tables))


def draw(collator: Collator, plan: BatchPlan, steps: int, workers: int = 0, chunk: int = 64) -> dict[str, np.ndarray]:
    """Steps ``0 .. steps-1`` of ``plan`` drawn by ``collator`` (the global batch, before any shard)
    into arrays: the :class:`TextTable` of their distinct texts, each step's table ``rows``, its
    ``labels`` and (PAUSE) ``labelled`` flags. ``workers`` > 1 draws chunks of ``chunk`` steps, then
    tokenises chunks of the distinct texts, in forked processes (the same arrays as one process)."""
    parts = forked_map(_draw_chunk, [(lo, min(lo + chunk, steps)) for lo in range(0, steps, chunk)], workers,
                       (collator, plan))
    texts, labels = [t for p in parts for t in p[0]], [lab for p in parts for lab in p[1]]
    index: dict[str, int] = {}
    rows = np.array([[index.setdefault(t, len(index)) for t in step] for step in texts], dtype=np.int32)
    distinct, size = list(index), TOKENISE_CHUNK
    table = _concat(forked_map(_tokenise_chunk, [distinct[lo:lo + size] for lo in range(0, len(distinct), size)] or [[]],
                               workers, (collator.tokenizer, collator.max_length)))
    out = {"ids": table.ids, "lengths": table.lengths, "chars": table.chars, "char_lengths": table.char_lengths,
           "rows": rows.reshape(steps, -1), "labels": np.array(labels, dtype=np.int16).reshape(steps, -1)}
    if collator.labelled is not None:
        flags = np.asarray(collator.labelled, dtype=bool)
        out["labelled"] = np.stack([flags[plan.indices(s)] for s in range(steps)]) if steps else np.zeros((0, 0), bool)
    out["meta"] = {"pad_id": table.pad_id, "token_types": table.token_types, "k": collator.k,
                   "anchors": len(labels[0]) if labels else 0, "texts": len(index)}
    return out


# ---------------------------------------------------------------------------------------- saving
def key_of(parts: dict) -> str:
    """sha256 of ``parts`` (JSON, keys sorted): the key a folder of arrays is saved under."""
    return hashlib.sha256(json.dumps({"version": VERSION, **parts}, sort_keys=True, default=list).encode()).hexdigest()


def save(arrays: dict, folder: str | Path, key: str) -> Path:
    """Write ``arrays`` (:func:`draw`'s) into ``folder`` as a whole: a staging sibling holding every
    ``.npy`` file and the manifest (the key, the meta, each file's sha256), swapped into place last
    (:func:`pearl.atomic.staging_folder`, :func:`pearl.atomic.swap_folder`, as a model export is).
    An existing ``folder`` is replaced only after the new one is complete."""
    folder = Path(folder)
    staged = staging_folder(folder)
    try:
        digests = {}
        for name in FILES:
            if name in arrays:
                path = staged / f"{name}.npy"
                np.save(path, arrays[name])  # inside the staging folder: atomic as the folder is
                _fsync(path)
                digests[name] = sha256(path)
        write_json(staged / MANIFEST, {"key": key, "version": VERSION, "meta": arrays["meta"], "sha256": digests},
                   indent=1, sort_keys=True)
    except BaseException:
        shutil.rmtree(staged, ignore_errors=True)
        raise
    return swap_folder(staged, folder)


def _fsync(path: Path) -> None:
    """Flush ``path``'s data to disk before the folder is swapped in (a crash then finds it whole)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class ArraysError(ValueError):
    """A folder of arrays that is damaged or was drawn for another run."""


def load(folder: str | Path, key: str | None = None, verify: bool = True) -> dict:
    """The arrays of ``folder`` memory-mapped, after checking its manifest's ``key`` (when given) and,
    with ``verify``, every file's sha256; an :class:`ArraysError` naming the folder and the fix otherwise."""
    folder = Path(folder)
    fix = f"delete {folder} (the next run draws it again)"
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError) as err:
        raise ArraysError(f"{folder / MANIFEST} is missing or unreadable ({err}): {fix}") from err
    if manifest.get("version") != VERSION or (key is not None and manifest.get("key") != key):
        raise ArraysError(f"{folder} was drawn for another run (its key or layout differs): {fix}")
    out = {"meta": manifest["meta"]}
    for name, digest in manifest["sha256"].items():
        path = folder / f"{name}.npy"
        if verify and (not path.is_file() or sha256(path) != digest):
            raise ArraysError(f"{path} does not match its sha256 in {folder / MANIFEST}: {fix}")
        out[name] = np.load(path, mmap_mode="r")
    return out


def prepare(collator: Collator, plan: BatchPlan, steps: int, folder: str | Path | None, key_parts: dict,
            workers: int = 0) -> dict:
    """The arrays of the run's ``steps``: loaded from ``folder`` when it holds them under this run's key
    (``key_parts``, with the tokenizer's identity and step 0's texts added, so that another augmenter or
    tokenizer never reuses them), else drawn (:func:`draw`) and, with a ``folder``, saved there."""
    first = collator.texts(0, plan.indices(0))
    probe = hashlib.sha256(json.dumps(first, default=list).encode()).hexdigest()
    key = key_of({**key_parts, "steps": steps, "tokenizer": tokenizer_identity(collator.tokenizer), "step0": probe,
                  "max_length": collator.max_length, "k": collator.k, "seed": collator.seed})
    if folder is not None and (Path(folder) / MANIFEST).is_file():
        try:
            return load(folder, key)
        except ArraysError as err:
            import warnings

            warnings.warn(f"{err}; drawing them again", stacklevel=2)
    arrays = draw(collator, plan, steps, workers)
    if folder is None:
        return arrays
    save(arrays, folder, key)
    return load(folder, key, verify=False)  # memory-mapped: the run holds pages, not copies


# ---------------------------------------------------------------------------------------- batches
class StepArrays:
    """Every step's batch gathered from :func:`draw`'s arrays: the Collator's batch dict, for rank
    ``rank`` of ``world``; ``use_char`` adds the byte ids; widths rounded up to ``pad_multiple``."""

    def __init__(self, arrays: dict, use_char: bool = True, rank: int = 0, world: int = 1, pad_multiple: int = 1,
                 buckets: int = 1):
        meta = arrays["meta"]
        self.a, self.k, self.b = arrays, int(meta["k"]), int(meta["anchors"])
        self.pad_id, self.token_types = int(meta["pad_id"]), bool(meta["token_types"])
        self.use_char, self.rank, self.world, self.pad_multiple = use_char, rank, world, pad_multiple
        self.buckets = buckets
        self.steps = len(arrays["rows"])
        self.texts_per_step = arrays["rows"].shape[1] if self.steps else 0
        if self.b % world:
            raise ValueError(f"batch of {self.b} does not split over {world} processes")
        # the reference batch layout's rows carry their copies and no extra negatives
        self.negatives = self.texts_per_step - 2 * self.b

    def _width(self, w: int) -> int:
        return -(-max(w, 1) // self.pad_multiple) * self.pad_multiple

    def rows(self, step: int) -> np.ndarray:
        """The table rows of this rank's texts at ``step``: originals, copies, negatives (the Collator's order)."""
        all_rows = np.asarray(self.a["rows"][step])
        b, k = self.b // self.world, (self.negatives // self.b if self.b else 0)
        lo, hi = self.rank * b, (self.rank + 1) * b
        return np.concatenate([all_rows[lo:hi], all_rows[self.b + lo:self.b + hi],
                               all_rows[2 * self.b + lo * k:2 * self.b + hi * k]])

    def tensors(self, rows: np.ndarray) -> dict:
        """The model's inputs for table ``rows``: what the tokenizer and ``char_ids`` give for their texts."""
        lengths = np.asarray(self.a["lengths"])[rows].astype(np.int64)
        width = self._width(int(lengths.max()) if len(rows) else 1)
        ids = np.full((len(rows), width), self.pad_id, dtype=np.int64)
        src = np.asarray(self.a["ids"])[rows, :width]
        ids[:, : src.shape[1]] = src
        mask = (np.arange(width)[None, :] < lengths[:, None]).astype(np.int64)
        out = {"input_ids": torch.from_numpy(ids)}
        if self.token_types:
            out["token_type_ids"] = torch.zeros_like(out["input_ids"])
        out["attention_mask"] = torch.from_numpy(mask)
        if self.buckets > 1:  # the model's length buckets, decided here on the host (PearlModel.forward)
            order = torch.argsort(torch.from_numpy(lengths), stable=True)
            out["bucket_order"] = order
            out["bucket_widths"] = [min(self._width(int(lengths[s].max())), width) if len(s) else 1
                                    for s in torch.tensor_split(order, self.buckets)]
        if self.use_char:
            clen = np.asarray(self.a["char_lengths"])[rows].astype(np.int64)
            cw = self._width(int(clen.max()) if len(rows) else 1)
            chars = np.zeros((len(rows), cw), dtype=np.int64)
            src = np.asarray(self.a["chars"])[rows, :cw].astype(np.int64) + 1
            chars[:, : src.shape[1]] = src
            chars[np.arange(cw)[None, :] >= clen[:, None]] = 0
            out["char_ids"] = torch.from_numpy(chars)
        return out

    def batch(self, step: int) -> dict:
        """Step ``step``'s batch, as :meth:`pearl.training.batches.Collator.__call__` builds it."""
        if not 0 <= step < self.steps:
            raise IndexError(f"step {step} was not drawn ({self.steps} steps): draw the run's steps again")
        b = self.b // self.world
        lo = self.rank * b
        labels = np.asarray(self.a["labels"][step][lo:lo + b], dtype=np.int64)
        out = {"step": step, "n": b, "inputs": self.tensors(self.rows(step)), "labels": torch.from_numpy(labels)}
        if "labelled" in self.a:
            out["labelled"] = torch.from_numpy(np.array(self.a["labelled"][step], dtype=bool))
        return out


class StepArraysDataset(torch.utils.data.Dataset):
    """Steps ``start .. stop-1`` of a :class:`StepArrays` as a map-style dataset (the trainer's loader)."""

    def __init__(self, steps: StepArrays, start: int, stop: int):
        self.steps, self.start, self.stop = steps, start, stop

    def __len__(self) -> int:
        return max(0, self.stop - self.start)

    def __getitem__(self, i: int) -> dict:
        return self.steps.batch(self.start + i)
