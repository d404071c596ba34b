"""Table 2: the length rule, the splits, the accuracy, the classifier and the table, on hand-made cases."""
import math

import numpy as np
import pytest
from harness.scale import SMOKE
from pearl import data
from pearl.benchmark import classifier, scoring, short_text, table
from pearl.benchmark.tasks import SUITES


def _text(n_tokens: int, tag: str = "w") -> str:
    return " ".join(f"{tag}{i}" for i in range(n_tokens))


# --------------------------------------------------------------------------- the length rule


def test_token_count_is_whitespace_words():
    assert short_text.token_count("i  want\tto fly ") == 4
    assert short_text.token_count("@user can't wait!!") == 3


def test_length_rule_on_a_hand_made_set():
    """Lengths 1 2 3 3 4 5 5 6 9 9 10 12 20. S (mean 4.5, at least 4 texts): [4, 5] holds 3 texts,
    too few; of the next-narrowest ranges containing 4.5, [3, 5] (mean 4.0) and [4, 6] (mean 5.0)
    are equally near, so the lower one: the texts of 3, 3, 4, 5, 5 tokens. L (mean 9.2, at least 3
    texts): [9, 10] holds exactly 3: the texts of 9, 9, 10 tokens."""
    lengths = [1, 2, 3, 3, 4, 5, 5, 6, 9, 9, 10, 12, 20]
    texts = [_text(n, f"t{i}_") for i, n in enumerate(lengths)]
    short = short_text.length_band(lengths, 4.5, 4)
    long = short_text.length_band(lengths, 9.2, 3)
    assert short == (3, 5) and long == (9, 10)
    assert [lengths[i] for i in short_text.within(texts, short)] == [3, 3, 4, 5, 5]
    assert [lengths[i] for i in short_text.within(texts, long)] == [9, 9, 10]


def test_length_rule_prefers_the_nearer_mean_then_clips_a_target_below_every_length():
    # [2, 3] (mean 2.67) and [3, 4] (mean 3.5) both hold 3 texts: 2.7 is nearer the first
    assert short_text.length_band([2, 3, 3, 4, 8], 2.7, 3) == (2, 3)
    # no text is shorter than 3 tokens: the range starts at the shortest length there is
    assert short_text.length_band([3, 3, 4, 8], 2.7, 2) == (3, 3)
    assert short_text.length_band([3, 3, 4, 8], 2.7, 3) == (3, 4)


def test_length_rule_refuses_to_ask_for_more_texts_than_there_are():
    with pytest.raises(ValueError, match="only 3 items"):
        short_text.length_band([1, 2, 3], 2.0, 4)


# --------------------------------------------------------------------------- splits


def test_split_is_deterministic_per_seed_stratified_and_disjoint():
    texts = [f"text {i}" for i in range(200)]
    labels = [i % 4 == 0 for i in range(200)]  # 50 positives, 150 negatives
    a, b, c = (short_text.split_parts(texts, labels, seed) for seed in (0, 0, 1))
    assert a == b and a != c
    assert [len(a[p][0]) for p in ("train", "valid", "test")] == [140, 30, 30]
    assert sorted(t for p in a.values() for t in p[0]) == sorted(texts)
    positives = [sum(a[p][1]) for p in ("train", "valid", "test")]
    assert positives[0] == 35 and sorted(positives[1:]) == [7, 8]  # 25 % in each part, as near as 30 allows


def test_twitter_sets_are_deterministic_per_seed_and_in_their_range():
    sizes = {"twitter_s": 100, "twitter_l": 100}
    first, again, other = (short_text.twitter_sets(seed, sizes) for seed in (0, 0, 1))
    assert first["twitter_s"].parts == again["twitter_s"].parts
    assert first["twitter_s"].parts != other["twitter_s"].parts
    for s in first.values():
        lo, hi = s.band
        assert all(lo <= short_text.token_count(t) <= hi for t in s.texts()) and len(set(s.texts())) == 100


def test_multi_intent_labels():
    assert short_text.intent_label("atis_flight#atis_airfare") == "atis_flight"
    assert short_text.intent_label("atis_flight#atis_airfare", "own") == "atis_flight#atis_airfare"
    with pytest.raises(ValueError, match="'first' or 'own'"):
        short_text.intent_label("atis_flight", "both")


def test_readers_match_the_documented_row_counts():
    assert len(short_text.read_tweets()) == 100_000
    assert [len(short_text.read_atis(s)) for s in short_text.ATIS_SPLITS] == [4_478, 500, 893]
    assert short_text.read_atis("train")[0] == ("i want to fly from baltimore to dallas round trip", "atis_flight")


# --------------------------------------------------------------------------- bad input


def test_a_missing_file_names_pearl_data(monkeypatch, tmp_path):
    (tmp_path / "short_text").mkdir()
    monkeypatch.setenv("PEARL_DATA", str(tmp_path))
    with pytest.raises(data.DataError, match=r"atis_train\.tsv is missing.*PEARL_DATA"):
        short_text.read_atis("train")
    with pytest.raises(data.DataError, match=r"negative\.txt is missing.*PEARL_DATA"):
        short_text.read_tweets()


def test_an_unknown_split_or_size_is_refused():
    with pytest.raises(ValueError, match="train, valid, test"):
        short_text.read_atis("dev")
    with pytest.raises(ValueError, match="'full', 'sweep', 'tiny'"):
        short_text.build("exact")


def test_the_sweep_sets_are_seeded_subsets_of_the_full_sets():
    full, sweep = short_text.build("full"), short_text.build("sweep")
    assert short_text.build("sweep")["twitter_l"].parts == sweep["twitter_l"].parts  # deterministic
    for name in ("twitter_s", "twitter_l"):
        for part, (texts, labels) in sweep[name].parts.items():
            assert len(texts) == short_text.SWEEP[part]
            pairs = dict(zip(*full[name].parts[part]))
            assert all(pairs[t] == y for t, y in zip(texts, labels))  # same texts, same labels, same part
        assert sweep[name].info["sweep"] and sweep[name].band == full[name].band
    for name in ("atis_s", "atis_l"):  # small enough to stay whole
        assert sweep[name].parts == full[name].parts


# --------------------------------------------------------------------------- accuracy and the classifier


def test_accuracy_oracle():
    # 3 of 4 right; a gold label the training part never had (-1) is never predicted
    assert classifier.accuracy([0, 1, 2, 2], [0, 1, 1, 2]) == 75.0
    assert classifier.accuracy([0, 1, 1], [0, -1, 1]) == pytest.approx(200 / 3)
    classes, (train, test) = classifier.encode_labels(["b", "a", "b"], ["a", "c", "b"])
    assert classes == ["a", "b"] and train.tolist() == [1, 0, 1] and test.tolist() == [0, -1, 1]
    with pytest.raises(ValueError, match="equally long"):
        classifier.accuracy([0, 1], [0])


def _toy(n, rng):
    """Three classes that a line separates: the class is the position of the largest of three coordinates."""
    x = rng.normal(size=(n, 3)).astype(np.float32)
    return x, [["a", "b", "c"][i] for i in x.argmax(1)]


def test_the_classifier_separates_a_separable_toy_case():
    rng = np.random.default_rng(0)
    parts = {p: _toy(n, rng) for p, n in (("train", 600), ("valid", 200), ("test", 200))}
    x, y = {p: v[0] for p, v in parts.items()}, {p: v[1] for p, v in parts.items()}
    result = classifier.classify_scores(x, y, seeds=(0, 1, 2), config=classifier.ClassifierConfig(lr=1e-2))
    assert result["score"] >= 97.0 and len(result["runs"]) == 3
    assert [r["seed"] for r in result["runs"]] == [0, 1, 2]
    # a test label the training part never had is always an error
    y["test"] = ["z"] * 200
    assert classifier.classify_scores(x, y, seeds=(0,))["score"] == 0.0


def test_seeds_trained_together_match_seeds_trained_alone():
    rng = np.random.default_rng(1)
    parts = {p: _toy(n, rng) for p, n in (("train", 300), ("valid", 100), ("test", 100))}
    x, y = {p: v[0] for p, v in parts.items()}, {p: v[1] for p, v in parts.items()}
    config = classifier.ClassifierConfig(max_epochs=5)
    together = classifier.train_classifiers(x, y, (0, 1), config)
    alone = classifier.train_classifiers(x, y, (1,), config)[0]
    assert together[1]["best_epoch"] == alone["best_epoch"]
    assert together[1]["test_accuracy"] == pytest.approx(alone["test_accuracy"], abs=1.0)


def test_the_classifier_refuses_one_class_or_a_missing_part():
    x = {p: np.zeros((4, 2), np.float32) for p in ("train", "valid", "test")}
    with pytest.raises(ValueError, match="at least two"):
        classifier.train_classifiers(x, {p: ["a"] * 4 for p in x})
    with pytest.raises(ValueError, match="'accuracy' or 'loss'"):
        classifier.train_classifiers(x, {p: ["a", "b"] * 2 for p in x}, config=classifier.ClassifierConfig(stop_on="f1"))
    with pytest.raises(ValueError, match="'valid' is missing"):
        classifier.train_classifiers({"train": x["train"], "test": x["test"]}, {p: ["a", "b"] * 2 for p in x})


# --------------------------------------------------------------------------- the table


def _rows(model, score):
    return [{"model": model, "dataset": d, "score": score, "std": 1.0, "n": 10, "seconds": 1.0, "note": "",
             "size": "full", "details": {}} for d in short_text.SETS]


def test_report_adds_the_seed_mean_beside_the_papers_rows(scratch_output):
    tbl, md = table.report(_rows("pearl-minilm-seed0", 60.0) + _rows("pearl-minilm-seed1", 70.0) + _rows("glove", 50.0),
                           table.TABLE2, ["pearl-minilm-seed0", "pearl-minilm-seed1"], guard=SMOKE.guard)
    mean = tbl[tbl["model"] == "PEARL (ours, MiniLM backbone)"].set_index("dataset")
    assert mean.loc["atis_l", "score"] == 65.0 and mean.loc["atis_l", "std"] == pytest.approx(math.sqrt(50))
    assert (scratch_output / "results" / "table2.md").read_text().startswith("**SMOKE")
    assert "| PEARL-small (40M) | paper | 72.8 ± 0.2 | 78.5 ± 0.5 | 93.7 ± 0.5 | 96.7 ± 0.1 |" in md and "| PEARL seed 1 (MiniLM backbone) |" in md
    assert "average" not in set(tbl["dataset"]) and "| Δ" not in md  # Table 2 has no Avg column, so no delta row
    assert "SMOKE" in (scratch_output / "results" / "table2.tex").read_text()


def test_a_model_without_vectors_gets_a_row_saying_so():
    from pearl.backbones.baselines import CharJaccard

    rows = scoring.run_model("char3gram-jaccard", CharJaccard(), ["atis_s"], size="tiny", log=lambda _: None)
    assert math.isnan(rows[0]["score"]) and "needs phrase vectors" in rows[0]["note"]


def test_the_short_text_sets_are_tasks_scored_and_reused_like_table1s(monkeypatch, tmp_path):
    from pearl.cache import ENV
    from pearl.models import load_model

    monkeypatch.setenv(ENV, str(tmp_path / "cache.sqlite"))  # a cache of its own: nothing scored yet
    glove, quiet = load_model("glove"), dict(size="tiny", log=lambda _: None)
    sets = ["atis_s", "atis_l"]
    first = scoring.run_model("glove", glove, sets, **quiet)
    again = scoring.run_model("glove", glove, sets, **quiet)
    assert [r["score"] for r in again] == [r["score"] for r in first] and [r["dataset"] for r in first] == sets
    assert all(r["details"].get("score_reused") for r in again) and not any(r["details"].get("score_reused") for r in first)
    assert [len(r["details"]["runs"]) for r in first] == [2, 2]  # the smoke size's two classifier seeds
    fresh = scoring.run_model("glove", glove, sets, reuse_scores=False, **quiet)  # every draw is seeded
    assert [r["score"] for r in fresh] == [r["score"] for r in first]
    assert set(SUITES["table2"]) == set(short_text.SETS)


def test_short_atis_queries_are_counted_by_tokens(monkeypatch):
    monkeypatch.setattr(short_text, "read_atis", lambda split: [("to boston", "a"), ("from a to b c", "b"), ("x y z", "c")])
    assert short_text.atis_short_queries(3) == 2 and short_text.atis_short_queries(5) == 3
    made = short_text.ShortTextSet("atis_s", {p: (["a b"], ["x"]) for p in ("train", "valid", "test")}, (1, 3))
    assert short_text.summaries({"atis_s": made}) == [made.summary()]
