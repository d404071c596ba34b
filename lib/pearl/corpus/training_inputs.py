"""What training reads beside the corpus, built one way: augmentation lexicons and hard negatives.

Notebook 02 builds them for the data notebooks' corpus and :func:`pearl.corpus.variants.prepare`
for each named corpus of the discrepancy study; both call :func:`build_training_inputs`, so the
two kinds of folder hold the same files made the same way:

- ``augment/`` (:func:`pearl.corpus.augment.save_lexicons`): WordNet synonyms and GloVe neighbours
  of the corpus vocabulary, paraphrases of every phrase;
- ``hard_negatives.json`` (:func:`pearl.corpus.hard_negatives.mine`): lexically close phrases of
  lowest backbone cosine for the most frequent phrases, never their own augmentations.

:data:`DEFAULTS` are notebook 02's defaults. Its ``parameters`` cell repeats them as literals
(papermill reads literals only); ``tests/corpus/test_training_inputs.py`` checks the two agree.

What it leaves out: the corpus (:mod:`pearl.corpus.build`, :mod:`pearl.corpus.store`), the
sampler that draws from the lexicons (:class:`pearl.corpus.augment.Augmenter`) and the reports
notebook 02 makes of them (coverage, Figure 3, examples).
"""
from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path

from ..guard import OPEN, Guard


@dataclass(frozen=True)
class InputSettings:
    """How the lexicons and hard negatives are built (notebook 02's parameters of the same names)."""
    glove_threshold: float = 0.85  # GLOVE_THRESHOLD: cosine of a GloVe neighbour
    glove_vocab: int = 100_000  # GLOVE_VOCAB: neighbours among the most frequent GloVe words
    paraphraser: str = "offline"  # PARAPHRASER: "offline" rules, "rewrite" (pearl.corpus.rewrite), or a Hugging Face text2text model
    model: str = "minilm"  # MODEL: the backbone whose cosine ranks hard negatives
    k: int = 12  # K_NEGATIVES: hard negatives per anchor
    max_distance: float = 0.5  # MAX_DISTANCE: normalised Levenshtein distance of a candidate
    anchors: int = 10_000  # HN_ANCHORS: mine for the most frequent phrases only (the cpu budget); 0 means all


#: notebook 02's defaults, the one definition :mod:`pearl.corpus.variants` builds with
DEFAULTS = InputSettings()


def _untimed(_name: str):
    return contextlib.nullcontext()


def build_lexicons(phrases: list[str], settings: InputSettings = DEFAULTS, timer=None):
    """The augmentation lexicons of ``phrases``: WordNet synonyms and GloVe neighbours of their
    vocabulary, paraphrases of every phrase (``timer`` as in :func:`build_training_inputs`)."""
    from .augment import AugmentLexicons
    from .rewrite import paraphraser
    from .synonyms import glove_neighbours, vocabulary, wordnet_table

    timer = timer or _untimed
    words = vocabulary(phrases)
    with timer("wordnet_table"):
        wordnet = wordnet_table(words)
    with timer("glove_table"):
        glove = glove_neighbours(words, threshold=settings.glove_threshold, vocab_size=settings.glove_vocab)
    with timer("paraphrases"):
        paraphrases = paraphraser(settings.paraphraser).paraphrase_many(phrases)
    return AugmentLexicons(wordnet=wordnet, glove=glove, paraphrases=paraphrases,
                         meta={"glove_threshold": settings.glove_threshold, "glove_vocab": settings.glove_vocab,
                               "paraphraser": settings.paraphraser, "phrases": len(phrases)})


def targets(out_dir: str | Path | None = None) -> list[Path]:
    """Every file :func:`build_training_inputs` writes under ``out_dir`` (``data/derived/`` by
    default): the augmentation lexicons and their ``meta.json``, then ``hard_negatives.json``."""
    from .. import paths
    from .augment import lexicon_files

    out = Path(out_dir) if out_dir else paths.derived_dir()
    return lexicon_files(out / "augment") + [out / "hard_negatives.json"]


def build_training_inputs(phrases: list[str], out_dir: str | Path | None = None, settings: InputSettings = DEFAULTS,
                          timer=None, progress: bool = False, guard: Guard = OPEN):
    """Build the augmentation lexicons of ``phrases`` (most frequent first) and mine their hard
    negatives; write ``augment/`` and then ``hard_negatives.json`` (each atomically, the hard
    negatives last) under ``out_dir`` (``data/derived/`` by default). Every target (:func:`targets`)
    goes to ``guard.check`` before anything is built (:class:`pearl.guard.Guard`; the writers get
    the same guard).

    ``timer(name)``: a context manager timing each step (``Run.timer``: ``wordnet_table``,
    ``glove_table``, ``paraphrases``, ``hard_negatives``). Returns ``(lexicons, negatives, mining
    stats)``.
    """
    from ..models import load_model
    from .augment import save_lexicons
    from .hard_negatives import mine, write_hard_negatives

    files = targets(out_dir)
    guard.check(files)
    timer = timer or _untimed
    lexicons = build_lexicons(phrases, settings, timer)
    save_lexicons(lexicons, files[0].parent, guard)
    model = load_model(settings.model)
    with timer("hard_negatives"):
        negatives, stats = mine(phrases, model, k=settings.k, lexicons=lexicons, max_distance=settings.max_distance,
                                anchors=settings.anchors or None, progress=progress)
    write_hard_negatives(negatives, files[-1], guard)
    return lexicons, negatives, stats
