"""Hard negatives: blocking, exclusion of the phrase and its augmentations/synonyms, lowest cosine."""
import numpy as np
import pytest
from pearl.corpus import hard_negatives as hn
from pearl.corpus.augment import AugmentLexicons
from pearl.encode import encode

PHRASES = ["the war", "The War", "the wars", "war the", "the warfare", "the conflict", "the way", "the bar",
           "the car", "the ware", "the star", "the wax", "a war", "unrelated lobster pots"]
LEXICONS = AugmentLexicons(wordnet={"war": ["warfare"]}, glove={}, paraphrases={"the war": ["the conflict"]})


def test_blocks_skip_stop_words_and_singletons():
    b = hn.blocks(["the war", "the way", "war games", "lobster"])
    assert b["war"] == [0, 2] and b["~wa"] == [0, 1, 2] and "the" not in b and "lobster" not in b


def test_edit_candidates_are_close_and_blocked():
    cands = hn.edit_candidates(PHRASES, max_distance=0.5)
    close = {PHRASES[j] for j in cands[0]}
    assert "the way" in close and "unrelated lobster pots" not in close and "the war" not in close
    assert cands[PHRASES.index("unrelated lobster pots")] == []


def _reference_candidates(phrases, max_distance, limit, max_block, anchors):
    """The plain definition: each anchor against the union of its blocks, closest first, ties by id."""
    from rapidfuzz.distance import Levenshtein

    by_key = hn.blocks(phrases, max_block)
    out = []
    for i in anchors:
        ids = sorted({j for v in by_key.values() if i in v for j in v} - {i})
        scored = sorted((Levenshtein.normalized_distance(phrases[i], phrases[j]), j) for j in ids)
        out.append([j for d, j in scored if d <= max_distance][:limit])
    return out


@pytest.mark.parametrize("limit, slice_size", [(64, 200_000), (3, 200_000), (4, 2)])
def test_edit_candidates_equal_the_per_anchor_definition(limit, slice_size):
    """Block by block (cdist per block, one sort) gives each anchor's own list: the same pairs, the
    limit closest, ties by id,
    a pair met in two blocks once, anchors in any order and in slices."""
    phrases = PHRASES + ["war games", "star wars", "the wars of the roses", "car war", "the rar"]
    anchors = [3, 0, 7, 13, 15, 0]
    got = hn.edit_candidates(phrases, 0.5, limit, max_block=2000, anchors=anchors, slice_size=slice_size)
    assert got == _reference_candidates(phrases, 0.5, limit, 2000, anchors)
    # "the way", "the bar", "the car", "the wax", "the rar": one letter from "the war", ties by id
    assert got[1][:3] == [6, 7, 8] and phrases[got[1][0]] == "the way"
    everyone = hn.edit_candidates(phrases, 0.34, limit, max_block=5, slice_size=slice_size)
    assert everyone == _reference_candidates(phrases, 0.34, limit, 5, range(len(phrases)))


def test_is_augmentation_rules():
    assert hn.is_augmentation("the war", "The War")  # case
    assert hn.is_augmentation("the war", "the wars")  # plural
    assert hn.is_augmentation("the war", "war the")  # token swap
    assert hn.is_augmentation("the war", "the warfare", LEXICONS)  # WordNet synonym of one token
    assert hn.is_augmentation("the war", "the conflict", LEXICONS)  # paraphrase
    assert hn.is_augmentation("the conflict", "the war", LEXICONS)  # both directions
    assert not hn.is_augmentation("the war", "the warfare")  # without tables it is not known
    assert not hn.is_augmentation("the war", "the star")
    assert not hn.is_augmentation("the war", "the way")  # a real phrase one letter away is a hard negative


def test_mine_excludes_phrase_and_synonyms_and_keeps_lowest_cosine(minilm):
    negs, stats = hn.mine(PHRASES, minilm, k=3, lexicons=LEXICONS)
    got = negs["the war"]
    assert len(got) == 3
    assert not {"the war", "The War", "the wars", "war the", "the warfare", "the conflict"} & set(got)
    vecs = encode(minilm, PHRASES)
    sims = {p: float(vecs[PHRASES.index(p)] @ vecs[0]) for p in PHRASES}
    assert [sims[p] for p in got] == sorted(sims[p] for p in got)
    admissible = [p for p in PHRASES[1:] if p in {PHRASES[j] for j in hn.edit_candidates(PHRASES)[0]}
                  and not hn.is_augmentation("the war", p, LEXICONS)]
    assert set(got) == set(sorted(admissible, key=sims.get)[:3])
    assert stats["phrases"] == len(PHRASES) and stats["share_excluded_as_augmentation"] > 0
    assert "unrelated lobster pots" not in negs


def test_mine_is_deterministic_with_given_vectors():
    rng = np.random.default_rng(0)
    vecs = rng.normal(size=(len(PHRASES), 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    a, _ = hn.mine(PHRASES, None, k=4, lexicons=LEXICONS, vectors=vecs)
    b, _ = hn.mine(PHRASES, None, k=4, lexicons=LEXICONS, vectors=vecs)
    assert a == b and all(p not in v for p, v in a.items())


def test_select_ignores_noise_in_the_seventh_decimal():
    # "b" and "c" tie at cosine 0.6 (one uncased input, say): noise of the size that batching or the
    # embedding cache puts on a vector must not swap them, whichever of the two it favours
    phrases = ["a", "b", "c", "d"]
    base = {0: np.array([1.0, 0.0]), 1: np.array([0.6, 0.8]), 2: np.array([0.6, 0.8]), 3: np.array([0.9, 0.43589])}
    want = hn.select(phrases, [0], [[1, 2, 3]], base, k=2)[0]
    assert want == {"a": ["b", "c"]}
    for eps in (1e-7, -1e-7):
        noisy = {**base, 2: base[2] + np.array([eps, 0.0])}
        assert hn.select(phrases, [0], [[1, 2, 3]], noisy, k=2)[0] == want
        assert hn.select(phrases, [0], [[2, 1, 3]], noisy, k=1)[0] == {"a": ["c"]}  # ties: candidate order


def test_read_write_and_missing(tmp_path):
    path = hn.write_hard_negatives({"the war": ["the way"]}, tmp_path / "hn.json")
    assert hn.read_hard_negatives(path) == {"the war": ["the way"]}
    with pytest.raises(FileNotFoundError, match=r"missing\.json is missing: mine hard negatives first .*build_training_inputs"):
        hn.read_hard_negatives(tmp_path / "missing.json")


def test_mine_on_anchors_only_encodes_what_it_needs():
    rng = np.random.default_rng(1)
    vecs = rng.normal(size=(len(PHRASES), 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    negs, stats = hn.mine(PHRASES, None, k=4, lexicons=LEXICONS, vectors=vecs, anchors=2)
    assert set(negs) <= {"the war", "The War"} and stats["anchors"] == 2


def test_profile_anchors_mine_every_phrase_off_the_cpu_profile():
    from pearl.corpus.hard_negatives import profile_anchors

    assert (profile_anchors("cpu", 10_000), profile_anchors("gpu", 10_000)) == (10_000, 0)


def _word_corpus(n: int = 400, seed: int = 0) -> list[str]:
    """Two- and three-word phrases over a small vocabulary with one-letter neighbours: many shared blocks."""
    rng = np.random.default_rng(seed)
    words = ["war", "way", "bar", "car", "star", "wax", "ware", "warfare", "conflict", "lobster", "pots", "games",
             "roses", "road", "load", "toad", "rad", "river", "rover", "liver"]
    out = {" ".join(rng.choice(["the", "a"] + words, size=rng.integers(2, 4))) for _ in range(n)}
    return sorted(out)


@pytest.mark.parametrize("anchors", [None, 37])
def test_mine_in_worker_processes_gives_the_same_lists(anchors):
    """workers > 1 splits steps 1 to 3 over contiguous parts of the anchors: the same negatives in the
    same order, the same statistics (timings aside), whatever the number of workers."""
    phrases = _word_corpus()
    rng = np.random.default_rng(2)
    vecs = rng.normal(size=(len(phrases), 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    lexicons = AugmentLexicons(wordnet={"war": ["warfare"], "road": ["way"]}, glove={"car": ["bar"]},
                               paraphrases={"the war": ["the conflict"]})
    one, s1 = hn.mine(phrases, None, k=4, lexicons=lexicons, vectors=vecs, anchors=anchors)
    assert sum(map(len, one.values())) > 100  # enough lists for the split to matter
    timings = {"candidates_s", "encode_s", "encode_phrases_per_s"}
    for workers in (2, 3):
        many, s2 = hn.mine(phrases, None, k=4, lexicons=lexicons, vectors=vecs, anchors=anchors, workers=workers)
        assert list(many.items()) == list(one.items())
        assert {k: v for k, v in s2.items() if k not in timings} == {k: v for k, v in s1.items() if k not in timings}


def test_mine_workers_split_the_exact_method_only():
    with pytest.raises(ValueError, match="exact method only"):
        hn.mine(PHRASES, None, vectors=np.eye(len(PHRASES), dtype=np.float32), method="ann", workers=2)
