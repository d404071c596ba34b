"""Typed phrase extraction: the label set, the extraction rules, counting."""
from collections import Counter

import pytest
from conftest import needs_wordnet
from pearl.corpus import phrases as ph


@pytest.fixture(scope="module")
def nlp():
    return ph.load_nlp()


def test_label_set_is_fixed_95_sorted():
    assert len(ph.LABELS) == 95 == len(set(ph.LABELS))
    assert list(ph.LABELS) == sorted(ph.LABELS)
    assert ph.LABELS[0] == "ADJP-CARDINAL" and "NP-ORG" in ph.LABELS and "VP-OTHER" in ph.LABELS
    index = ph.label_index()
    assert all(ph.LABELS[i] == lab for lab, i in index.items())


def test_clean_wikitext_undoes_escapes():
    assert ph.clean_wikitext(" 2 @,@ 000 ft and 0 @.@ 7 kg , lobster @-@ like ") == "2,000 ft and 0.7 kg , lobster-like"


@pytest.mark.parametrize("phrase, expected", [
    ("The New York Times", {"NP-ORG"}),
    ("23 February 2008", {"NP-DATE"}),
    # the small NER model tags "between 1500 and 2000" as CARDINAL and stops before "ft"
    # (see the module docstring): PP-CARDINAL is the nearest honest result to PP-QUANTITY
    ("between 1500 and 2000 ft", {"PP-QUANTITY", "PP-CARDINAL"}),
    ("in 2008", {"PP-DATE"}),
    ("very quickly", {"ADVP-OTHER"}),
    ("highly esteemed", {"ADJP-OTHER"}),
    ("gave up the fight", {"VP-OTHER"}),
])
def test_classify_hand_picked_phrases(nlp, phrase, expected):
    assert ph.classify(phrase, nlp) in expected


def test_classify_rejects_empty(nlp):
    with pytest.raises(ValueError):
        ph.classify("  ", nlp)


def _spans(nlp, text, max_tokens=6):
    return dict(ph.phrase_spans(nlp(text), max_tokens))


def test_phrase_spans_cover_all_five_classes(nlp):
    got = _spans(nlp, "The New York Times reported on 23 February 2008 that the army quickly gave up "
                      "the fight and became very ill .")
    assert got["The New York Times"] == "NP-ORG"
    assert got["23 February 2008"] == "NP-DATE"
    assert got["on 23 February 2008"] == "PP-DATE"
    assert got["very ill"] == "ADJP-OTHER"
    assert got["quickly"] == "ADVP-OTHER"
    assert got["gave up the fight"] == "VP-OTHER"
    assert {lab.split("-")[0] for lab in got.values()} == set(ph.CLASSES)


def test_adverb_on_a_preposition_makes_an_advp_over_the_pp(nlp):
    got = _spans(nlp, "Shortly after the war, the army moved just outside the city and returned two years later.")
    assert got["shortly after the war"] == "ADVP-OTHER"  # the Penn Treebank's (ADVP (RB ...) (PP ...))
    assert got["after the war"] == "PP-OTHER"
    assert got["just outside the city"] == "ADVP-OTHER" and got["outside the city"] == "PP-OTHER"
    assert got["two years later"].startswith("ADVP")


def test_phrase_spans_drop_unk_pronouns_and_long_spans(nlp):
    got = _spans(nlp, "He saw the <unk> valley near the old stone bridge over the river .", max_tokens=3)
    assert not any("<unk>" in p for p in got)
    assert "He" not in got and "he" not in got
    assert all(len(p.split()) <= 3 for p in got)
    assert "the river" in got


def test_count_and_select_most_frequent_label(nlp):
    counts = ph.count_phrases(["The war ended in 1945 .", "The war began in 1939 .", "A war ."], nlp, progress=False)
    rows = {p: (lab, f) for p, lab, f in ph.select(counts, min_freq=2)}
    assert rows["the war"] == ("NP-OTHER", 2)  # sentence-initial "The" lower-cased, so both count
    assert "in 1945" not in rows  # frequency 1 < 2
    tie = Counter({("x y", "NP-ORG"): 1, ("x y", "NP-GPE"): 1})
    assert ph.select(tie, 1) == [("x y", "NP-GPE", 2)]  # ties broken by the fixed label order


@needs_wordnet
def test_wordnet_types_and_classes():
    from pearl.corpus.lexicon import _class_of, wordnet, wordnet_type

    wn = wordnet()
    assert wordnet_type(wn.synset("paris.n.01")) == "GPE"
    assert wordnet_type(wn.synset("eiffel_tower.n.01")) == "FAC"
    assert wordnet_type(wn.synset("world_war_ii.n.01")) == "EVENT"
    assert wordnet_type(wn.synset("police_officer.n.01")) == "OTHER"  # not an instance
    assert _class_of("in time", "r") == "PP" and _class_of("give up", "v") == "VP"


def test_shares_and_figure_a1():
    import matplotlib

    matplotlib.use("Agg")
    from pearl.display.data_figures import (
        PAPER_CLASS_SHARES,
        class_shares,
        plot_figure_a1,
        type_shares,
    )

    labels = ["NP-ORG", "NP-OTHER", "PP-DATE", "VP-OTHER"]
    assert class_shares(labels) == {"NP": 50.0, "VP": 25.0, "PP": 25.0, "ADVP": 0.0, "ADJP": 0.0}
    types, other = type_shares(labels)
    assert other == 50.0 and types["ORG"] == types["DATE"] == 50.0 and "OTHER" not in types
    assert sum(PAPER_CLASS_SHARES.values()) == pytest.approx(100.0)
    fig = plot_figure_a1(labels, source="WikiText-2 + WordNet")
    assert "OTHER, 50.0%" in fig.axes[0].get_title()
    assert fig.get_suptitle() == "Phrases of WikiText-2 + WordNet: 4 distinct"
