"""Averaged GloVe and character 3-gram Jaccard: hand-computed cases."""
import numpy as np
import pytest
from pearl.backbones.baselines import (
    CharJaccard,
    GloVeAverager,
    char3grams,
    glove_tokens,
    jaccard,
    load_glove_encoder,
)
from pearl.encode import encode


def test_glove_tokens_lowercase_and_split_punctuation():
    assert glove_tokens("Río de Janeiro's") == ["río", "de", "janeiro", "'", "s"]
    assert glove_tokens("C++ 3.5") == ["c", "+", "+", "3", ".", "5"]


def test_averager_means_known_words_and_skips_oov():
    avg = GloVeAverager(["new", "york"], np.array([[1.0, 0.0], [0.0, 3.0]]))
    out = avg(["New York", "new zzz", "zzz qqq"])
    np.testing.assert_allclose(out, [[0.5, 1.5], [1.0, 0.0], [0.0, 0.0]])
    assert avg.coverage(["New York", "zzz"]) == 0.5


def test_glove_encoder_through_encode():
    model = load_glove_encoder()
    assert model.dim == 50 and model.extra["vocabulary"] == 400_000
    v = encode(model, ["king", "queen", "carrot", "qqqzzzxq"])
    assert v.shape == (4, 50)
    assert v[0] @ v[1] > v[0] @ v[2]          # king is closer to queen than to carrot
    assert np.allclose(v[3], 0)                # all-OOV phrase: the zero vector, documented
    np.testing.assert_allclose(np.linalg.norm(v[:3], axis=1), 1, atol=1e-6)


def test_char3grams_and_jaccard():
    assert char3grams("ab") == {" ab", "ab "}
    assert jaccard("abc", "abc") == 1.0
    assert jaccard("ab", "cd") == 0.0
    # " abc", "abc ", vs " abd": {' ab','abc','bc '} & {' ab','abd','bd '} = 1 of 5
    assert jaccard("abc", "abd") == pytest.approx(1 / 5)


def test_charjaccard_matrix_paired_and_nearest_agree_with_scalar():
    sim = CharJaccard()
    q, k = ["night", "New York", "x"], ["nacht", "new york city", "nights", "zz"]
    m = sim.matrix(q, k)
    expected = np.array([[jaccard(a, b) for b in k] for a in q])
    np.testing.assert_allclose(m, expected, atol=1e-6)
    np.testing.assert_allclose(sim.paired(q, k[:3]), np.diag(expected[:, :3]), atol=1e-6)
    assert list(sim.nearest(q[:2], k, chunk=1)) == [2, 1]
