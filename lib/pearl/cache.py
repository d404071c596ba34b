"""The embedding cache: a model that has not changed is never asked to encode a phrase twice.

Vectors are keyed by the model's **fingerprint** (:func:`pearl.backbones.fingerprint.fingerprint`: a
sha256 of its weights, config, tokenizer pipeline and settings, PEARL settings, pooling and
truncation: not its name or folder, so retrained weights or an edited setting never get old
vectors) and the **exact text**. They live in one SQLite file under the derived-data folder
(``data/derived/embeddings.sqlite``), shared by Table 1, Table 2, the figures and the explorer,
since all of them load models through :func:`pearl.models.load_model`.

- SQLite writes each batch of new vectors in one transaction, so a run killed mid-write
  leaves the file as it was before that batch: a half-written entry is never read.
- Each stored vector carries a checksum (its bytes, the fingerprint and the text, hashed); a
  vector whose bytes no longer match (a flipped bit on disk) is never served: it is encoded
  again and replaced, with one warning per store naming the file.
- A PEARL model's character weight set after loading (its public setter) changes the fingerprint
  (:func:`pearl.backbones.fingerprint.fingerprint` reads the applied weight at every call), so the
  new weight's vectors never come from, nor go to, the old weight's entries.
- The vectors stored are the raw pooled ones (``encode(..., normalize=False)``); ``encode``
  normalises on the way out, so a cached and a fresh vector are the same bytes.
- A cache folder that is missing is created; one that is read-only or a file that is corrupt
  gives a one-line warning naming the file and the fix, and encoding goes on without the
  cache, never with wrong vectors (a stored vector of the wrong size is a miss).

**Scores** are cached in the same file (:class:`ScoreStore`): a task's result for a model is
keyed by the model's fingerprint, the task, its size, and a hash of the code and data that
score that task (:func:`scoring_version`: the code every task shares, the task's own code such
as the PPDB probe, the data checksums). Change any of them and that task's score is computed
again; changing the probe leaves the other tasks' cached scores valid.

What it leaves out: eviction (delete the file to reclaim space: a little more than the vector's
float32 bytes per phrase; ``tests/test_cache.py`` checks the ratio) and sharing
between machines.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
import warnings
from pathlib import Path
from typing import Sequence

import numpy as np

from . import data, paths
from .encode import Encoder, encode
from .backbones.fingerprint import fingerprint
from .provenance import jsonable

ENV = "PEARL_EMBEDDING_CACHE"  # "0" turns the cache off; a path puts the file elsewhere
CHUNK = 900  # SQLite's default limit on bound parameters is 999
PAGE_SIZE = 16384  # bytes; see EmbeddingStore.__init__
SUM_BYTES = 8  # of the checksum stored after each vector's bytes


def _checksum(fp: str, text: str, vec: bytes) -> bytes:
    """blake2b of the vector's bytes, bound to its key (fingerprint, text): a vector damaged on
    disk, or one stored under another key, fails it."""
    h = hashlib.blake2b(vec, digest_size=SUM_BYTES)
    h.update(fp.encode() + b"\0" + text.encode("utf8", "surrogatepass"))
    return h.digest()


def store_path() -> Path | None:
    """The cache file, or None when ``$PEARL_EMBEDDING_CACHE=0``."""
    env = os.environ.get(ENV)
    if env == "0":
        return None
    return Path(env) if env else paths.derived_dir("embeddings.sqlite")


class EmbeddingStore:
    """Raw float32 vectors in SQLite, keyed by (fingerprint, text)."""

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.db = None
        self.damaged = 0  # vectors refused for a failed checksum (see get)
        self.lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # the explorer encodes from its debounce thread: one connection, used under a lock
            db = sqlite3.connect(self.path, timeout=60, check_same_thread=False)
            # A row (a 1.5-1.8 KB vector) must fit in its page: with SQLite's default 4 KB pages a
            # WITHOUT ROWID row over ~1 KB spills to an overflow page of its own, 4.7 KB a vector
            # (measured, 448-d). 16 KB pages keep it inline. Effective on a new file only.
            db.execute(f"PRAGMA page_size={PAGE_SIZE}")
            db.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
            db.execute("CREATE TABLE IF NOT EXISTS vectors (fp TEXT, text TEXT, vec BLOB, PRIMARY KEY (fp, text))"
                       " WITHOUT ROWID")
            db.commit()
            self.db = db
        except (sqlite3.Error, OSError) as err:
            self._disable(err)

    def _damaged(self, text: str) -> None:
        """One warning per store for vectors whose checksum fails (they are encoded again)."""
        self.damaged += 1
        if self.damaged == 1:
            warnings.warn(f"embedding cache {self.path}: a stored vector does not match its checksum (first: "
                          f"{text[:40]!r}); such vectors are encoded again and replaced. If this recurs, the disk "
                          f"may be failing: delete the file or set {ENV}=0.", stacklevel=4)

    def _disable(self, err: Exception) -> None:
        warnings.warn(f"embedding cache {self.path} unusable ({err}); encoding without it. "
                      f"Fix: delete the file, make its folder writable, or set {ENV}=0.", stacklevel=3)
        self.db = None

    def get(self, fp: str, texts: Sequence[str], dim: int) -> dict[str, np.ndarray]:
        """The stored vectors of ``texts`` (misses are absent; a vector of the wrong size is a miss)."""
        if self.db is None or not texts:
            return {}
        found = {}
        try:
            for start in range(0, len(texts), CHUNK):
                part = texts[start : start + CHUNK]
                with self.lock:
                    rows = self.db.execute(f"SELECT text, vec FROM vectors WHERE fp = ? AND text IN "
                                           f"({','.join('?' * len(part))})", (fp, *part)).fetchall()
                for text, blob in rows:
                    if len(blob) != 4 * dim + SUM_BYTES:  # another size, or written before checksums: a miss
                        continue
                    vec = blob[: 4 * dim]
                    if blob[4 * dim:] != _checksum(fp, text, vec):
                        self._damaged(text)
                        continue
                    found[text] = np.frombuffer(vec, dtype=np.float32)
        except sqlite3.Error as err:
            self._disable(err)
            return {}
        return found

    def put(self, fp: str, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Store ``vectors`` (one transaction: all of them or none)."""
        if self.db is None or not len(texts):
            return
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        try:
            with self.lock, self.db:
                self.db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                                    ((fp, t, v.tobytes() + _checksum(fp, t, v.tobytes())) for t, v in zip(texts, vectors)))
        except sqlite3.Error as err:
            self._disable(err)

    def count(self, fp: str | None = None) -> int:
        if self.db is None:
            return 0
        query, args = ("SELECT COUNT(*) FROM vectors WHERE fp = ?", (fp,)) if fp else ("SELECT COUNT(*) FROM vectors", ())
        return int(self.db.execute(query, args).fetchone()[0])


#: the code that decides every task's score besides the model (paths under lib/pearl): the
#: encoder, this cache (it serves the vectors) and the fingerprint it keys them by, the data
#: readers, the evaluators, the task definitions with their sizes, the string baselines
SCORING_CODE = ("encode.py", "cache.py", "backbones/fingerprint.py", "data.py", "benchmark/evaluate.py",
                "benchmark/tasks.py", "backbones/baselines.py", "resources.py")
#: ... and the code only some tasks use: a change to the probe re-scores the two PPDB tasks and
#: nothing else, one to the stand-in dictionaries YAGO and UMLS, one to the sweep suite's pools
#: YAGO, UMLS and AutoFJ, one to the clustering protocol CoNLL and BC5CDR. Left out on purpose:
#: benchmark/scoring.py and benchmark/table.py, which time and tabulate a score without deciding it
TASK_CODE = {"ppdb": ("benchmark/probe.py", "benchmark/mlp.py"), "ppdb_filtered": ("benchmark/probe.py", "benchmark/mlp.py"),
             "yago": ("benchmark/dictionaries.py", "benchmark/pools.py"),
             "umls": ("benchmark/dictionaries.py", "benchmark/pools.py"), "autofj": ("benchmark/pools.py",),
             "conll": ("benchmark/clustering.py",), "bc5cdr": ("benchmark/clustering.py",),
             **{name: ("benchmark/short_text.py", "benchmark/classifier.py", "benchmark/mlp.py")
                for name in ("twitter_s", "twitter_l", "atis_s", "atis_l")}}


def scoring_version(task: str, root: str | os.PathLike | None = None) -> str:
    """sha256 of everything besides the model that decides ``task``'s score: the source of
    :data:`SCORING_CODE` and of the task's own :data:`TASK_CODE`, the data files' checksums and
    the task's name. ``root`` is the package folder (this one by default; tests point it at a copy).
    """
    root = Path(root) if root is not None else Path(__file__).resolve().parent
    h = hashlib.sha256(task.encode())
    for name in (*SCORING_CODE, *TASK_CODE.get(task, ())):
        h.update(name.encode() + (root / name).read_bytes())
    h.update(json.dumps(data.SHA256, sort_keys=True).encode())
    return h.hexdigest()


class ScoreStore(EmbeddingStore):
    """Benchmark rows keyed by (model fingerprint, task, size, the task's :func:`scoring_version`)."""

    def __init__(self, path: str | os.PathLike):
        super().__init__(path)
        if self.db is not None:
            try:
                self.db.execute("CREATE TABLE IF NOT EXISTS scores (key TEXT PRIMARY KEY, row TEXT)")
                self.db.commit()
            except sqlite3.Error as err:
                self._disable(err)

    @staticmethod
    def key(fp: str, task: str, size: str, version: str) -> str:
        return hashlib.sha256(json.dumps([fp, task, size, version]).encode()).hexdigest()

    def get_row(self, key: str) -> dict | None:
        if self.db is None:
            return None
        try:
            with self.lock:
                found = self.db.execute("SELECT row FROM scores WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as err:
            self._disable(err)
            return None
        return json.loads(found[0]) if found else None

    def put_row(self, key: str, row: dict) -> None:
        if self.db is None:
            return
        try:
            with self.lock, self.db:  # NaN (a task a model cannot do) is kept as JSON's NaN: internal, read back by us
                self.db.execute("INSERT OR REPLACE INTO scores VALUES (?, ?)", (key, json.dumps(row, default=jsonable)))
        except (sqlite3.Error, TypeError, ValueError) as err:
            self._disable(err)


def score_store() -> ScoreStore | None:
    """The score cache (same file as the vectors), or None when the cache is off."""
    path = store_path()
    return ScoreStore(path) if path is not None else None


class CachedVectors:
    """The ``fn`` of a cached :class:`Encoder`: memory first, then the store, then the model."""

    def __init__(self, inner: Encoder, store: EmbeddingStore | None):
        self.inner, self.store, self.memory = inner, store, {}
        self.fp = fingerprint(inner)
        self.encoded = 0  # phrases the model had to encode (for the benchmarks)

    def __call__(self, phrases: list[str]) -> np.ndarray:
        fp = fingerprint(self.inner)  # a character weight set since gives another key, and none of the old vectors
        if fp != self.fp:
            self.fp, self.memory = fp, {}
        missing = [p for p in phrases if p not in self.memory]
        if missing and self.store is not None:
            self.memory.update(self.store.get(self.fp, missing, self.inner.dim))
            missing = [p for p in missing if p not in self.memory]
        if missing:
            vecs = encode(self.inner, missing, normalize=False)
            self.encoded += len(missing)
            self.memory.update(zip(missing, vecs))
            if self.store is not None:
                self.store.put(self.fp, missing, vecs)
        if not phrases:
            return np.zeros((0, self.inner.dim), np.float32)
        return np.stack([self.memory[p] for p in phrases])


def cached(encoder: Encoder, path: str | os.PathLike | None = None) -> Encoder:
    """``encoder`` behind the embedding cache (the file at ``path``, else :func:`store_path`).

    The result is an :class:`Encoder` like any other: ``encode(cached(m), phrases)`` returns
    what ``encode(m, phrases)`` would, encoding only the phrases never seen with these weights.
    """
    if encoder.extra.get("cached"):
        return encoder
    path = path if path is not None else store_path()
    store = EmbeddingStore(path) if path is not None else None
    vectors = CachedVectors(encoder, store)
    return Encoder(name=encoder.name, dim=encoder.dim, device=encoder.device, fn=vectors,
                   extra={**encoder.extra, "cached": True, "inner": encoder, "vectors": vectors})
