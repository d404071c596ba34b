"""The two views' shares of the PEARL embedding: hand-computed cases and the anisotropy mechanism."""
import numpy as np
import pytest
import torch
from pearl.experiments.views import join, nmi, split_surface, total_variance, view_report
from pearl.training.model import join_parts


def test_total_variance_by_hand():
    # points (0,0), (2,0), (0,2), (2,2): each coordinate has variance 1, so the trace is 2
    assert total_variance(np.array([[0, 0], [2, 0], [0, 2], [2, 2]])) == pytest.approx(2.0)


def test_numpy_join_is_the_models_join():
    rng = np.random.default_rng(0)
    p, c, m = rng.normal(size=(5, 8)) + 3, rng.normal(size=(5, 4)), rng.normal(size=8)
    want = join_parts(torch.tensor(p, dtype=torch.float32), torch.tensor(c, dtype=torch.float32), 0.25,
                      torch.tensor(m, dtype=torch.float32)).numpy()
    np.testing.assert_allclose(join(p, c, 0.25, m), want, atol=1e-6)


def anisotropic_fixture(n=200, seed=0):
    """Phrase vectors sharing one dominant direction (norm 10) whose entity type moves them by
    +-0.5 along another; character vectors that split on a surface feature unrelated to the type."""
    rng = np.random.default_rng(seed)
    types = np.array(["chemical", "disease"] * (n // 2))
    surface = rng.integers(0, 2, n)  # e.g. "starts with a capital", independent of the type
    phrase = np.zeros((n, 16))
    phrase[:, 0] = 10.0
    phrase[:, 1] = np.where(types == "chemical", 0.5, -0.5)
    phrase += rng.normal(scale=0.1, size=phrase.shape)
    chars = rng.normal(scale=0.3, size=(n, 8))
    chars[:, 0] += np.where(surface == 1, 1.0, -1.0)
    return phrase, chars, types, surface


def test_an_anisotropic_phrase_view_hands_the_split_to_the_character_view():
    phrase, chars, types, surface = anisotropic_fixture()
    old = view_report(phrase, chars, 0.25, types)  # the uncentred join
    assert old["nmi_phrase"] > 90  # the phrase view alone knows the types ...
    assert old["char_share"] > 0.8  # ... but holds little of the joined embedding's variance
    assert old["nmi_embedding"] < 10  # so 2-means follows the character view
    _, clusters = nmi(join(phrase, chars, 0.25), types)
    assert abs(np.corrcoef(clusters, surface)[0, 1]) > 0.9  # it splits on the surface feature
    centred = view_report(phrase, chars, 0.25, types, centre=phrase.mean(0))
    assert centred["char_share"] < 0.1 and centred["nmi_embedding"] > 90


def test_split_surface_counts_by_hand():
    rows = split_surface(["NaCl", "fever", "HIV", "cough", "Asthma"], [0, 1, 0, 1, 1])
    assert rows[1] == {"cluster": 1, "n": 3, "first_upper": pytest.approx(1 / 3), "all_caps_token": 0.0,
                       "mean_chars": pytest.approx(16 / 3)}
