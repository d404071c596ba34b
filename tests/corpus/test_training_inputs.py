"""One builder of the augmentation lexicons and hard negatives: notebook 02's defaults, the files it
writes, and the same result as the pieces called one by one."""
import contextlib
from dataclasses import asdict, replace
from pathlib import Path

import pearl.models
from conftest import ROOT, needs_wordnet, notebook_parameters
from pearl.corpus import hard_negatives as hn
from pearl.corpus.augment import load_lexicons
from pearl.corpus.paraphrase import OfflineParaphraser
from pearl.corpus.synonyms import glove_neighbours, vocabulary, wordnet_table
from pearl.corpus.training_inputs import DEFAULTS, build_training_inputs

#: notebook 02's parameter of each setting
NOTEBOOK_NAMES = {"glove_threshold": "GLOVE_THRESHOLD", "glove_vocab": "GLOVE_VOCAB", "paraphraser": "PARAPHRASER",
                  "model": "MODEL", "k": "K_NEGATIVES", "max_distance": "MAX_DISTANCE", "anchors": "HN_ANCHORS"}


def test_notebook_02_declares_the_defaults():
    params = notebook_parameters(ROOT / "notebooks" / "src" / "02_augmentation.py")
    assert {field: params[name] for field, name in NOTEBOOK_NAMES.items()} == asdict(DEFAULTS)


PHRASES = ["the war", "the way", "the bar", "the car", "the star", "big city", "the big city", "New York Times",
           "the conflict", "the warfare", "a war", "the wars", "the film", "the films", "old river"]


@needs_wordnet
def test_writes_what_the_pieces_make(tmp_path, monkeypatch, minilm):
    monkeypatch.setattr(pearl.models, "load_model", lambda name: minilm)
    timed = []

    def timer(name):
        timed.append(name)
        return contextlib.nullcontext()

    settings = replace(DEFAULTS, k=2, anchors=5)
    lexicons, negatives, stats = build_training_inputs(PHRASES, tmp_path, settings, timer=timer)
    assert timed == ["wordnet_table", "glove_table", "paraphrases", "hard_negatives"]
    words = vocabulary(PHRASES)
    assert lexicons.wordnet == wordnet_table(words) and lexicons.glove == glove_neighbours(words, threshold=0.85, vocab_size=100_000)
    assert lexicons.paraphrases == OfflineParaphraser().paraphrase_many(PHRASES)
    assert lexicons.meta == {"glove_threshold": 0.85, "glove_vocab": 100_000, "paraphraser": "offline", "phrases": 15}
    alone, _ = hn.mine(PHRASES, minilm, k=2, lexicons=lexicons, max_distance=0.5, anchors=5)
    assert negatives == alone and stats["anchors"] == 5 and set(negatives) <= set(PHRASES[:5])
    back = load_lexicons(tmp_path / "augment")  # what training reads back
    assert (back.wordnet, back.glove, back.paraphrases, back.meta) == \
        (lexicons.wordnet, lexicons.glove, lexicons.paraphrases, lexicons.meta)
    assert hn.read_hard_negatives(tmp_path / "hard_negatives.json") == negatives
