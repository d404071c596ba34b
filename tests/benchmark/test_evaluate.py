"""Oracle tests: every evaluator on a tiny case whose answer is computed by hand."""
import numpy as np
import pytest
from pearl.benchmark import evaluate as ev
from pearl.backbones.baselines import CharJaccard
from pearl.benchmark.probe import PAPER_PROBE, ProbeConfig, probe_scores, split_indices
from pearl.encode import Encoder


def fake(table: dict) -> Encoder:
    """An Encoder whose vectors are looked up in ``table`` (phrase -> vector)."""
    dim = len(next(iter(table.values())))
    return Encoder(name="fake", dim=dim, fn=lambda ps: np.array([table[p] for p in ps], dtype=np.float32))


def test_turney_argmax_with_tie_credit():
    model = fake({"b1": [1, 0], "g1": [0.9, 0.1], "d1": [0, 1],       # gold wins
                  "b2": [1, 0], "g2": [0, 1], "d2": [1, 0.1],         # distractor wins
                  "b3": [1, 0], "g3": [1, 1], "d3": [1, 1]})          # tie: half credit
    items = [("b1", ["g1", "d1"]), ("b2", ["g2", "d2"]), ("b3", ["g3", "d3"])]
    assert ev.evaluate_turney(model, items)["score"] == pytest.approx(100 * 1.5 / 3)


def test_turney_with_string_similarity():
    items = [("night club", ["nightclub", "dance"]), ("fire man", ["cat", "dog"])]  # 2nd: all tie at 0
    assert ev.evaluate_turney(CharJaccard(), items)["score"] == pytest.approx(100 * (1 + 0.5) / 2)


def test_bird_pearson_of_cosines():
    model = fake({"a": [1, 0], "b": [1, 0], "c": [0, 1], "d": [1, 1]})
    rows = [("a", "b", 0.9), ("a", "c", 0.1), ("a", "d", 0.6)]        # cosines 1, 0, 0.7071
    expected = np.corrcoef([1, 0, 2 ** -0.5], [0.9, 0.1, 0.6])[0, 1]
    assert ev.evaluate_bird(model, rows)["score"] == pytest.approx(100 * expected, abs=1e-4)


def test_top1_by_hand_ties_go_to_the_lower_index():
    keys = np.array([[0, 1], [1, 0], [1, 0], [0.6, 0.8]])
    queries = np.array([[1, 0], [0, 1], [0.8, 0.6]])  # inner products: (0 1 1 .6), (1 0 0 .8), (.6 .8 .8 .96)
    for qb, kb in [(1, 1), (2, 3), (8, 8)]:  # a tie split across key blocks too
        assert ev.top1(queries, keys, qb, kb).tolist() == [1, 0, 3]


def test_top1_blocked_matches_numpy_argmax():
    rng = np.random.default_rng(0)
    queries, keys = rng.standard_normal((37, 8)), rng.standard_normal((101, 8))
    keys[50] = keys[7]  # an exact duplicate: both blocks see the same value, the lower index wins
    assert (ev.top1(queries, keys, 5, 16) == np.argmax(queries.astype(np.float32) @ keys.astype(np.float32).T, 1)).all()
    with pytest.raises(ValueError, match="at least one key"):
        ev.top1(queries, keys[:0])


@pytest.mark.parametrize("index", ["flat", "ivf"])
def test_retrieval_counts_misses_and_dedupes(index):
    model = fake({"m1": [1, 0], "m2": [0, 1], "Alpha": [1, 0.05], "Beta": [0.1, 1], "Gamma": [0, 1]})
    pairs = [("m1", "Alpha"), ("m2", "Beta")]                          # m2 -> Gamma: a miss
    out = ev.evaluate_retrieval(model, pairs, ["Alpha", "Gamma", "Alpha", "Beta"], index=index)
    assert out["score"] == 50.0
    assert out["dictionary_size"] == 3 and out["gold_missing_from_dictionary"] == 0
    assert out["gold_only_score"] == 100.0 and out["gold_only_size"] == 2


def test_retrieval_gold_missing_is_a_miss():
    model = fake({"m1": [1, 0], "Alpha": [1, 0], "Beta": [0, 1]})
    out = ev.evaluate_retrieval(model, [("m1", "Alpha")], ["Beta"], gold_only=False)
    assert out["score"] == 0.0 and out["gold_missing_from_dictionary"] == 1


def test_retrieval_with_string_similarity():
    out = ev.evaluate_retrieval(CharJaccard(), [("New York", "new york"), ("Pariss", "Paris")],
                                ["new york", "Paris", "Newark"])
    assert out["score"] == 100.0


def test_clustering_nmi_perfect_and_chance():
    model = fake({"p1": [1, 0], "p2": [0.9, 0.1], "l1": [0, 1], "l2": [0.1, 0.9]})
    assert ev.evaluate_clustering(model, [("p1", "PER"), ("p2", "PER"), ("l1", "LOC"), ("l2", "LOC")])["score"] == pytest.approx(100)
    # types cut across the two clusters: NMI 0
    assert ev.evaluate_clustering(model, [("p1", "PER"), ("p2", "LOC"), ("l1", "PER"), ("l2", "LOC")])["score"] == pytest.approx(0, abs=1e-9)
    with pytest.raises(ev.NotApplicable):
        ev.evaluate_clustering(CharJaccard(), [("a", "X"), ("b", "Y")])


def test_the_old_clustering_protocol_stays_reachable_and_an_unknown_one_names_both():
    """``protocol="single-seed"`` is the tables' former KMeans(k, random_state=seed, n_init=10) on
    the same float32 vectors (pearl.benchmark.clustering holds the default protocol's tests)."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import normalized_mutual_info_score

    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 4)).astype(np.float32)
    x /= np.linalg.norm(x, axis=1, keepdims=True)
    model = fake({f"p{i}": v for i, v in enumerate(x)})
    mentions = [(f"p{i}", "abc"[i % 3]) for i in range(len(x))]
    old = ev.evaluate_clustering(model, mentions, seed=3, protocol="single-seed")
    found = KMeans(n_clusters=3, random_state=3, n_init=10).fit_predict(ev.encode(model, [m for m, _ in mentions]))
    assert old["score"] == pytest.approx(100 * normalized_mutual_info_score([t for _, t in mentions], found))
    assert old["protocol"] == "single-seed" and "nmi_std" not in old
    assert "nmi_std" in ev.evaluate_clustering(model, mentions, seed=3)  # the default: the lowest-inertia protocol
    with pytest.raises(ValueError, match="'best' is not one of.*lowest-inertia.*single-seed"):
        ev.evaluate_clustering(model, mentions, protocol="best")


def test_autofj_set_and_average():
    model = fake({"r1": [1, 0], "r2": [0, 1], "r3": [1, 1], "L1": [1, 0.1], "L2": [0.1, 1], "L3": [1, 0]})
    left, right = ["L1", "L2", "L3"], ["r1", "r2", "r3"]
    # r1 is nearest L3 (identical vector), so truth r1 -> L1 is a miss; r3 has no truth: skipped
    one = ev.evaluate_autofj_set(model, left, right, [("r1", "L1"), ("r2", "L2")])
    assert one["accuracy"] == 50.0 and one["n"] == 2
    two = ev.evaluate_autofj_set(model, left, right, [("r1", "L1"), ("r1", "L3"), ("r2", "L2")])
    assert two["accuracy"] == 100.0
    avg = ev.evaluate_autofj(model, {"a": (left, right, [("r1", "L1"), ("r2", "L2")]), "b": (left, right, [("r2", "L2")])})
    assert avg["score"] == 75.0 and avg["per_set"] == {"a": 50.0, "b": 100.0}


def test_split_indices_partition_and_seeded():
    tr, va, te = split_indices(20, seed=3)
    assert sorted(np.concatenate([tr, va, te]).tolist()) == list(range(20))
    assert (len(tr), len(va), len(te)) == (14, 3, 3)
    assert np.array_equal(split_indices(20, seed=3)[0], tr) and not np.array_equal(split_indices(20, seed=4)[0], tr)


def test_probe_learns_separable_pairs_and_is_deterministic():
    rng = np.random.default_rng(0)
    left = rng.normal(size=(1000, 8)).astype(np.float32)
    right = rng.normal(size=(1000, 8)).astype(np.float32)
    labels = (left[:, 0] + right[:, 0] > 0).astype(int)               # linearly separable
    cfg = ProbeConfig(lr=1e-2, max_epochs=30)
    a = probe_scores(left, right, labels, seeds=(0, 1), config=cfg)
    b = probe_scores(left, right, labels, seeds=(0, 1), config=cfg)
    assert a["score"] > 90 and a["n_test"] == 150
    assert a["score"] == b["score"] and a["std"] == b["std"]           # same seed, same numbers
    assert all(r["epochs"] <= 30 and r["best_epoch"] <= r["epochs"] for r in a["runs"])


def test_probe_chance_on_random_labels():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(600, 4)).astype(np.float32)
    out = probe_scores(x, x[::-1].copy(), rng.integers(0, 2, 600), seeds=(0,), config=ProbeConfig(max_epochs=20))
    assert 30 < out["score"] < 70 and out["std"] == 0.0


def test_ppdb_evaluator_with_fake_encoder_and_string_model():
    vecs = {f"p{i}": [1.0, i % 2, (i * 7) % 5 / 5] for i in range(200)}
    pairs = [(f"p{i}", f"p{(i + 1) % 200}", i % 2) for i in range(200)]
    out = ev.evaluate_ppdb(fake(vecs), pairs, seeds=(0,), config=ProbeConfig(lr=1e-2, max_epochs=50))
    assert out["score"] > 90 and out["n"] == 200                       # label = parity of the left phrase
    with pytest.raises(ev.NotApplicable):
        ev.evaluate_ppdb(CharJaccard(), pairs)


def test_probe_leaves_the_callers_random_state_alone():
    """Scoring PPDB must not reseed the caller's torch generator."""
    import torch

    rng = np.random.default_rng(0)
    x = rng.normal(size=(60, 8)).astype(np.float32)
    torch.manual_seed(123)
    expected = torch.rand(3)
    torch.manual_seed(123)
    probe_scores(x, x[::-1].copy(), (x[:, 0] > 0).astype(int), seeds=(0,), config=ProbeConfig(max_epochs=2))
    assert torch.equal(torch.rand(3), expected)


def test_ppdb_evaluator_adds_the_paper_probe_on_the_same_vectors():
    vecs = {f"p{i}": [1.0, i % 2, (i * 7) % 5 / 5] for i in range(200)}
    pairs = [(f"p{i}", f"p{(i + 1) % 200}", i % 2) for i in range(200)]
    out = ev.evaluate_ppdb(fake(vecs), pairs, seeds=(0,), paper_probe=True)
    direct = probe_scores(np.array([vecs[a] for a, _, _ in pairs], np.float32),
                          np.array([vecs[b] for _, b, _ in pairs], np.float32), [y for *_, y in pairs], seeds=(0,),
                          config=PAPER_PROBE)
    assert out["paper_probe"]["score"] == direct["score"] and out["paper_probe"]["runs"] == direct["runs"]
    assert "paper_probe" not in ev.evaluate_ppdb(fake(vecs), pairs, seeds=(0,), config=ProbeConfig(max_epochs=2))
