"""The typed phrase corpus on disk: ``phrases.tsv`` (phrase, label, freq, source), with
``labels.json`` (the 95 labels in their fixed order) and ``corpus.json`` (which corpus and
sample the rows come from) beside it, written atomically; and the merge of a parsed corpus
with a lexicon's phrases (:func:`merge_sources`).

What it leaves out: how phrases are found and typed (:mod:`pearl.corpus.phrases`).
"""
from __future__ import annotations

import csv
from pathlib import Path
from typing import Iterable

from .. import paths
from ..atomic import write_atomic
from ..guard import OPEN, Guard
from ..provenance import write_json
from .phrases import CORPUS_FIX, LABELS


def corpus_files(path: Path | None = None) -> list[Path]:
    """The files :func:`write_corpus` writes for the corpus at ``path`` (default ``data/derived/phrases.tsv``):
    the rows, ``labels.json`` and ``corpus.json``, whose note (:attr:`pearl.guard.Guard.note`) speaks for all three."""
    path = Path(path) if path else paths.derived_dir("phrases.tsv")
    return [path, path.parent / "labels.json", path.parent / "corpus.json"]


def write_corpus(rows: Iterable[tuple[str, str, int, str]], path: Path | None = None, about: dict | None = None,
                 guard: Guard = OPEN) -> Path:
    """Write ``phrase, label, freq, source`` rows as TSV, plus ``labels.json`` beside it, each
    atomically (built in memory first: a bad row leaves the old corpus as it was). ``about``
    (which corpus and sample the rows come from) goes to ``corpus.json`` beside it, for the
    outputs made from this corpus to name it (:func:`read_about`), with the caller's
    ``guard.note``; ``guard.check`` sees every file before any is written."""
    import io

    files = corpus_files(path)
    guard.check(files)
    path, labels, about_path = files
    buf = io.StringIO(newline="")
    writer = csv.writer(buf, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\", lineterminator="\n")
    writer.writerow(["phrase", "label", "freq", "source"])
    for phrase, label, freq, source in rows:
        if label not in LABELS or "\t" in phrase or "\n" in phrase:
            raise ValueError(f"bad corpus row {phrase!r} {label!r}")
        writer.writerow([phrase, label, int(freq), source])
    write_json(labels, list(LABELS), indent=1)
    write_json(about_path, {**(about or {}), **guard.note}, indent=1)
    write_atomic(path, buf.getvalue())
    return path


def read_about(path: Path | None = None) -> dict:
    """What :func:`write_corpus` was told about the corpus (``{}`` for a corpus written without it)."""
    import json

    path = Path(path) if path else paths.derived_dir("phrases.tsv")
    about = path.parent / "corpus.json"
    return json.loads(about.read_text(encoding="utf8")) if about.is_file() else {}


def read_rows(path: Path | None = None) -> list[dict]:
    """All corpus rows as dicts with keys phrase, label, freq (int), source."""
    path = Path(path) if path else paths.derived_dir("phrases.tsv")
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: {CORPUS_FIX}")
    with open(path, encoding="utf8", newline="") as fh:
        reader = csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE, escapechar="\\")
        rows = []
        for row in reader:
            if None in row.values() or None in row or not row["freq"].isdigit():  # a row cut short, or one too long
                raise ValueError(f"{path}:{reader.line_num} is not a corpus row (phrase, label, freq, source): the "
                                 f"file is cut or damaged; {CORPUS_FIX} again")
            rows.append({**row, "freq": int(row["freq"])})
        return rows


def read_phrases(max_phrases: int = 0, path: Path | None = None) -> list[str]:
    """The corpus phrases, most frequent first; the first ``max_phrases`` of them (0: all)."""
    rows = read_rows(path)
    return [r["phrase"] for r in (rows[:max_phrases] if max_phrases else rows)]


def read_corpus(path: Path | None = None) -> list[tuple[str, str]]:
    """``(phrase, label)`` rows of the corpus written by the data-building notebook."""
    return [(r["phrase"], r["label"]) for r in read_rows(path)]


def merge_sources(corpus_rows: Iterable[tuple[str, str, int]], lexicon_rows: Iterable[tuple[str, str]] = (),
                  corpus: str = "wikitext2", lexicon: str = "wordnet") -> list[tuple[str, str, int, str]]:
    """One row per distinct phrase with its source; a corpus label wins (it was seen in
    context); lexicon-only phrases get frequency 0.

    >>> merge_sources([("in time", "PP-OTHER", 3)], [("in time", "ADVP-OTHER"), ("give up", "VP-OTHER")])
    [('in time', 'PP-OTHER', 3, 'wikitext2+wordnet'), ('give up', 'VP-OTHER', 0, 'wordnet')]
    """
    rows = {p: [p, lab, f, corpus] for p, lab, f in corpus_rows}
    for p, lab in lexicon_rows:
        if p in rows:
            rows[p][3] = f"{corpus}+{lexicon}"
        else:
            rows[p] = [p, lab, 0, lexicon]
    return [tuple(r) for r in rows.values()]
