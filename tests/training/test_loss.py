"""PEARL's objective on a batch small enough to compute by hand (the neighbours': test_objectives.py)."""
import math

import pytest
import torch
from pearl.training.loss import info_nce, type_loss


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
