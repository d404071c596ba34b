"""Phrase rewrites (pearl.corpus.rewrite): formats by hand, word rewrites on tagged phrases, the threshold."""
import pytest
from pearl.corpus import rewrite


@pytest.mark.parametrize("phrase, expected", [
    ("in September 1873", ["in Sept. 1873"]),
    ("July 27", ["27 July"]),
    ("27 July 1990", ["July 27, 1990"]),
    ("July 27 , 1990", ["27 July 1990"]),
    ("124,618 people", ["124618 people"]),
    ("a crowd of 35000", ["a crowd of 35,000"]),
    ("52.9 million", ["52,900,000"]),
    ("Richard P. Ernst", ["Richard Ernst"]),
    ("the SmackDown", ["SmackDown"]),
    # nothing: a month name without a number, a lower-case noun after "the", a year, an initial at the start
    ("March on Rome", []), ("the moon", []), ("in 1894", []), ("J. Smith", []),
])
def test_formats(phrase, expected):
    assert rewrite.formats(phrase) == expected


def test_articles_agree_with_the_new_word():
    assert rewrite._articles("a apple and an pear") == "an apple and a pear"
    assert rewrite._articles("an 8th Cheyenne") == "an 8th Cheyenne"


@pytest.fixture(scope="module")
def tag():
    from pearl.corpus.phrases import load_nlp

    nlp = load_nlp()
    return lambda text: nlp(text, disable=["parser", "ner"])


def test_word_rewrites(tag):
    assert "the earlier phases" in rewrite.word_rewrites(tag("the earlier stages"))
    assert "Churchill's inquiry" in rewrite.word_rewrites(tag("Churchill's research"))  # spacing kept
    assert "fewer than 400 graves" in rewrite.word_rewrites(tag("less than 400 graves"))
    # "in" has no rewrite (no other preposition keeps all its readings); names are never replaced
    assert not any(c.startswith(("within", "during")) for c in rewrite.word_rewrites(tag("in 1894")))
    assert rewrite.word_rewrites(tag("Guatemala City")) == []


def test_threshold_keeps_rules_formats_then_agreeing_words(monkeypatch):
    para = rewrite.RewriteParaphraser(model=None, threshold=0.8, max_n=3)
    scored = {"July 27": {"rules": [], "formats": ["27 July"], "words": []},
              "the old story": {"rules": [], "formats": [], "words": [(0.9, "the old tale"), (0.79, "the old floor")]},
              "the moon": {"rules": [], "formats": [], "words": [(0.5, "the lunar month")]},
              "The New York Times": {"rules": ["NYT", "NYTimes", "New York Times"], "formats": [],
                                     "words": [(0.95, "The New York Multiplication")]}}
    monkeypatch.setattr(para, "scored", lambda phrases: scored)
    assert para.paraphrase_many(list(scored)) == {"July 27": ["27 July"], "the old story": ["the old tale"],
                                                  "The New York Times": ["NYT", "NYTimes", "New York Times"]}


def test_paraphraser_by_name():
    from pearl.corpus.paraphrase import HFParaphraser, OfflineParaphraser

    assert isinstance(rewrite.paraphraser("offline"), OfflineParaphraser)
    assert isinstance(rewrite.paraphraser("rewrite"), rewrite.RewriteParaphraser)
    hf = rewrite.paraphraser("some/model")
    assert isinstance(hf, HFParaphraser) and hf.model_name == "some/model"
