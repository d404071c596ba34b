"""What the data-building notebook (01) reports about its corpora, in numbers and sentences: the
Wikipedia sample it builds, the tokens it parses, the build calls' rates and their projection to
the whole corpus, which rows make the training corpus and how that corpus is described.

It parses and counts nothing itself (:mod:`pearl.corpus.build`, :mod:`pearl.corpus.phrases`);
the tables and figures of those numbers are in :mod:`pearl.display`.
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Callable, Sequence

from .. import wikipedia
from ..guard import OPEN, Guard
from . import build
from .phrases import LABELS, select

#: the training corpora notebook 01 can write (``CORPUS``)
CORPORA = ("wikitext2", "wikipedia")
WORDNET_SOURCE = "WordNet 3.0 (Debian wordnet-base) via NLTK"


#: the training corpus notebook 01 writes for each profile when ``CORPUS`` is left None: the
#: paper trains on Wikipedia (3.8M phrases seen at least twice), so the gpu profile does; the cpu
#: profile's budget sees a few thousand phrases, which WikiText-2 holds
PROFILE_CORPUS = {"tiny": "wikitext2", "cpu": "wikitext2", "gpu": "wikipedia"}
#: articles a small whole-corpus build parses (``first_articles`` of :func:`wikipedia_sample`)
SMALL_ARTICLES = 4


def training_corpus(profile: str, given: str | None = None) -> str:
    """The training corpus notebook 01 writes: ``given``, else the profile's (:data:`PROFILE_CORPUS`),
    checked by :func:`check_corpus`.

    >>> training_corpus("gpu"), training_corpus("cpu"), training_corpus("gpu", "wikitext2")
    ('wikipedia', 'wikitext2', 'wikitext2')
    """
    return check_corpus(given or PROFILE_CORPUS[profile])


def build_processes(profile: str, given: int | None = None) -> int:
    """spaCy worker processes of notebook 01's parses: ``given``, or 1 on the tiny profile, 2 on the
    cpu profile and every core of the machine on the gpu profile (its whole-corpus build is CPU-bound)."""
    import os

    if profile == "tiny":
        return 1
    return given or (os.cpu_count() or 2 if profile == "gpu" else 2)


def check_corpus(name: str) -> str:
    """``name`` when it is one of :data:`CORPORA`; else a ValueError naming them."""
    if name not in CORPORA:
        raise ValueError(f"CORPUS={name!r}: use 'wikitext2' or 'wikipedia'")
    return name


def wikipedia_sample(profile: str, stride: int = 0, max_articles: int = 0, first_articles: int = 0) -> wikipedia.Sample:
    """The Wikipedia sample to build: the profile's (:data:`pearl.corpus.build.PROFILE_SAMPLES`;
    with ``first_articles``, the profile's stride on that many articles: a small build's
    :data:`SMALL_ARTICLES`), unless ``stride`` or ``max_articles`` is given (0: the profile's
    stride, no cap)."""
    sample = build.PROFILE_SAMPLES[profile]
    if first_articles:  # the profile's sample (every article on gpu), on its first few articles
        sample = wikipedia.Sample(stride=sample.stride, max_articles=first_articles)
    if stride or max_articles:
        sample = wikipedia.Sample(stride=stride or sample.stride, max_articles=max_articles)
    return sample


def targets(sample: wikipedia.Sample, chunk_articles: int, max_tokens: int, spacy_model: str, guard: Guard = OPEN) -> list:
    """What notebook 01 writes under ``data/derived/``, for its caller to check before anything is
    built: the corpus files (:func:`pearl.corpus.store.corpus_files`) and the sample's build folder
    (:class:`pearl.corpus.build.Settings`, with ``guard``'s note)."""
    from .store import corpus_files

    return [*corpus_files(), build.Settings(sample, chunk_articles, max_tokens, spacy_model, tuple(guard.note.items())).folder()]


def first(lines: list[str], n: int) -> list[str]:
    """The first ``n`` of ``lines``; all of them for ``n`` = 0."""
    return lines[:n] if n else lines


def token_count(lines: Sequence[str]) -> int:
    """Whitespace tokens over ``lines``."""
    return sum(len(line.split()) for line in lines)


def by_min_freq(counts: Counter, min_freqs: Sequence[int] = (1, 2, 3)) -> dict[int, list]:
    """``{min_freq: the rows kept at that frequency filter}`` (:func:`pearl.corpus.phrases.select`)."""
    return {mf: select(counts, mf) for mf in min_freqs}


def distinct_counts(kept: dict[int, list]) -> dict[str, int]:
    """``{str(min_freq): distinct phrases kept}`` of :func:`by_min_freq`."""
    return {str(mf): len(rows) for mf, rows in kept.items()}


def labels(rows: Sequence[tuple]) -> list[str]:
    """The label (second field) of each corpus row."""
    return [r[1] for r in rows]


def parsing_runs(build_dir: Path) -> list[dict]:
    """The :func:`pearl.corpus.build.runs` records of the build calls that parsed chunks of ``build_dir``
    (this run's, or an earlier one that this run resumed); a call that found every chunk is left out."""
    return [r for r in build.runs(build_dir) if r["tokens_parsed"]]


def parse_rate(runs: Sequence[dict]) -> float:
    """Tokens parsed per second of wall time over the build calls ``runs``."""
    return sum(r["tokens_parsed"] for r in runs) / max(sum(r["seconds"] for r in runs), 1e-9)


def per_process_rate(runs: Sequence[dict]) -> float:
    """Tokens parsed per second and per worker process over the build calls ``runs``."""
    return sum(r["tokens_parsed"] for r in runs) / max(sum(r["seconds"] * r["n_process"] for r in runs), 1e-9)


def describe_runs(runs: Sequence[dict]) -> str:
    """The build calls in words: tokens, seconds, processes and the load at the end of each."""
    return "; ".join(f"{r['tokens_parsed']:,} tokens in {r['seconds']:.0f} s with {r['n_process']} processes "
                     f"(load average {r['load_average_end'][0]:.1f} on {r['cpu_count']} cores at the end)" for r in runs)


def training_rows(corpus: str, counts: Counter, min_freq: int, wiki_rows: list) -> list:
    """The rows the training corpus is made of: WikiText-2's counts at ``min_freq``, or the
    Wikipedia build's rows (already filtered by its own frequency)."""
    return select(counts, min_freq) if check_corpus(corpus) == "wikitext2" else wiki_rows


def wordnet_rows(on: bool, common_nouns: bool, timer: Callable) -> list:
    """WordNet's multi-word phrases (:func:`pearl.corpus.lexicon.wordnet_phrases`), timed by
    ``timer("wordnet_phrases")`` (a notebook run's timer); none when ``on`` is False."""
    if not on:
        return []
    from .lexicon import wordnet_phrases

    with timer("wordnet_phrases"):
        return wordnet_phrases(common_nouns=common_nouns)


def corpus_about(corpus: str, wordnet: bool, min_freq: int, wiki_min_freq: int,
                 sample: wikipedia.Sample) -> dict:
    """The record written beside the corpus (``corpus.json``): which corpus, its filter and sample, WordNet or not."""
    text = f"WikiText-2 valid + test, min freq {min_freq}" if corpus == "wikitext2" else \
        f"{sample.describe()}, min freq {wiki_min_freq}"
    return {"corpus": corpus, "wordnet": wordnet,
            "description": text + (" + WordNet multi-word lemmas" if wordnet else ""),
            "sample": sample.as_dict() if corpus == "wikipedia" else None}


def wordnet_source(on: bool) -> str | None:
    """The WordNet data source of a run that adds WordNet's phrases (``on``); None otherwise."""
    return WORDNET_SOURCE if on else None


def source_counts(rows: Sequence[tuple]):
    """A pandas Series: rows per source (fourth field: ``wikitext2``, ``wordnet``, ``wikitext2+wordnet``, ...), most first."""
    import pandas as pd

    return pd.Series([r[3] for r in rows]).value_counts()


#: phrases per lexical class that :func:`sample_counts` lists
TOP_PER_CLASS = 12


def sample_counts(stats: dict, rows: Sequence[tuple], min_freq: int, paper_shares: dict | None = None) -> dict:
    """What a built Wikipedia sample is reported by (notebook 01, and the whole corpus's record):
    its size, its distinct phrases, those seen at least ``min_freq`` times and their share, the
    lexical-class shares (of those kept, of every phrase, and ``paper_shares`` beside them) and
    how many of the 95 phrase types occur among the kept, and each class's most frequent phrases
    (what a class share is made of). ``stats``, ``rows``: of :func:`pearl.corpus.build.merge` at
    ``min_freq`` (most frequent first)."""
    present = {r[1] for r in rows}
    top: dict[str, list] = {}
    for phrase, label, freq in rows:
        kept = top.setdefault(label.split("-")[0], [])
        if len(kept) < TOP_PER_CLASS:
            kept.append([phrase, freq])
    shares = {"kept": stats["class_shares_kept_pct"], "every_phrase": stats["class_shares_all_pct"]}
    return {"articles": stats["articles"], "paragraphs": stats["paragraphs"], "tokens": stats["tokens"],
            "chunks": stats["chunks"], "phrase_occurrences": stats["occurrences"],
            "distinct_phrases": stats["distinct"], "min_freq": min_freq, "kept_phrases": stats["kept"],
            "kept_share_pct": round(100 * stats["kept"] / max(stats["distinct"], 1), 2),
            "frequency_histogram": stats["freq_histogram"],
            "class_shares_pct": {**shares, "paper": paper_shares} if paper_shares else shares,
            "types_present": len(present), "types_absent": sorted(set(LABELS) - present),
            "most_frequent_by_class": dict(sorted(top.items()))}
