"""Notebook 01's numbers about its corpora, on hand-made counts and build records."""
from collections import Counter

import pytest
from pearl import wikipedia
from pearl.corpus import build, summary


def test_corpus_name_and_sample():
    assert summary.check_corpus("wikipedia") == "wikipedia"
    with pytest.raises(ValueError, match="'wikitext2' or 'wikipedia'"):
        summary.check_corpus("wiki")
    assert summary.wikipedia_sample("cpu") == build.PROFILE_SAMPLES["cpu"]
    assert summary.wikipedia_sample("cpu", max_articles=5) == wikipedia.Sample(stride=30, max_articles=5)
    assert summary.wikipedia_sample("gpu", stride=7) == wikipedia.Sample(stride=7)
    assert summary.wikipedia_sample("tiny") == build.PROFILE_SAMPLES["tiny"]
    assert summary.wikipedia_sample("gpu", first_articles=summary.SMALL_ARTICLES) == \
        wikipedia.Sample(stride=1, max_articles=summary.SMALL_ARTICLES)
    assert summary.training_corpus("tiny") == summary.PROFILE_CORPUS["tiny"] == "wikitext2"
    assert (summary.build_processes("cpu", 4), summary.build_processes("tiny", 4), summary.build_processes("cpu")) == (4, 1, 2)


def test_lines_filters_and_labels():
    assert summary.first(["a", "b", "c"], 2) == ["a", "b"] and summary.first(["a", "b"], 0) == ["a", "b"]
    assert summary.token_count(["a b", "c d e"]) == 5
    counts = Counter({("in 2008", "PP-DATE"): 2, ("x y", "NP-OTHER"): 1, ("big city", "NP-OTHER"): 3})
    kept = summary.by_min_freq(counts, (1, 2, 3))
    assert summary.distinct_counts(kept) == {"1": 3, "2": 2, "3": 1}
    assert summary.labels(kept[3]) == ["NP-OTHER"]
    assert summary.training_rows("wikitext2", counts, 2, ["wiki"]) == kept[2]
    assert summary.training_rows("wikipedia", counts, 2, ["wiki"]) == ["wiki"]


def test_build_rates_by_hand(tmp_path):
    import json

    runs = [{"tokens_parsed": 1000, "seconds": 10.0, "n_process": 2, "load_average_end": [1.5], "cpu_count": 2},
            {"tokens_parsed": 0, "seconds": 1.0, "n_process": 1, "load_average_end": [0.2], "cpu_count": 2},
            {"tokens_parsed": 500, "seconds": 10.0, "n_process": 1, "load_average_end": [1.0], "cpu_count": 2}]
    (tmp_path / "runs.json").write_text(json.dumps(runs))
    parsed = summary.parsing_runs(tmp_path)
    assert parsed == [runs[0], runs[2]]
    assert summary.parse_rate(parsed) == 75.0  # 1500 tokens in 20 s
    assert summary.per_process_rate(parsed) == 50.0  # 1500 tokens in 30 process-seconds
    assert summary.describe_runs(parsed[:1]) == \
        "1,000 tokens in 10 s with 2 processes (load average 1.5 on 2 cores at the end)"


def test_wordnet_rows_about_and_sources():
    timed = []

    def timer(key):
        raise AssertionError("not timed when WordNet is off")

    assert summary.wordnet_rows(False, False, timer) == [] and timed == []
    sample = wikipedia.Sample(stride=30)
    about = summary.corpus_about("wikitext2", True, 1, 2, sample)
    assert about == {"corpus": "wikitext2", "wordnet": True,
                     "description": "WikiText-2 valid + test, min freq 1 + WordNet multi-word lemmas", "sample": None}
    wiki = summary.corpus_about("wikipedia", False, 1, 2, sample)
    assert wiki["description"] == f"{sample.describe()}, min freq 2" and wiki["sample"] == sample.as_dict()
    assert (summary.wordnet_source(True), summary.wordnet_source(False)) == (summary.WORDNET_SOURCE, None)
    rows = [("a", "NP-OTHER", 1, "wikitext2"), ("b", "VP-OTHER", 0, "wordnet"), ("c", "NP-OTHER", 2, "wikitext2")]
    assert summary.source_counts(rows).to_dict() == {"wikitext2": 2, "wordnet": 1}


def test_sample_counts_by_hand():
    stats = {"articles": 2, "paragraphs": 5, "tokens": 40, "chunks": 1, "occurrences": 9, "distinct": 4, "kept": 1,
             "freq_histogram": {"1": 3, "5": 1}, "class_shares_kept_pct": {"NP": 100.0},
             "class_shares_all_pct": {"NP": 75.0, "PP": 25.0}}
    out = summary.sample_counts(stats, [("new york", "NP-GPE", 5)], 2, paper_shares={"NP": 60.1})
    assert out["kept_share_pct"] == 25.0 and out["distinct_phrases"] == 4 and out["phrase_occurrences"] == 9
    assert out["class_shares_pct"] == {"kept": {"NP": 100.0}, "every_phrase": {"NP": 75.0, "PP": 25.0},
                                       "paper": {"NP": 60.1}}
    assert out["types_present"] == 1 and len(out["types_absent"]) == 94 and "NP-GPE" not in out["types_absent"]
    assert "paper" not in summary.sample_counts(stats, [], 2)["class_shares_pct"]


def test_sample_counts_lists_each_class_most_frequent_first(monkeypatch):
    monkeypatch.setattr(summary, "TOP_PER_CLASS", 2)
    rows = [("was born", "VP-OTHER", 9), ("the war", "NP-OTHER", 7), ("in 1990", "PP-DATE", 6),
            ("has been", "VP-OTHER", 5), ("the city", "NP-GPE", 4), ("the end", "NP-OTHER", 3)]
    stats = {"articles": 1, "paragraphs": 1, "tokens": 40, "chunks": 1, "occurrences": 34, "distinct": 6, "kept": 6,
             "freq_histogram": {}, "class_shares_kept_pct": {}, "class_shares_all_pct": {}}
    assert summary.sample_counts(stats, rows, 2)["most_frequent_by_class"] == {
        "NP": [["the war", 7], ["the city", 4]], "PP": [["in 1990", 6]], "VP": [["was born", 9], ["has been", 5]]}
