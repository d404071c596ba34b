"""Augmentation: each sub-operation's invariant, the sampler's levels and seeding, bad inputs,
paraphrase rules, synonym lexicons and their cache."""
import numpy as np
import pytest
from conftest import needs_wordnet
from pearl.corpus import augment as au
from pearl.corpus.paraphrase import (
    HFParaphraser,
    OfflineParaphraser,
    abbreviate,
    acronyms,
    renumber,
)
from pearl.corpus.synonyms import _is_inflection

PHRASES = ["The New York Times", "big dog", "in 2008", "lobster", "a", "x y", "between 1500 and 2000 ft",
           "café au lait", "東京 tower"]
LEXICONS = au.AugmentLexicons(wordnet={"big": ["large"], "dog": ["domestic_dog", "hound"]},
                          glove={"big": ["huge"], "lobster": ["crab"]},
                          paraphrases={"The New York Times": ["NYT", "NYTimes"]})
SEEDS = range(25)


def _runs(op, lexicons=None, min_changed: int = len(SEEDS)):
    """(phrase, output) for every seed and phrase where ``op`` applies (None = not applicable).

    The op must change at least ``min_changed`` of them (one per seed on average): a sub-operation
    that never produces anything, or returns its input, cannot pass its invariant test vacuously.
    """
    outs = []
    for seed in SEEDS:
        rng = np.random.default_rng(seed)
        for p in PHRASES:
            out = op(p, rng, lexicons)
            if out is not None:
                assert isinstance(out, str), f"{op.__name__} returned {type(out).__name__}"
                outs.append((p, out))
    changed = sum(out != p for p, out in outs)
    assert changed >= min_changed, f"{op.__name__} changed only {changed} of {len(SEEDS) * len(PHRASES)} phrases"
    return outs


def _one_removal(longer, shorter):
    return len(longer) == len(shorter) + 1 and any(longer[:i] + longer[i + 1:] == shorter for i in range(len(longer)))


def test_char_swap_swaps_two_adjacent_characters():
    for p, out in _runs(au.char_swap):
        diff = [i for i, (a, b) in enumerate(zip(p, out)) if a != b]
        assert len(out) == len(p) and len(diff) == 2 and diff[1] == diff[0] + 1
        assert out[diff[0]] == p[diff[1]] and out[diff[1]] == p[diff[0]]


def test_char_delete_removes_one_character_never_a_whole_word():
    for p, out in _runs(au.char_delete):
        assert _one_removal(p, out) and len(out.split()) == len(p.split())
    assert au.char_delete("a", np.random.default_rng(0)) is None


def test_char_insert_adds_one_character():
    for p, out in _runs(au.char_insert):
        assert _one_removal(out, p)


def test_char_keyboard_replaces_one_letter_by_a_neighbour():
    keys = au.keyboard_neighbours()
    assert set(keys["g"]) >= {"f", "h", "t", "b"}
    for p, out in _runs(au.char_keyboard):
        diff = [i for i, (a, b) in enumerate(zip(p, out)) if a != b]
        assert len(out) == len(p) and len(diff) == 1
        assert out[diff[0]].lower() in keys[p[diff[0]].lower()]


def test_token_swap_keeps_the_token_multiset():
    for p, out in _runs(au.token_swap):
        assert sorted(out.split()) == sorted(p.split()) and out != p
    assert au.token_swap("lobster", np.random.default_rng(0)) is None


@pytest.mark.parametrize("op, table", [(au.token_wordnet, LEXICONS.wordnet), (au.token_glove, LEXICONS.glove)])
def test_token_synonym_replaces_one_lowercase_token_from_its_table(op, table):
    seen = 0
    for p, out in _runs(op, LEXICONS):
        a, b = p.split(), out.split()
        diff = [(x, y) for x, y in zip(a, b) if x != y]
        assert len(a) == len(b) and len(diff) == 1 and diff[0][1] in table[diff[0][0]]
        seen += 1
    assert seen > 0
    assert op("The New York Times", np.random.default_rng(0), au.AugmentLexicons(wordnet={"new": ["young"]},
                                                                               glove={"new": ["young"]})) is None


def test_phrase_paraphrase_uses_table_then_rules():
    rng = np.random.default_rng(0)
    assert au.phrase_paraphrase("The New York Times", rng, LEXICONS) in {"NYT", "NYTimes"}
    assert au.phrase_paraphrase("12 kilometres", rng, None) in {"12 km", "twelve kilometres"}


def test_augmenter_is_deterministic_under_a_seed():
    run = lambda seed: [au.Augmenter(1, 1, 1, seed, LEXICONS).augment(p) for p in PHRASES * 3]  # noqa: E731
    assert run(7) == run(7)
    assert run(7) != run(8)
    gen = np.random.default_rng(3)
    assert au.Augmenter(1, 1, 1, gen, LEXICONS).rng is gen


def test_levels_with_zero_probability_are_never_used():
    for level, weights in {"char": (1, 0, 0), "token": (0, 1, 0), "phrase": (0, 0, 1)}.items():
        aug = au.Augmenter(*weights, seed_or_rng=0, lexicons=LEXICONS)
        ops = {aug.augment_with_op(p)[0] for p in PHRASES * 5}
        assert ops - {"none"} <= set(au.LEVELS[level]) and ops - {"none"}
    off = au.Augmenter(0, 0, 0, 0, LEXICONS)
    assert all(off.augment(p) == p for p in PHRASES)
    with pytest.raises(ValueError):
        au.Augmenter(-1, 1, 1, 0)


def test_output_differs_when_possible_and_bad_inputs_do_not_crash():
    aug = au.Augmenter(1, 1, 1, 0, LEXICONS)
    for p in PHRASES + ["é", "Ωμέγα", "x" * 5000]:
        assert aug.augment(p) != p
    for p in ["", "   ", "!!", "🙂", "🙂🙂"]:  # no letter, one token: nothing applies
        assert aug.augment(p) == p
    assert aug.augment("") == ""
    with pytest.raises(TypeError):
        aug.augment(None)


def test_variants_give_one_example_per_operation():
    v = au.Augmenter(1, 1, 1, 0, LEXICONS).variants("The New York Times")
    assert set(au.LEVELS["char"]) | {"token_swap", "phrase_paraphrase"} <= set(v)
    assert v["phrase_paraphrase"] in {"NYT", "NYTimes"}
    assert au.Augmenter(1, 1, 1, 0).variants("") == {}


def test_lexicons_round_trip_and_missing(tmp_path):
    au.save_lexicons(LEXICONS, tmp_path)
    back = au.load_lexicons(tmp_path)
    assert back.wordnet == LEXICONS.wordnet and back.paraphrases == LEXICONS.paraphrases
    with pytest.raises(FileNotFoundError, match=r"is missing: build them with pearl\.corpus\.training_inputs\.build_training_inputs"):
        au.load_lexicons(tmp_path / "none")


def test_coverage_shares():
    cov = au.coverage(["The New York Times", "lobster", "big dog"], LEXICONS)
    assert cov["level_char"] == 1.0 and cov["token_glove"] == pytest.approx(2 / 3)
    assert cov["phrase_paraphrase"] == pytest.approx(1 / 3)


def test_paraphrase_rules():
    assert acronyms("The New York Times") == ["NYT", "NYTimes"]
    assert acronyms("Saint Louis") == [] and acronyms("World War II") == []
    assert abbreviate("Saint Louis") == ["St. Louis"] and abbreviate("12 km") == ["12 kilometres"]
    assert renumber("three ships") == ["3 ships"]
    assert renumber("km²") == [] and renumber("¹") == []  # superscripts: str.isdigit() but not int()
    assert OfflineParaphraser(wordnet=False).paraphrase("") == []


@needs_wordnet
def test_wordnet_paraphrases_are_synonyms():
    out = OfflineParaphraser().paraphrase("United States")
    assert {"USA", "United States of America"} <= set(out) and "United States" not in out


def test_hf_paraphraser_offline_error_names_the_fix(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(OSError, match="OfflineParaphraser"):
        HFParaphraser("prithivida/parrot_paraphraser_on_T5").paraphrase("The New York Times")


def test_glove_neighbours_filter_inflections_and_stop_words():
    from pearl.corpus.synonyms import glove_neighbours

    assert _is_inflection("city", "cities") and not _is_inflection("film", "movie")
    out = glove_neighbours(["film", "the", "lobster"], threshold=0.85)
    assert "movie" in out["film"] and "films" not in out["film"] and "the" not in out


def test_figure3_lists_every_operation():
    import matplotlib

    matplotlib.use("Agg")
    from pearl.display.data_figures import plot_figure3

    variants = au.Augmenter(1, 1, 1, 0, LEXICONS).variants("The New York Times")
    fig = plot_figure3("The New York Times", variants)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any(t == "paraphrase: " + variants["phrase_paraphrase"] for t in texts)
    assert any(t == "glove: -" for t in texts)  # names get no synonym: shown as not applicable


def test_augment_many_draws_as_one_by_one_and_the_summary_counts_ops():
    one, two = au.Augmenter(1, 1, 1, 5, LEXICONS), au.Augmenter(1, 1, 1, 5, LEXICONS)
    assert one.augment_many(PHRASES) == [two.augment_with_op(p) for p in PHRASES]
    ops, changed = au.op_summary([("char_swap", "ab"), ("none", "x"), ("char_swap", "cd")], ["ba", "x", "dc"])
    assert ops == {"char_swap": 2, "none": 1} and changed == 2 / 3


def test_a_cut_table_or_meta_json_names_the_file_and_the_fix(tmp_path):
    """Before: a truncated augment/meta.json (or table) failed with a bare JSONDecodeError."""
    from pearl.corpus.augment import AugmentLexicons, load_lexicons, save_lexicons

    folder = save_lexicons(AugmentLexicons(wordnet={"war": ["battle"]}, meta={"phrases": 1}), tmp_path / "augment")
    for name in ("meta.json", "wordnet_synonyms.json"):
        good = (folder / name).read_text()
        (folder / name).write_text(good[: len(good) // 2])
        with pytest.raises(ValueError, match=rf"{name} is damaged: not JSON .*Build the lexicons again .*build_training_inputs"):
            load_lexicons(folder)
        (folder / name).write_text(good)
    assert load_lexicons(folder).wordnet == {"war": ["battle"]}
