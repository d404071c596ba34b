"""Phrase-BERT's lexical-diversity measures on pairs worked out by hand, and the paraphrase /
synonym positives Phrase-BERT and PAUSE train on."""
import numpy as np
import pytest
from pearl.corpus.augment import AugmentLexicons
from pearl.corpus.diversity import lexical_diversity, pair_measures
from pearl.corpus.positives import has_positive, paraphrase_augmenter, paraphrase_positives


@pytest.mark.parametrize("phrase, positive, expected", [
    # "nyt" is one new token of one; n-y-t is a subsequence of the 18 characters of
    # "the new york times" (LCS 3), so 15 deletions turn one into the other
    ("The New York Times", "NYT", (1.0, 3 / 18, 15 / 18)),
    # "home" is new, "big" is not; LCS "big ho" + "e" = 7 of 9 characters; u->m and delete s: 2 edits
    ("big house", "big home", (0.5, 7 / 9, 2 / 9)),
    ("Paris", "paris", (0.0, 1.0, 0.0)),  # case is ignored
    # a reordering: no new token; no two characters of "a b" come in the same order in "b a"
    # (LCS 1 of 3), and two substitutions turn one into the other
    ("a b", "b a", (0.0, 1 / 3, 2 / 3)),
])
def test_pair_measures_by_hand(phrase, positive, expected):
    got = pair_measures(phrase, positive)
    assert (got["new_token_share"], got["lcs_ratio"], got["levenshtein"]) == pytest.approx(expected)


def test_repeated_new_tokens_count_each_time():
    # "big big dog" of "dog": two of three tokens are new
    assert pair_measures("dog", "big big dog")["new_token_share"] == pytest.approx(2 / 3)


def test_lexical_diversity_averages_the_pairs():
    pairs = [("The New York Times", "NYT"), ("big house", "big home"), ("Paris", "paris")]
    out = lexical_diversity(pairs)
    assert out["pairs"] == 3 and out["identical"] == pytest.approx(1 / 3)
    assert out["new_token_share"] == pytest.approx((1 + 0.5 + 0) / 3)
    assert out["lcs_ratio"] == pytest.approx((3 / 18 + 7 / 9 + 1) / 3)
    assert out["levenshtein"] == pytest.approx((15 / 18 + 2 / 9 + 0) / 3)


def test_empty_inputs_are_refused():
    with pytest.raises(ValueError, match="no pairs"):
        lexical_diversity([])
    with pytest.raises(ValueError, match="empty phrase or positive"):
        pair_measures("big house", " ")


TABLES = AugmentLexicons(wordnet={"big": ["large", "bad"], "house": ["home"], "new": ["novel"]},
                       glove={"big": ["huge"]},
                       paraphrases={"The New York Times": ["NYT", "NYTimes"], "big house": ["mansion", "large house"]})


def test_positives_are_table_paraphrases_then_synonym_substitutions():
    # "large house" comes both from the table and from substituting "big": kept once
    assert paraphrase_positives("big house", TABLES) == ["mansion", "large house", "bad house", "big home"]
    # capitalised tokens are names: "New" is not replaced by "novel"
    assert paraphrase_positives("The New York Times", TABLES) == ["NYT", "NYTimes"]
    assert paraphrase_positives("New York", TABLES) == [] and not has_positive("New York", TABLES)
    # GloVe neighbours are related words, off unless asked for
    assert "huge dog" not in paraphrase_positives("big dog", TABLES)
    assert paraphrase_positives("big dog", TABLES, sources=("glove",)) == ["huge dog"]
    with pytest.raises(ValueError, match="choose one or more"):
        paraphrase_positives("big dog", TABLES, sources=("fasttext",))


def test_paraphrase_augmenter_draws_a_positive_seeded():
    make = paraphrase_augmenter(TABLES)
    draws = [make(np.random.default_rng(s))("big house") for s in range(40)]
    assert set(draws) == set(paraphrase_positives("big house", TABLES))  # each positive can be drawn
    assert draws == [make(np.random.default_rng(s))("big house") for s in range(40)]  # and seeded
    assert make(np.random.default_rng(0))("New York") == "New York"  # no positive: the phrase itself


def test_sample_table_and_examples_of_positives():
    from pearl.corpus import diversity

    corpus = [(f"p{i}", "NP") for i in range(10)]
    picked = diversity.sample_phrases(corpus, 4, seed=1)
    assert len(set(picked)) == 4 and picked == sorted(picked, key=lambda p: int(p[1:]))  # in corpus order
    assert picked == diversity.sample_phrases(corpus, 4, seed=1) and diversity.sample_phrases(corpus, 50) == \
        [p for p, _ in corpus]
    samples = {"simcse": [("big house", "big house"), ("a b", "a b")], "pause": [("big house", "big home")]}
    table = diversity.diversity_table(samples)
    assert table.index.name == "positives" and table["pairs"].tolist() == [2, 1] and table["pairs"].dtype == int
    assert table.loc["pause", "levenshtein"] == pytest.approx(2 / 9)
    shown = diversity.examples(samples, ["a b", "big house"], last="pause")
    assert shown.index.tolist() == ["big house"] and shown.loc["big house", "pause"] == "big home"
    assert diversity.examples(samples, ["a b", "big house"], last="simcse", n=1).to_dict("index") == \
        {"a b": {"simcse": "a b", "pause": ""}}
