"""PEARL's objective on a batch small enough to compute by hand."""
import math

import pytest
import torch
from pearl.training.loss import info_nce, pu_loss, triplet_loss, type_loss


def _manual_info_nce(orig, aug, neg, t):
    """Eq. 2 written out with plain Python floats: anchors = phrases and copies."""
    def unit(v):
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]

    anchors = [unit(v) for v in orig + aug]
    cands = anchors + [unit(v) for v in neg]
    b, total = len(orig), 0.0
    for i, a in enumerate(anchors):
        pos = i + b if i < b else i - b
        sims = {j: sum(x * y for x, y in zip(a, c)) / t for j, c in enumerate(cands) if j != i}
        total += -sims[pos] + math.log(sum(math.exp(s) for s in sims.values()))
    return total / len(anchors)


def test_info_nce_three_phrases_by_hand():
    # 3 phrases in 2-d, copies slightly rotated, one hard negative per phrase
    orig = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    aug = [[0.9, 0.1], [0.2, 1.0], [1.0, 0.8]]
    neg = [[1.0, -0.5], [-1.0, 1.0], [0.5, 1.0]]
    expected = _manual_info_nce(orig, aug, neg, 0.07)
    got = info_nce(torch.tensor(orig), torch.tensor(aug), torch.tensor(neg), temperature=0.07)
    assert float(got) == pytest.approx(expected, rel=1e-5)
    # and a value checked once with pen and paper at temperature 1, no negatives, exact copies:
    # anchor e1 sees candidates e1' (cos 1), e2 and e2' (cos 0) -> -log(e / (e + 2))
    eye = torch.eye(2)
    assert float(info_nce(eye, eye, temperature=1.0)) == pytest.approx(-math.log(math.e / (math.e + 2)))


def test_hard_negatives_raise_the_loss_when_close():
    orig, aug = torch.tensor([[1.0, 0.0], [0.0, 1.0]]), torch.tensor([[0.95, 0.05], [0.05, 0.95]])
    far = info_nce(orig, aug, torch.tensor([[-1.0, 0.0], [0.0, -1.0]]))
    near = info_nce(orig, aug, torch.tensor([[0.9, 0.1], [0.1, 0.9]]))
    assert float(near) > float(far)


def test_info_nce_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="differ"):
        info_nce(torch.zeros(3, 4), torch.zeros(2, 4))


def test_type_loss_is_cross_entropy():
    logits = torch.tensor([[2.0, 0.0, 0.0]])
    expected = -math.log(math.exp(2) / (math.exp(2) + 2))
    assert float(type_loss(logits, torch.tensor([0]))) == pytest.approx(expected)


def test_triplet_loss_zero_when_negative_far():
    a = torch.tensor([[1.0, 0.0]])
    assert float(triplet_loss(a, a, torch.tensor([[-1.0, 0.0]]), margin=1.0)) == 0.0
    assert float(triplet_loss(a, a, a, margin=1.0)) == pytest.approx(1.0)


def _manual_pu(orig, aug, neg, prior, t, shift):
    """nnPU written out: P = (phrase i, copy i); U = phrase i vs every other phrase, copy, negative."""
    def unit(v):
        n = math.sqrt(sum(x * x for x in v))
        return [x / n for x in v]

    sig = lambda x: 1 / (1 + math.exp(-x))
    o, a, n = [unit(v) for v in orig], [unit(v) for v in aug], [unit(v) for v in neg]
    score = lambda u, v: (sum(x * y for x, y in zip(u, v)) - shift) / t
    zp = [score(o[i], a[i]) for i in range(len(o))]
    zu = [score(o[i], c) for i in range(len(o)) for j, c in enumerate(o + a + n) if j not in (i, len(o) + i)]
    risk_p = prior * sum(sig(-z) for z in zp) / len(zp)
    risk_n = sum(sig(z) for z in zu) / len(zu) - prior * sum(sig(z) for z in zp) / len(zp)
    return risk_p + risk_n if risk_n >= 0 else -risk_n


def test_pu_loss_three_phrases_by_hand():
    orig = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    aug = [[0.9, 0.1], [0.2, 1.0], [1.0, 0.8]]
    neg = [[1.0, -0.5], [-1.0, 1.0], [0.5, 1.0]]
    for prior, t in ((0.05, 0.07), (0.5, 1.0), (0.9, 0.07)):
        expected = _manual_pu(orig, aug, neg, prior, t, 0.5)
        got = pu_loss(torch.tensor(orig), torch.tensor(aug), torch.tensor(neg), prior=prior, temperature=t)
        assert float(got) == pytest.approx(expected, rel=1e-5), (prior, t)


def test_pu_loss_prefers_close_copies_and_checks_prior():
    orig = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    good = pu_loss(orig, torch.tensor([[0.95, 0.05], [0.05, 0.95]]))
    bad = pu_loss(orig, torch.tensor([[0.05, 0.95], [0.95, 0.05]]))
    assert float(good) < float(bad)
    with pytest.raises(ValueError, match="prior"):
        pu_loss(orig, orig, prior=0.0)
