"""What each method trains on: its positives (the kinds of :data:`POSITIVES` that the objectives
of :mod:`pearl.training.objectives` name) and its corpus; its default settings are the
objective's ``defaults`` (applied by :func:`pearl.training.profiles.config_for`).

- ``pearl``: a three-level augmentation of the phrase (character, token, phrase level;
  :class:`pearl.corpus.augment.Augmenter`, a weight per level); the profile's settings
  (character part, type head, hard negatives);
- ``simcse``: the phrase itself under another dropout mask; τ = 0.05, no hard negatives;
- ``phrase_bert``: a paraphrase or one-token synonym substitution
  (:mod:`pearl.corpus.positives`); one mined hard negative per triplet;
- ``pause``: the same paraphrase / synonym pairs, a ``label_share`` of them labelled; the
  unlabeled pairs are the in-batch ones (no hard negatives). Among a phrase's ``2B - 1``
  unlabeled pairs only its own unlabelled positive is known to be positive, so the share of
  positives there is about ``(1 - label_share) / (2B - 1)`` (a few in a hundred at batch 32) plus chance paraphrases in the batch; ``pu_prior`` (0.05) is PAUSE's
  hyperparameter, not estimated.

The neighbours train the phrase encoder alone (no character part, no type head): those are
PEARL's additions. Phrase-BERT and PAUSE train on the phrases that have a positive
(:func:`corpus_for`: those with a paraphrase or a WordNet synonym substitution, most of the
corpus with the cpu profile's offline lexicons).

:func:`positive_samples` draws, through the same factories the trainer uses, the pairs each
method (and each PEARL augmentation level alone) trains on, for the lexical-diversity table
(:func:`pearl.corpus.diversity.lexical_diversity`).
"""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Callable, Sequence

import numpy as np

from ..corpus.augment import Augmenter
from ..corpus.positives import SOURCES, has_positive, paraphrase_augmenter
from . import objectives
from .batches import identity_augmenter
from .train import TrainConfig

#: PEARL's augmentation levels, each alone and all together (weights char, token, phrase)
PEARL_LEVELS = {"pearl:char": (1, 0, 0), "pearl:token": (0, 1, 0), "pearl:phrase": (0, 0, 1), "pearl": (1, 1, 1)}


def augmenter_factory(char: float = 1.0, token: float = 1.0, phrase: float = 1.0, lexicons=None) -> Callable:
    """``rng -> (phrase -> augmented phrase)`` over :class:`pearl.corpus.augment.Augmenter`; weight 0 = level off."""
    if not (char or token or phrase):
        return identity_augmenter

    def make(rng: np.random.Generator):
        return Augmenter(char, token, phrase, rng, lexicons).augment

    make.lexicons = lexicons  # what it draws from: a checkpoint records their digest (pearl.checkpoint)
    return make


def _paraphrases(name: str, lexicons, sources: Sequence[str], **_) -> Callable:
    if lexicons is None:
        raise ValueError(f"objective {name!r} takes its positives from the augmentation lexicons: "
                         "pass lexicons=pearl.corpus.augment.load_lexicons()")
    return paraphrase_augmenter(lexicons, sources)


@dataclass(frozen=True)
class Positives:
    """A kind of positive: its factory ``(objective name, lexicons, sources, char=, token=, phrase=)``
    and whether the method trains only on the phrases that have one in the lexicons."""
    factory: Callable
    needs_positive: bool = False


#: the kinds an objective's ``positives`` names (:class:`pearl.training.objectives.Objective`)
POSITIVES = {
    "augmentation": Positives(lambda name, lexicons, sources, char=1.0, token=1.0, phrase=1.0:
                              augmenter_factory(char, token, phrase, lexicons)),
    "self": Positives(lambda *args, **kw: identity_augmenter),
    "paraphrase": Positives(_paraphrases, needs_positive=True),
}


def augmenter_for(objective: str, lexicons=None, char: float = 1.0, token: float = 1.0, phrase: float = 1.0,
                  sources: Sequence[str] = SOURCES) -> Callable:
    """The positive factory of a method (the level weights only matter for augmentation positives)."""
    kind = POSITIVES[objectives.get(objective).positives]
    return kind.factory(objective, lexicons, sources, char=char, token=token, phrase=phrase)


def corpus_for(objective: str, corpus: list, lexicons=None, sources: Sequence[str] = SOURCES) -> list:
    """The rows a method trains on: for one whose positives come from the lexicons (Phrase-BERT,
    PAUSE) those whose phrase has a positive (a row is a ``(phrase, ...)`` tuple or a bare
    phrase); the whole corpus otherwise."""
    if not POSITIVES[objectives.get(objective).positives].needs_positive:
        return list(corpus)
    if lexicons is None:
        raise ValueError(f"objective {objective!r} needs the augmentation lexicons to find positives")
    keep = [row for row in corpus if has_positive(row if isinstance(row, str) else row[0], lexicons, sources)]
    if not keep:
        raise ValueError("no phrase of the corpus has a paraphrase or synonym in the lexicons: rebuild them "
                         "(pearl.corpus.training_inputs.build_training_inputs)")
    return keep


def inputs_for(cfg, corpus: list, lexicons=None, char: float = 1.0, token: float = 1.0,
               phrase: float = 1.0) -> tuple[list, Callable]:
    """``(corpus rows, positive factory)`` for :func:`pearl.training.train.train` under ``cfg.objective``."""
    return corpus_for(cfg.objective, corpus, lexicons), augmenter_for(cfg.objective, lexicons, char, token, phrase)


def variant_for(cfg) -> str | None:
    """The folder-name variant of a run whose method settings differ from the method's own
    (the objective's ``variant`` hook: PAUSE with part of its pairs labelled, ``"labels-5pct"``); else None.

    >>> from pearl.training.train import TrainConfig
    >>> variant_for(TrainConfig.of("pause", label_share=0.05)), variant_for(TrainConfig.of("pause"))
    ('labels-5pct', None)
    """
    hook = objectives.get(cfg.objective).variant
    return hook(cfg.settings) if hook else None


def method_recipes(methods: Sequence[str] | None = None, label_shares: Sequence[float] = (1.0,)) -> list[dict]:
    """One recipe per method (``{"name", "objective"}``: the method's defaults come from
    :func:`pearl.training.profiles.config_for`), plus, for each method with a ``label_share``
    setting (PAUSE), one recipe per labelled share below 1 for the label-efficiency runs, named
    by :func:`variant_for`.

    >>> [r["name"] for r in method_recipes(["simcse", "pause"], [0.05, 1.0])]
    ['simcse', 'pause', 'pause-labels-5pct']
    """
    methods = list(objectives.OBJECTIVES) if methods is None else methods
    recipes = [{"name": objectives.get(m).name, "objective": m} for m in methods]
    for m in methods:
        if "label_share" in {f.name for f in fields(objectives.get(m).settings)}:
            for share in (s for s in label_shares if s < 1):
                variant = variant_for(TrainConfig.of(m, label_share=share))
                recipes.append({"name": f"{m}-{variant}", "objective": m, "label_share": share})
    return recipes


def positive_kinds(methods: Sequence[str]) -> list[str]:
    """The kinds of positives to compare: PEARL's augmentation levels one at a time, then ``methods``."""
    return [name for name in PEARL_LEVELS if name != "pearl"] + list(methods)


def positive_samples(phrases: Sequence[str], lexicons, seed: int = 0,
                     methods: Sequence[str] = ("pearl:char", "pearl:token", "pearl:phrase", "pearl",
                                               "simcse", "phrase_bert", "pause")) -> dict[str, list[tuple[str, str]]]:
    """``{method: [(phrase, positive), ...]}``: one positive per phrase the method trains on,
    drawn as the trainer draws it (an augmenter returning "" keeps the phrase). Keys
    ``"pearl:char"`` etc. are PEARL with one augmentation level alone; a phrase that level
    cannot change keeps itself as positive, as in training."""
    out = {}
    for name in methods:
        if name in PEARL_LEVELS:
            make = augmenter_factory(*PEARL_LEVELS[name], lexicons=lexicons)
            rows = list(phrases)
        else:
            make = augmenter_for(name, lexicons)
            rows = corpus_for(name, list(phrases), lexicons)
        augment = make(np.random.default_rng(seed))
        out[name] = [(p, augment(p) or p) for p in rows]
    return out
