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


# ------------------------------------------------------------------ the neighbours' papers
# Oracles for Phrase-BERT's and PAUSE's losses, from the equations of their papers (text copies
# in the shared papers folder), on cases small enough to do by hand; the numbers in the
# comments were worked out on paper (4-digit checks), the asserts carry 7 digits.

def test_phrase_bert_is_the_papers_triplet_loss_on_unit_vectors():
    """Phrase-BERT §3.1: ``max(||a - p|| - ||a - n|| + eps, 0)``, ``||.||`` the L2 norm, margin
    eps = 1, averaged over triplets. Vectors are the unit vectors the model outputs."""
    from pearl.training.loss import phrase_bert_loss

    a = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    p = torch.tensor([[0.6, 0.8], [0.0, 1.0]])
    n = torch.tensor([[0.0, 1.0], [0.6, 0.8]])
    # triplet 0: ||a-p|| = sqrt(0.4^2 + 0.8^2) = sqrt(0.8) = 0.8944, ||a-n|| = sqrt(2) = 1.4142
    #            -> 0.8944 - 1.4142 + 1 = 0.4802
    # triplet 1: ||a-p|| = 0, ||a-n|| = sqrt(0.6^2 + 0.2^2) = sqrt(0.4) = 0.6325 -> 1 - 0.6325 = 0.3675
    # mean: (0.4802 + 0.3675) / 2 = 0.4239
    # tolerance 1e-5: torch's pairwise_distance (as sentence-transformers' TripletLoss, which
    # trained the released Phrase-BERT) adds eps = 1e-6 to each coordinate difference
    expected = (math.sqrt(0.8) - math.sqrt(2) + 1 + 1 - math.sqrt(0.4)) / 2
    assert expected == pytest.approx(0.42387905, abs=1e-8)
    assert float(phrase_bert_loss(a, p, n)) == pytest.approx(expected, abs=1e-5)


def test_phrase_bert_distance_is_euclidean_on_the_vectors_given():
    """No normalisation inside the loss (the paper's vectors are raw mean-pooled BERT outputs):
    doubling triplet 0 doubles both distances, 2 * 0.8944 - 2 * 1.4142 + 1 = -0.0396 -> 0."""
    from pearl.training.loss import phrase_bert_loss

    a, p, n = torch.tensor([[2.0, 0.0]]), torch.tensor([[1.2, 1.6]]), torch.tensor([[0.0, 2.0]])
    assert float(phrase_bert_loss(a, p, n)) == 0.0
    # with margin 2 instead: 2 * 0.8944 - 2 * 1.4142 + 2 = 0.9604
    assert float(phrase_bert_loss(a, p, n, margin=2.0)) == pytest.approx(2 * math.sqrt(0.8) - 2 * math.sqrt(2) + 2,
                                                                         rel=1e-6)


# PAUSE §3.3, eq. 8-9, with the sigmoid loss l(a, b) = (1 + e^(a b))^-1 and class prior pi:
#   R_p+ = mean_P sigmoid(-z), R_p- = mean_P sigmoid(z), R_u- = mean_U sigmoid(z)
#   R = 1{R_u- - pi R_p- >= 0} pi R_p+ + max(R_u- - pi R_p-, pi R_p- - R_u-)
# A pair's score here is z = (cos(u, v) - 0.5) / temperature (the library's stand-in for the
# paper's pair classifier: pearl.training.loss.pause_loss). At temperature 0.1 the cosines
# 0.8, 0.6, 0 and -1 score z = 3, 1, -5 and -15.
# Hand values: sigmoid(3) = 0.95257, sigmoid(-3) = 0.04743, sigmoid(1) = 0.73106,
# sigmoid(-5) = 0.00669, sigmoid(5) = 0.99331, sigmoid(-15) = 3.06e-7.
_O = torch.tensor([[1.0, 0.0], [0.0, 1.0]])  # two orthogonal phrases
_P = torch.tensor([[4.0, 3.0], [0.6, 0.8]])  # their positives: (4, 3) is (0.8, 0.6) x 5, normalised by the loss


def _sig(x):
    return 1 / (1 + math.exp(-x))


def test_pause_pu_risk_is_the_papers_eq_8_by_hand():
    from pearl.training.loss import pause_loss

    # both pairs labelled (every positive pair, as in the methods table), prior pi = 0.05:
    # P = {z(o0, p0), z(o1, p1)} = {3, 3} (cosine 0.8)
    # U = o0 vs o1 (cos 0 -> -5), o0 vs p1 (cos 0.6 -> 1), o1 vs o0 (-5), o1 vs p0 (1)
    # R_p+ = 0.04743, R_p- = 0.95257, R_u- = (2 * 0.00669 + 2 * 0.73106) / 4 = 0.36888
    # bracket = 0.36888 - 0.05 * 0.95257 = 0.32125 >= 0 -> R = 0.05 * 0.04743 + 0.32125 = 0.32362
    r_u = (2 * _sig(-5) + 2 * _sig(1)) / 4
    bracket = r_u - 0.05 * _sig(3)
    risk = 0.05 * _sig(-3) + bracket
    assert risk == pytest.approx(0.3236183, abs=1e-7)
    labelled = torch.tensor([True, True])
    pu_only, sup, pu = pause_loss(_O, _P, None, labelled, prior=0.05, temperature=0.1, supervised=False)
    assert float(pu) == pytest.approx(risk, rel=1e-6)
    # the paper's binary case with positive labels only: "the overall loss will fall back to L_PU"
    assert float(pu_only) == pytest.approx(risk, rel=1e-6)
    # the library's default adds eq. 2 on the labelled (all positive) pairs: -log sigmoid(3) = 0.04859,
    # and weighs the PU risk by the annealing (t / T)^3, here 0.125
    total, _, _ = pause_loss(_O, _P, None, labelled, prior=0.05, weight=0.125, temperature=0.1)
    assert float(sup) == pytest.approx(math.log(1 + math.exp(-3)), rel=1e-6)
    assert float(total) == pytest.approx(math.log(1 + math.exp(-3)) + 0.125 * risk, rel=1e-6)


def test_pause_negative_risk_below_zero_keeps_only_its_opposite():
    from pearl.training.loss import pause_loss

    # opposite phrases, exact positives, prior 0.5: P = {5, 5} (cos 1), U = four pairs at cos -1 (-15)
    # bracket = sigmoid(-15) - 0.5 * sigmoid(5) = 3.06e-7 - 0.49665 = -0.49665 < 0
    # eq. 8 drops the positive risk: R = max(bracket, -bracket) = 0.49665
    o = torch.tensor([[1.0, 0.0], [-1.0, 0.0]])
    _, _, pu = pause_loss(o, o.clone(), None, torch.tensor([True, True]), prior=0.5, temperature=0.1)
    assert float(pu) == pytest.approx(0.5 * _sig(5) - _sig(-15), rel=1e-6)
    assert float(pu) == pytest.approx(0.4966533, abs=1e-7)


def test_pause_defaults_are_the_documented_ones():
    """Temperature 0.07 and shift 0.5 (the score map), prior 0.05, annealing exponent 3 (PAUSE §3.4)."""
    import inspect

    from pearl.training.loss import anneal_weight, pause_loss
    from pearl.training.train import TrainConfig

    defaults = {k: v.default for k, v in inspect.signature(pause_loss).parameters.items()}
    assert (defaults["temperature"], defaults["shift"], defaults["supervised"]) == (0.07, 0.5, True)
    s = TrainConfig(objective="pause").settings
    assert (s.pu_prior, s.pu_anneal, s.pu_only) == (0.05, 3.0, False)
    assert anneal_weight(1, 2) == 0.125  # (t / T)^alpha, alpha = 3: (1/2)^3
