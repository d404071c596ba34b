"""The typed-phrase build over a Wikipedia sample: multi-process, in atomic chunks, resumable.

:func:`build` streams a :class:`~pearl.wikipedia.Sample` of articles (paragraphs, one
text each) through spaCy's ``nlp.pipe`` with ``n_process`` workers and ``batch_size`` texts per
batch. Phrase extraction (:func:`pearl.corpus.phrases.phrase_spans`) runs inside the workers,
as the last pipeline component, which hands back a token-less Doc that carries only the
phrases: the parent then receives a few bytes per paragraph instead of a whole parsed Doc
(measured on Wikipedia: deserialising full Docs in the parent runs at about 55K tokens/s,
which would cap the build near 8 workers).

Every ``chunk_articles`` articles the counts go to ``chunks/NNNNN.tsv.gz`` (sorted
``phrase, label, count`` lines under a JSON header with the chunk's articles, titles,
paragraphs and tokens), written atomically by :func:`pearl.atomic.write_atomic`. A killed
build leaves whole chunks only; run again, it skips them and parses from the first missing one.
The folder's name is a digest of everything that decides the result (sample, chunk size,
phrase length, spaCy model and version, the source of the extraction rules: :data:`RULES`), so a build with
other settings never mixes its chunks with these.

:func:`merge` reads the chunks back with a k-way merge over their sorted lines: memory holds
one line per chunk and the counters of one phrase, plus the selected rows it returns. The
output depends on the sample only: not on ``n_process``, ``batch_size`` or on interruptions.

Left out: sharing work between machines, and freeing spaCy's string store in long-running
workers (it grows with the vocabulary seen: the peak RSS reported covers it). spaCy's workers
end with the parent, however it is killed (:func:`pearl.workers.tied`; Linux, ``fork``).
"""
from __future__ import annotations

import gzip
import hashlib
import heapq
import inspect
import io
import itertools
import json
import os
import resource
import time
from collections import Counter, deque
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from .. import paths, wikipedia
from ..atomic import write_atomic
from ..guard import OPEN, Guard
from ..provenance import dumps_strict
from ..workers import tied
from . import phrases

#: the sample each profile builds: cpu, every 30th article (1,025 articles, about 2.2M tokens:
#: about 4 minutes at 2 x 5,200 tokens/s, the rate of one quiet core); gpu, the whole corpus
PROFILE_SAMPLES = {"cpu": wikipedia.Sample(stride=30), "gpu": wikipedia.Sample(stride=1),
                   "tiny": wikipedia.Sample(max_articles=2)}
#: the code that decides which phrases a parse gives (its source is part of the folder's digest)
RULES = (phrases.phrase_spans, phrases._text, phrases._vp_span, phrases._pp_head, phrases.entity_type)
COMPONENT = "pearl_phrases"
KEY = "pearl_phrases"


class _Extract:
    """Pipeline component: the doc's ``(phrase, label)`` pairs on an empty Doc (see module docstring)."""

    def __init__(self, max_tokens: int):
        self.max_tokens = max_tokens

    def __call__(self, doc):
        from spacy.tokens import Doc

        out = Doc(doc.vocab, words=[])
        out.user_data[KEY] = [list(p) for p in phrases.phrase_spans(doc, self.max_tokens)]
        out._context = doc._context
        return out


def _make_extract(nlp, name, max_tokens: int):
    return _Extract(max_tokens)


def add_extractor(nlp, max_tokens: int = 6):
    """``nlp`` with phrase extraction as its last component (added once)."""
    from spacy.language import Language

    if not Language.has_factory(COMPONENT):
        Language.factory(COMPONENT, default_config={"max_tokens": 6}, func=_make_extract)
    if COMPONENT in nlp.pipe_names:
        nlp.remove_pipe(COMPONENT)
    nlp.add_pipe(COMPONENT, last=True, config={"max_tokens": max_tokens})
    return nlp


@dataclass(frozen=True)
class Settings:
    """What decides the built corpus (the folder name is their digest). ``note``: the caller's
    :attr:`pearl.guard.Guard.note` as ``(key, value)`` pairs, recorded in its ``settings.json``
    (none by default, so a folder built without one keeps its name): a build with another note
    never shares a folder with one without."""

    sample: wikipedia.Sample
    chunk_articles: int = 100
    max_tokens: int = 6
    spacy_model: str = phrases.SPACY_MODEL
    note: tuple = ()

    def record(self, folder=None) -> dict:
        import spacy

        rules = hashlib.sha256("".join(inspect.getsource(f) for f in RULES).encode()
                               + repr(phrases.EXTRACTION_CONSTANTS).encode()).hexdigest()[:16]
        return {"sample": self.sample.as_dict(), "chunk_articles": self.chunk_articles,
                "max_tokens": self.max_tokens, "spacy_model": self.spacy_model, "spacy": spacy.__version__,
                "rules_sha256": rules, "source": str(folder) if folder else wikipedia.SOURCE,
                **dict(self.note)}

    def folder(self, folder=None) -> Path:
        digest = hashlib.sha256(dumps_strict(self.record(folder), sort_keys=True).encode()).hexdigest()[:12]
        return paths.derived_dir("wikipedia_builds", digest)


def chunk_path(build_dir: Path, k: int) -> Path:
    return Path(build_dir) / "chunks" / f"{k:05d}.tsv.gz"


def _write_chunk(path: Path, counts: Counter, header: dict) -> None:
    buf = io.StringIO()
    buf.write(dumps_strict(header) + "\n")
    for (phrase, label), n in sorted(counts.items()):
        buf.write(f"{phrase}\t{label}\t{n}\n")
    write_atomic(path, gzip.compress(buf.getvalue().encode("utf8"), compresslevel=3, mtime=0))


def read_header(path: Path) -> dict:
    with gzip.open(path, "rt", encoding="utf8") as fh:
        return json.loads(fh.readline())


def _chunk_lines(path: Path) -> Iterator[tuple[str, str, int]]:
    with gzip.open(path, "rt", encoding="utf8") as fh:
        fh.readline()
        for line in fh:
            phrase, label, n = line.rstrip("\n").split("\t")
            yield phrase, label, int(n)


def peak_rss_mb() -> dict:
    """Peak resident memory of this process and of its largest finished child process, in MB."""
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return {"parent": round(own, 1), "largest_child": round(kids, 1)}


def build(sample: wikipedia.Sample, *, chunk_articles: int = 100, max_tokens: int = 6, n_process: int = 1,
          batch_size: int = 64, spacy_model: str = phrases.SPACY_MODEL, folder=None,
          build_dir: Path | None = None, progress: bool = True, guard: Guard = OPEN) -> Path:
    """Parse the sample into chunk files under ``build_dir`` (default: from :class:`Settings`),
    skipping chunks already there; returns ``build_dir``. ``folder``: another corpus folder
    (see :func:`pearl.wikipedia.corpus_files`). ``guard.check`` sees the folder before anything is
    written, and ``guard.note`` is part of its settings (:class:`Settings`)."""
    from tqdm.auto import tqdm

    start = time.perf_counter()
    if chunk_articles < 1 or n_process < 1 or batch_size < 1:
        raise ValueError("chunk_articles, n_process and batch_size must be >= 1")
    settings = Settings(sample, chunk_articles, max_tokens, spacy_model, tuple(guard.note.items()))
    build_dir = Path(build_dir) if build_dir else settings.folder(folder)
    guard.check([build_dir])
    write_atomic(build_dir / "settings.json", dumps_strict(settings.record(folder), indent=1) + "\n")
    for stale in (build_dir / "chunks").glob(".*.tmp"):
        stale.unlink()  # the temporary file of a chunk whose writer was killed
    done = {int(p.name.split(".")[0]) for p in chunks(build_dir)}
    nlp = add_extractor(phrases.load_nlp(spacy_model), max_tokens)
    pending: deque = deque()

    def texts():
        for i, article in enumerate(wikipedia.articles(sample, folder)):
            k = i // chunk_articles
            if k in done:
                continue
            for text in article.paragraphs:
                pending.append((k, None))
                yield text
            pending.append((k, article))  # the article's end: an empty text, so every article shows up
            yield ""

    total = sample.size(folder)
    initial = min(len(done) * chunk_articles, total) if total else len(done) * chunk_articles
    bar = tqdm(total=total, initial=initial, disable=not progress, desc="articles", unit="art")
    counts, header, current, parsed = Counter(), _new_header(), None, []
    with tied():  # a killed build leaves no spaCy worker behind
        for doc in nlp.pipe(texts(), n_process=n_process, batch_size=batch_size):
            k, article = pending.popleft()
            if current is not None and k != current:
                _write_chunk(chunk_path(build_dir, current), counts, header)
                parsed.append(header["tokens"])
                counts, header = Counter(), _new_header()
            current = k
            counts.update(map(tuple, doc.user_data[KEY]))
            if article is None:
                header["paragraphs"] += 1
            else:
                header["articles"].append([article.id, article.title, article.url])
                header["tokens"] += article.n_tokens()
                bar.update(1)
    if current is not None:
        _write_chunk(chunk_path(build_dir, current), counts, header)
        parsed.append(header["tokens"])
    bar.close()
    record = {"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seconds": round(time.perf_counter() - start, 2),
              "chunks_parsed": len(parsed), "tokens_parsed": sum(parsed),
              "n_process": n_process, "batch_size": batch_size, "cpu_count": os.cpu_count(),
              "load_average_end": os.getloadavg(), "peak_rss_mb": peak_rss_mb()}
    write_atomic(build_dir / "runs.json", dumps_strict(runs(build_dir) + [record], indent=1) + "\n")
    return build_dir


def runs(build_dir: Path) -> list[dict]:
    """One record per finished :func:`build` call on ``build_dir`` (a killed call leaves none):
    its time, the chunks and tokens it parsed (0 when every chunk was there), processes, load."""
    path = Path(build_dir) / "runs.json"
    return json.loads(path.read_text(encoding="utf8")) if path.is_file() else []


def _new_header() -> dict:
    return {"articles": [], "paragraphs": 0, "tokens": 0}


def chunks(build_dir: Path) -> list[Path]:
    return sorted((Path(build_dir) / "chunks").glob("*.tsv.gz"))


def merge(build_dir: Path | Sequence[Path], min_freq: int = 2, first_chunks: int = 0) -> tuple[list[tuple[str, str, int]], dict]:
    """``(rows, stats)``: rows ``(phrase, label, freq)`` with ``freq >= min_freq`` as in
    :func:`pearl.corpus.phrases.select` (most frequent label, ties by the fixed label order;
    sorted by falling frequency, then phrase); stats over every distinct phrase.
    ``first_chunks``: merge only that many (a smaller sample, at the cost of a merge).
    Several build folders (disjoint samples) merge as one corpus."""
    dirs = [build_dir] if isinstance(build_dir, (str, Path)) else list(build_dir)
    files = [f for d in dirs for f in chunks(Path(d))][: first_chunks or None]
    if not files:
        raise FileNotFoundError(f"no chunk in {', '.join(map(str, dirs))}: run pearl.corpus.build.build first")
    order = phrases.label_index()
    stats = {"chunks": len(files), "articles": 0, "paragraphs": 0, "tokens": 0, "occurrences": 0,
             "distinct": 0, "kept": 0, "label_counts_all": Counter(), "freq_histogram": Counter()}
    for path in files:
        head = read_header(path)
        stats["articles"] += len(head["articles"])
        stats["paragraphs"] += head["paragraphs"]
        stats["tokens"] += head["tokens"]
    rows = []
    merged = heapq.merge(*(_chunk_lines(p) for p in files))
    for phrase, group in itertools.groupby(merged, key=lambda r: r[0]):
        labels = Counter()
        for _, label, n in group:
            labels[label] += n
        freq = sum(labels.values())
        label = min(labels, key=lambda lab: (-labels[lab], order[lab]))
        stats["distinct"] += 1
        stats["occurrences"] += freq
        stats["label_counts_all"][label] += 1
        stats["freq_histogram"][min(freq, 10)] += 1
        if freq >= min_freq:
            rows.append((phrase, label, freq))
    stats["kept"] = len(rows)
    by_class = Counter()
    for label, n in stats["label_counts_all"].items():
        by_class[label.split("-", 1)[0]] += n
    stats["class_shares_all_pct"] = _shares(by_class)
    stats["class_shares_kept_pct"] = _shares(Counter(r[1].split("-", 1)[0] for r in rows))
    stats["label_counts_all"] = dict(stats["label_counts_all"].most_common())
    stats["freq_histogram"] = {str(k): v for k, v in sorted(stats["freq_histogram"].items())}
    rows.sort(key=lambda r: (-r[2], r[0]))
    return rows, stats


def _shares(by_class: Counter) -> dict[str, float]:
    total = max(sum(by_class.values()), 1)
    return {c: round(100 * by_class[c] / total, 2) for c in phrases.CLASSES}


def shares_by_size(build_dir: Path, min_freq: int = 2, parts: tuple[int, ...] = (8, 4, 2, 1)) -> list[dict]:
    """Class shares of the phrases kept at ``min_freq`` when only the first 1/part of the chunks
    is merged: how the shares move with the size of the sample."""
    n = len(chunks(build_dir))
    out = []
    for part in parts:
        k = max(1, n // part)
        _, stats = merge(build_dir, min_freq, first_chunks=k)
        out.append({"chunks": k, "tokens": stats["tokens"], "kept": stats["kept"], **stats["class_shares_kept_pct"]})
    return out


def titles(build_dir: Path) -> list[tuple[str, str, str]]:
    """``(page id, title, url)`` of every article in the build: entity names with a known page."""
    return [tuple(a) for path in chunks(build_dir) for a in read_header(path)["articles"]]
