"""Named training corpora side by side, each with its own augmentation lexicons and hard negatives.

The data notebooks (01, 02) build one training corpus in ``data/derived/`` (WikiText-2 by
default). The discrepancy study (notebook 13) trains on several at once, so each named corpus
of :data:`CORPORA` other than that one gets a folder ``data/derived/corpora/<name>/`` holding
what training reads: ``phrases.tsv`` (:mod:`pearl.corpus.store`), ``augment/``
(:mod:`pearl.corpus.augment`) and ``hard_negatives.json`` (:mod:`pearl.corpus.hard_negatives`),
made by notebook 02's own function with its defaults
(:func:`pearl.corpus.training_inputs.build_training_inputs`, :data:`pearl.corpus.training_inputs.DEFAULTS`).

- ``wikitext2``: the data notebooks' own files (WikiText-2 valid + test, 455K tokens, min
  freq 1, + WordNet lemmas); checked to be WikiText-2, never rebuilt here;
- ``wikipedia-1x``: the first chunks of the cpu profile's Wikipedia sample (every 30th
  article) holding at least WikiText-2's token count: the same size, another source;
- ``wikipedia-10x``: three interleaved samples (every 30th article from offsets 0, 10 and
  20: 6.7M tokens, about 15x WikiText-2); the build of offset 0 is notebook 01's.

Both Wikipedia corpora keep the paper's frequency filter (seen at least twice) and add the same
WordNet lemmas as WikiText-2. :func:`prepare` builds a folder once (each file atomically, the
hard negatives last: their presence marks a finished folder) and afterwards reuses it.

What it leaves out: training (:func:`pearl.training.profiles.load_training_data` takes the name).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

from .. import paths, wikipedia
from ..guard import OPEN, Guard
from . import build

@dataclass(frozen=True)
class Corpus:
    """A training corpus: its source and, for Wikipedia, the samples merged (and a token target)."""
    source: str  # "wikitext2" | "wikipedia"
    description: str
    samples: tuple = ()
    same_size_as_wikitext2: bool = False  # keep the first chunks that reach WikiText-2's tokens


CORPORA = {
    "wikitext2": Corpus("wikitext2", "WikiText-2 valid + test (455K tokens), min freq 1, + WordNet lemmas"),
    "wikipedia-1x": Corpus("wikipedia", "Wikipedia, every 30th article, first chunks to WikiText-2's token count, "
                           "min freq 2, + WordNet lemmas", (wikipedia.Sample(stride=30),), True),
    "wikipedia-10x": Corpus("wikipedia", "Wikipedia, every 30th article from offsets 0, 10 and 20 (a tenth of the "
                            "offline corpus), min freq 2, + WordNet lemmas",
                            tuple(wikipedia.Sample(stride=30, offset=o) for o in (0, 10, 20))),
}


def _check(name: str) -> Corpus:
    if name not in CORPORA:
        raise ValueError(f"unknown corpus {name!r}; choose from {', '.join(CORPORA)}")
    return CORPORA[name]


def notebooks_corpus() -> str | None:
    """The corpus the data notebooks built (notebook 01's ``CORPUS``: ``"wikitext2"`` on the cpu
    profile, ``"wikipedia"`` on the gpu profile), or None before they ran."""
    from .store import read_about

    path = paths.derived_dir("phrases.tsv")
    return read_about(path).get("corpus") if path.is_file() else None


def shares_wikitext2() -> bool:
    """Whether ``wikitext2`` is the data notebooks' own corpus (or they have not run: then
    :func:`prepare` says to run them); on the gpu profile they build Wikipedia, and WikiText-2
    gets a folder of its own like the other corpora."""
    return notebooks_corpus() in (None, "wikitext2")


def folder(name: str) -> Path:
    """Where corpus ``name``'s training files live (the data notebooks' folder for WikiText-2,
    when they built it: :func:`shares_wikitext2`)."""
    _check(name)
    return paths.derived_dir() if name == "wikitext2" and shares_wikitext2() else paths.derived_dir("corpora", name)


def files(name: str) -> dict[str, Path]:
    """The three things training reads, by role."""
    base = folder(name)
    return {"corpus": base / "phrases.tsv", "augment": base / "augment", "hard_negatives": base / "hard_negatives.json"}


def _same_size_chunks(build_dir: Path, tokens: int) -> int:
    """The fewest first chunks of ``build_dir`` holding at least ``tokens`` tokens."""
    total = 0
    for k, path in enumerate(build.chunks(build_dir), 1):
        total += build.read_header(path)["tokens"]
        if total >= tokens:
            return k
    raise ValueError(f"{build_dir} holds only {total:,} tokens, fewer than {tokens:,}")


def wikitext2_tokens() -> int:
    from ..data import wikitext2_lines

    return sum(len(line.split()) for line in wikitext2_lines())


def _wikitext2_rows(n_process: int, log, tiny: bool) -> tuple[list, dict]:
    """WikiText-2's rows as notebook 01 makes them on the cpu profile (min freq 1, + WordNet lemmas;
    ``tiny``: its first 300 lines, no lexicon), for a run whose data notebooks built another corpus."""
    from ..data import wikitext2_lines
    from .lexicon import wordnet_phrases
    from .phrases import clean_wikitext, count_phrases, load_nlp, select
    from .store import merge_sources

    lines = wikitext2_lines()[:300] if tiny else wikitext2_lines()
    log(f"wikitext2: parse {len(lines):,} lines (the data notebooks built another corpus)")
    counts = count_phrases(map(clean_wikitext, lines), load_nlp(), n_process=n_process, batch_size=32, total=len(lines))
    about = {"corpus": "wikitext2", "wordnet": not tiny, "description": CORPORA["wikitext2"].description,
             "tokens": sum(len(line.split()) for line in lines)}
    return merge_sources(select(counts, 1), [] if tiny else wordnet_phrases(), corpus="wikitext2"), about


def _rows(name: str, corpus: Corpus, n_process: int, log, tiny: bool, guard: Guard) -> tuple[list, dict]:
    """(phrase, label, freq, source) rows of a Wikipedia corpus and what it holds."""
    from .lexicon import wordnet_phrases
    from .store import merge_sources

    if corpus.source == "wikitext2":
        return _wikitext2_rows(n_process, log, tiny)
    # tiny: notebook 01's two-article sample, merged whole, no lexicon
    samples = (build.PROFILE_SAMPLES["tiny"],) if tiny else corpus.samples
    dirs = []
    for sample in samples:  # each build resumes from its chunks (notebook 01's is reused)
        log(f"{name}: parse {sample.describe()}")
        dirs.append(build.build(sample, chunk_articles=1 if tiny else 50, n_process=n_process, batch_size=32,
                                progress=False, guard=guard))
    first = _same_size_chunks(dirs[0], wikitext2_tokens()) if corpus.same_size_as_wikitext2 and not tiny else 0
    rows, stats = build.merge(dirs, min_freq=1 if tiny else 2, first_chunks=first)
    about = {"corpus": name, "wordnet": True, "description": corpus.description,
             "sample": [s.as_dict() for s in corpus.samples], "first_chunks": first or None,
             "tokens": stats["tokens"], "articles": stats["articles"], "distinct": stats["distinct"], "kept": stats["kept"]}
    return merge_sources(rows, [] if tiny else wordnet_phrases(), corpus="wikipedia"), about


def prepare(name: str, n_process: int = 2, log=print, size: str = "full", guard: Guard = OPEN) -> dict:
    """Build corpus ``name``'s folder if it is missing or unfinished; ``{role: path}``. At ``size``
    ``"tiny"`` it builds from notebook 01's tiny sample, without the lexicon, with 300 hard-negative
    anchors (notebook 02's tiny size). Every file it would write goes to ``guard.check`` first."""
    from .store import corpus_files, read_about, read_rows, write_corpus
    from .training_inputs import DEFAULTS, build_training_inputs, targets

    corpus, out = _check(name), files(name)
    if name == "wikitext2" and shares_wikitext2():
        if read_about(out["corpus"]).get("corpus") != "wikitext2":
            raise ValueError(f"{out['corpus']} is not WikiText-2's corpus: build WikiText-2's phrase corpus there "
                             "(pearl.corpus.build) and then its lexicons and hard negatives (pearl.corpus.training_inputs)")
        missing = [str(p) for p in out.values() if not p.exists()]
        if missing:
            raise FileNotFoundError(f"{missing[0]} is missing: build the corpus's lexicons and hard negatives first "
                                    "(pearl.corpus.training_inputs.build_training_inputs)")
        return out
    if out["hard_negatives"].is_file():  # written last: the folder is whole
        return out
    tiny = _tiny(size)
    guard.check(corpus_files(out["corpus"]) + targets(folder(name)))
    t0 = time.perf_counter()
    if not out["corpus"].is_file():
        rows, about = _rows(name, corpus, n_process, log, tiny, guard)
        write_corpus(rows, out["corpus"], about=about, guard=guard)
    phrases = [r["phrase"] for r in read_rows(out["corpus"])]  # most frequent first
    settings = replace(DEFAULTS, anchors=300 if tiny else DEFAULTS.anchors)  # notebook 02's tiny size
    log(f"{name}: {len(phrases):,} phrases; augmentation lexicons, hard negatives for the {settings.anchors:,} most "
        "frequent phrases")
    build_training_inputs(phrases, folder(name), settings, guard=guard)
    log(f"{name}: ready in {time.perf_counter() - t0:.0f} s ({read_about(out['corpus']).get('tokens', '?')} tokens)")
    return out


def _tiny(size: str) -> bool:
    """Whether ``size`` is ``"tiny"``; ``"full"`` is the other; anything else a ValueError naming both."""
    if size not in ("full", "tiny"):
        raise ValueError(f"size={size!r}: a corpus is built at 'full' or 'tiny' size")
    return size == "tiny"


def about(name: str) -> dict:
    """``corpus.json`` of a prepared corpus (its sample, tokens and phrase counts)."""
    from .store import read_about

    return read_about(files(name)["corpus"])
