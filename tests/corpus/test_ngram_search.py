"""The approximate candidate search: exhaustive settings give exact mining, bad settings a clear error."""
import numpy as np
import pytest
from pearl.corpus import hard_negatives as hn
from pearl.corpus import ngram_search as ns
from pearl.corpus.augment import AugmentLexicons

PHRASES = ["the war", "The War", "the wars", "war the", "the warfare", "the conflict", "the way", "the bar",
           "the car", "the ware", "the star", "the wax", "a war", "unrelated lobster pots", "lobster pot",
           "lobsters pots", "red lobster", "the wax seal", "a car park", "car parks"]
LEXICONS = AugmentLexicons(wordnet={"war": ["warfare"]}, glove={}, paraphrases={"the war": ["the conflict"]})
EXHAUSTIVE = ns.AnnSettings(dim=64, nlist=4, nprobe=4, probe=len(PHRASES))


def test_exhaustive_ivf_equals_exact_candidates():
    for limit in (3, 5, 32):
        exact = hn.edit_candidates(PHRASES, max_distance=0.5, limit=limit)
        assert ns.candidates(PHRASES, max_distance=0.5, limit=limit, settings=EXHAUSTIVE) == exact
    # hand-checked for "the war": the four at 1/7 by id, then "The War" (2/7), "a war" (3/7), "the wax seal" (6/12)
    assert exact[0] == [6, 7, 8, 11, 1, 12, 17]


def test_exhaustive_ann_mining_equals_exact_mining():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(PHRASES), 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    exact, stats_e = hn.mine(PHRASES, None, k=4, lexicons=LEXICONS, vectors=vecs)
    approx, stats_a = hn.mine(PHRASES, None, k=4, lexicons=LEXICONS, vectors=vecs, method="ann", ann=EXHAUSTIVE)
    assert approx == exact and exact["the war"]
    assert stats_a["method"] == "ann" and "method" not in stats_e  # the exact path's statistics keep their keys


def test_a_narrow_search_misses_candidates_but_only_returns_valid_ones():
    exact = hn.edit_candidates(PHRASES, limit=32)
    narrow = ns.candidates(PHRASES, limit=2, settings=ns.AnnSettings(dim=64, nlist=4, nprobe=1, probe=2))
    assert all(set(a) <= set(e) for a, e in zip(narrow, exact)) and all(len(a) <= 2 for a in narrow)


def test_hnsw_runs_and_stays_within_exact():
    exact = hn.edit_candidates(PHRASES, limit=32)
    got = ns.candidates(PHRASES, limit=32, settings=ns.AnnSettings(index="hnsw", dim=64, probe=32, ef_search=64))
    assert all(set(a) <= set(e) for a, e in zip(got, exact)) and any(got)


@pytest.mark.parametrize("settings, limit, fix", [
    (dict(index="lsh"), 32, "choose one of ivf, hnsw"),
    (dict(nlist=4, nprobe=8), 32, "nprobe = nlist is the exhaustive search"),
    (dict(nlist=50), 32, "use nlist <= 20"),
    (dict(probe=8), 32, "probe >= 32"),
    (dict(dim=4), 32, "use dim >= 8"),
    (dict(ngrams=(3, 2)), 32, "1 <= low <= high"),
    (dict(index="hnsw", ef_search=16, probe=32), 32, "ef_search >= probe=32"),
])
def test_bad_settings_name_the_fix(settings, limit, fix):
    with pytest.raises(ValueError, match=fix):
        ns.candidates(PHRASES, limit=limit, settings=ns.AnnSettings(**settings))


def test_unknown_method_names_the_choices():
    with pytest.raises(ValueError, match="'exact'.*'ann'"):
        hn.mine(PHRASES, None, vectors=np.eye(len(PHRASES), dtype=np.float32), method="faiss")


def test_ngram_vectors_are_unit_and_deterministic():
    a, b = ns.ngram_vectors(PHRASES, dim=32), ns.ngram_vectors(PHRASES, dim=32)
    assert np.array_equal(a, b) and np.allclose(np.linalg.norm(a, axis=1), 1)
