"""Paraphrase and synonym positives: what Phrase-BERT and PAUSE train on instead of PEARL's augmentations.

Phrase-BERT (Wang et al. 2021) pairs each phrase with a lexically diverse paraphrase; PAUSE
(Cao et al. 2021) learns from labelled positive pairs. Here a phrase's positives are, from the
cached augmentation lexicons (:func:`pearl.corpus.augment.load_lexicons`):

- its **paraphrases** from the phrase table (:mod:`pearl.corpus.paraphrase`: acronyms,
  abbreviations, numbers, determiner drop, WordNet phrase synonyms), and
- every **one-token synonym substitution** from the WordNet table (:mod:`pearl.corpus.synonyms`),
  lower-case tokens only, as the token-level augmentation does ("New York" has no synonyms).

GloVe neighbours are left out by default (``sources``): they are related words, not synonyms
("lobster" -> "crab"), and PAUSE treats its positives as true labels. Left out as well: a
paraphrase model at training time (the lexicons are built once, by notebook 02).

>>> from pearl.corpus.augment import AugmentLexicons
>>> lexicons = AugmentLexicons(wordnet={"big": ["large"]}, paraphrases={"big city": ["metropolis"]})
>>> paraphrase_positives("big city", lexicons)
['metropolis', 'large city']
>>> paraphrase_positives("New York", lexicons)
[]
"""
from __future__ import annotations

from typing import Callable

import numpy as np

#: where positives come from by default: the phrase table and the WordNet synonym table
SOURCES = ("paraphrases", "wordnet")
_ALL_SOURCES = ("paraphrases", "wordnet", "glove")


def _check_sources(sources) -> None:
    unknown = [s for s in sources if s not in _ALL_SOURCES]
    if unknown or not sources:
        raise ValueError(f"positive sources {list(sources)}: choose one or more of {', '.join(_ALL_SOURCES)}")


def paraphrase_positives(phrase: str, lexicons, sources=SOURCES) -> list[str]:
    """Every positive of ``phrase`` (deduplicated, the phrase itself never included): table
    paraphrases first, then one-token substitutions, in token order."""
    _check_sources(sources)
    out = list(lexicons.paraphrases.get(phrase, [])) if "paraphrases" in sources else []
    tokens = phrase.split()
    for name in ("wordnet", "glove"):
        if name not in sources:
            continue
        table = getattr(lexicons, name)
        for i, token in enumerate(tokens):
            if token.islower():
                out += [" ".join(tokens[:i] + [syn] + tokens[i + 1 :]) for syn in table.get(token) or []]
    seen = {phrase}
    return [p for p in out if not (p in seen or seen.add(p))]


def has_positive(phrase: str, lexicons, sources=SOURCES) -> bool:
    return bool(paraphrase_positives(phrase, lexicons, sources))


def paraphrase_augmenter(lexicons, sources=SOURCES) -> Callable[[np.random.Generator], Callable[[str], str]]:
    """``rng -> (phrase -> one of its positives, drawn uniformly)``, the shape of the trainer's
    augmenter factories; a phrase without positives comes back unchanged (train on phrases that
    have one: :func:`pearl.training.methods.corpus_for`)."""
    _check_sources(sources)

    def make(rng: np.random.Generator):
        def positive(phrase: str) -> str:
            cands = paraphrase_positives(phrase, lexicons, sources)
            return cands[int(rng.integers(len(cands)))] if cands else phrase

        return positive

    make.lexicons = lexicons  # what it draws from: a checkpoint records their digest (pearl.checkpoint)
    return make
