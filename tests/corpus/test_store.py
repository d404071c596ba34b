"""The corpus file: rows, labels, where it comes from, and a clear error when it is missing."""
import pytest
from pearl.corpus import store
from pearl.guard import Guard


def test_corpus_says_where_it_comes_from(tmp_path):
    path = store.write_corpus([("in time", "PP-OTHER", 2, "wikipedia")], tmp_path / "phrases.tsv",
                           about={"corpus": "wikipedia", "description": "every 30th article"})
    assert store.read_about(path) == {"corpus": "wikipedia", "description": "every 30th article"}
    noted = Guard()
    noted.note = {"by": "the caller"}  # what a caller's guard records, pearl writes as given
    assert store.read_about(store.write_corpus([], tmp_path / "other" / "phrases.tsv", guard=noted)) == {"by": "the caller"}


def test_corpus_round_trip_and_missing_file(tmp_path):
    path = store.write_corpus([("The New York Times", "NP-ORG", 3, "wikitext2"), ("in time", "PP-OTHER", 0, "wordnet")],
                           tmp_path / "phrases.tsv")
    assert store.read_corpus(path) == [("The New York Times", "NP-ORG"), ("in time", "PP-OTHER")]
    assert store.read_rows(path)[1]["freq"] == 0
    assert (tmp_path / "labels.json").is_file()
    with pytest.raises(ValueError):
        store.write_corpus([("x", "NP-BOGUS", 1, "wikitext2")], tmp_path / "bad.tsv")
    with pytest.raises(FileNotFoundError, match=r"nope\.tsv is missing: build the phrase corpus .*write_corpus"):
        store.read_corpus(tmp_path / "nope.tsv")


def test_read_phrases_keeps_the_most_frequent_first(tmp_path):
    path = store.write_corpus([("a b", "NP-OTHER", 5, "wikitext2"), ("c", "NP-OTHER", 2, "wikitext2"),
                               ("d", "NP-OTHER", 1, "wikitext2")], tmp_path / "phrases.tsv")
    assert store.read_phrases(2, path) == ["a b", "c"] and store.read_phrases(0, path) == ["a b", "c", "d"]


def test_a_cut_corpus_names_its_file_line_and_fix(tmp_path):
    """Before: a phrases.tsv cut by a kill mid-row failed with a bare TypeError (int(None))."""
    from pearl.corpus.store import read_rows, write_corpus

    path = write_corpus([("the war", "NP-OTHER", 3, "wikitext2"), ("in 2008", "PP-DATE", 2, "wikitext2")],
                        tmp_path / "phrases.tsv")
    text = path.read_text()
    path.write_text(text[: text.rindex("\t2\t")])  # the last row cut before its count
    with pytest.raises(ValueError, match=r"phrases\.tsv:3 is not a corpus row .*cut or damaged; build the phrase corpus"):
        read_rows(path)
