"""The training-data tables of notebooks 01 and 02, on hand-made inputs."""
from pearl.display import data_tables


def test_filter_table_counts_and_shares():
    kept = {1: [("a", "NP-OTHER", 1), ("b", "PP-DATE", 1)], 2: [("b", "PP-DATE", 2)]}
    table = data_tables.filter_table(kept)
    assert table[["min_freq", "distinct phrases", "NP", "PP"]].values.tolist() == [[1, 2, 50.0, 50.0], [2, 1, 0.0, 100.0]]


def test_synonym_and_hard_negative_examples():
    table = data_tables.synonym_examples(["film", "war"], {"WordNet": {"film": ["movie", "picture"]}, "GloVe": {}}, n=1)
    assert table.to_dict("index") == {"film": {"WordNet": "movie", "GloVe": ""}, "war": {"WordNet": "", "GloVe": ""}}
    shown = data_tables.hard_negative_examples({"the war": ["the wars", "a war", "the car"]}, ["the city", "the war"], n=2)
    assert shown.to_dict("index") == {"the war": {"hard negatives": "the wars, a war"}}
