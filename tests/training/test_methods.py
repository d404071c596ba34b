"""What each method trains on: its positives (the sample the lexical-diversity table reads), its
corpus and its default settings."""
import pytest
from pearl.corpus.augment import AugmentLexicons
from pearl.corpus.positives import paraphrase_positives
from pearl.training.methods import (
    augmenter_for,
    corpus_for,
    method_recipes,
    positive_samples,
)
from pearl.training.objectives import OBJECTIVES
from pearl.training.profiles import config_for
from rapidfuzz.distance import OSA

TABLES = AugmentLexicons(wordnet={"big": ["large"], "city": ["town", "metropolis"], "old": ["aged"]},
                       paraphrases={"The New York Times": ["NYT", "NYTimes"], "big city": ["metropolis"]})
PHRASES = ["The New York Times", "big city", "old man", "Paris", "New York"]


def test_every_objective_has_its_defaults_and_they_reach_the_config():
    for method, objective in OBJECTIVES.items():
        cfg, _ = config_for("cpu", objective=method)
        assert all(getattr(cfg, k) == v for k, v in objective.defaults.items()), method
    cfg, _ = config_for("cpu", objective="pause", label_share=0.05)  # the objective's own settings, by name
    assert cfg.settings.label_share == 0.05
    cfg, _ = config_for("cpu", objective="simcse", temperature=0.1)  # an explicit override wins
    assert cfg.temperature == 0.1 and not cfg.use_char
    assert config_for("cpu")[0].use_char  # PEARL keeps its character part


def test_positive_samples_per_method_and_level():
    samples = positive_samples(PHRASES, TABLES, seed=0)
    assert list(samples) == ["pearl:char", "pearl:token", "pearl:phrase", "pearl", "simcse", "phrase_bert", "pause"]
    assert all(p == q for p, q in samples["simcse"])  # SimCSE: the phrase itself
    # Phrase-BERT and PAUSE: only the phrases with a paraphrase or synonym, each with one of them
    for method in ("phrase_bert", "pause"):
        assert [p for p, _ in samples[method]] == ["The New York Times", "big city", "old man"]
        assert all(q in paraphrase_positives(p, TABLES) for p, q in samples[method])
    # PEARL's character level: one edit of every phrase (each has letters)
    assert all(OSA.distance(p, q) == 1 for p, q in samples["pearl:char"])
    # the phrase level alone: a table paraphrase, or the offline rules ("The New York Times" -> "NYT"),
    # or the phrase itself when nothing applies ("Paris"), as in training
    phrase_level = dict(samples["pearl:phrase"])
    assert phrase_level["The New York Times"] in ("NYT", "NYTimes") and phrase_level["Paris"] == "Paris"
    assert positive_samples(PHRASES, TABLES, seed=0) == samples  # seeded


def test_corpus_and_augmenter_need_the_tables_for_paraphrase_methods():
    rows = [(p, "NP") for p in PHRASES]
    assert corpus_for("pearl", rows) == rows
    assert [p for p, _ in corpus_for("pause", rows, TABLES)] == ["The New York Times", "big city", "old man"]
    with pytest.raises(ValueError, match="lexicons"):
        corpus_for("phrase_bert", rows)
    with pytest.raises(ValueError, match="load_lexicons"):
        augmenter_for("pause")
    with pytest.raises(ValueError, match="no phrase of the corpus"):
        corpus_for("pause", [("Paris", "NP")], TABLES)
    with pytest.raises(ValueError, match="unknown objective"):
        augmenter_for("triplet", TABLES)


def test_recipes_name_one_run_per_method_and_labelled_share():
    recipes = method_recipes(OBJECTIVES, [0.01, 0.05, 0.1, 0.3, 1.0])
    assert [r["name"] for r in recipes] == ["pearl", "simcse", "phrase_bert", "pause", "pause-labels-1pct",
                                            "pause-labels-5pct", "pause-labels-10pct", "pause-labels-30pct"]
    assert recipes[-1] == {"name": "pause-labels-30pct", "objective": "pause", "label_share": 0.3}
    assert [r["name"] for r in method_recipes(["pearl"], [0.05])] == ["pearl"]  # no PAUSE, no share runs


def test_positive_kinds_are_the_pearl_levels_then_the_methods():
    from pearl.training.methods import positive_kinds

    assert positive_kinds(["pearl", "pause"]) == ["pearl:char", "pearl:token", "pearl:phrase", "pearl", "pause"]
