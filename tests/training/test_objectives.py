"""The neighbours' objectives (SimCSE, Phrase-BERT, PAUSE) on 3-phrase batches of 2-d vectors
worked out by hand, the settings they refuse, and each method trained a few steps on the tiny
model and exported to a folder ``load_model`` reads."""
import dataclasses
import math
import re

import pytest
import torch
from _tiny import CFG, LABELS, tiny_backbone, tiny_corpus, tiny_hard_negatives
from pearl.training.loss import (
    anneal_weight,
    in_batch_negatives,
    nnpu_risk,
    pause_loss,
    phrase_bert_loss,
    simcse_loss,
)
from pearl.training.objectives import OBJECTIVES, labelled_pairs
from pearl.training.train import TrainConfig

configure = TrainConfig.of  # a config from flat settings, shared and the objective's own

T = torch.tensor


def _unit(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def _cos(u, v):
    return sum(x * y for x, y in zip(_unit(u), _unit(v)))


# ------------------------------------------------------------------ SimCSE
def test_simcse_by_hand_at_temperature_one():
    # h = h' = e1, e2, -e1. Row 0 sees cosines 1, 0, -1 with its own view at 1:
    # -log(e / (e + 1 + 1/e)) = log(1 + 1/e + 1/e^2); row 1 sees 0, 1, 0: log(1 + 2/e); row 2 as row 0
    h = T([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
    e = math.e
    expected = (2 * math.log(1 + 1 / e + 1 / e ** 2) + math.log(1 + 2 / e)) / 3
    assert float(simcse_loss(h, h, temperature=1.0)) == pytest.approx(expected, rel=1e-6)


def test_simcse_at_its_temperature_is_one_direction_over_second_views():
    first = [[1.0, 0.2], [0.1, 1.0], [1.0, 1.0]]
    second = [[0.9, 0.3], [0.0, 1.0], [0.8, 1.1]]
    t = 0.05
    expected = 0.0
    for i, h in enumerate(first):
        sims = [_cos(h, g) / t for g in second]  # candidates: every phrase's second view, not the first views
        expected += -sims[i] + math.log(sum(math.exp(s) for s in sims))
    expected /= 3
    assert float(simcse_loss(T(first), T(second), temperature=t)) == pytest.approx(expected, rel=1e-5)
    assert TrainConfig(objective="simcse").temperature == 0.07  # TrainConfig alone keeps what it is given...
    from pearl.training.profiles import config_for

    assert config_for("cpu", objective="simcse")[0].temperature == 0.05  # ...the method's defaults set 0.05


# ------------------------------------------------------------------ Phrase-BERT
# anchors, positives and one negative each, at distances chosen by hand:
# d(a, p) = 5, 1, 3 and d(a, n) = 1, 5, 2
A = T([[0.0, 0.0], [1.0, 1.0], [2.0, 0.0]])
P = T([[3.0, 4.0], [1.0, 2.0], [2.0, 3.0]])
N = T([[0.0, 1.0], [4.0, 5.0], [2.0, -2.0]])


def test_phrase_bert_margin_form_by_hand():
    # relu(5 - 1 + 1) = 5, relu(1 - 5 + 1) = 0, relu(3 - 2 + 1) = 2
    assert float(phrase_bert_loss(A, P, N, margin=1.0)) == pytest.approx(7 / 3, rel=1e-5)


def test_phrase_bert_softmax_form_by_hand():
    # -log(exp(-d+) / (exp(-d+) + exp(-d-))) = log(1 + exp(d+ - d-)): differences 4, -4, 1
    expected = (math.log(1 + math.exp(4)) + math.log(1 + math.exp(-4)) + math.log(1 + math.e)) / 3
    assert float(phrase_bert_loss(A, P, N, form="softmax")) == pytest.approx(expected, rel=1e-5)


def test_phrase_bert_in_batch_negatives_by_hand():
    # anchor 0 (d+ = 5) against p1, p2 at sqrt(5), sqrt(13): 6 - sqrt(5), 6 - sqrt(13);
    # anchor 1 (d+ = 1) against p0, p2 at sqrt(13), sqrt(5): both below zero;
    # anchor 2 (d+ = 3) against p0 at sqrt(17) (zero) and p1 at sqrt(5): 4 - sqrt(5)
    expected = (16 - 2 * math.sqrt(5) - math.sqrt(13)) / 6
    assert float(phrase_bert_loss(A, P, in_batch_negatives(P))) == pytest.approx(expected, rel=1e-5)
    with pytest.raises(ValueError, match="negatives per anchor"):
        phrase_bert_loss(A, P, N[:2])
    with pytest.raises(ValueError, match="form"):
        phrase_bert_loss(A, P, N, form="hinge")


# ------------------------------------------------------------------ PAUSE
def test_annealing_weight_at_three_steps():
    assert [anneal_weight(t, 10) for t in (0, 5, 9)] == pytest.approx([0.0, 0.125, 0.729])  # (t/10)^3
    assert anneal_weight(5, 10, alpha=1.0) == 0.5
    for bad in (0.0, -1.0):
        with pytest.raises(ValueError, match="exponent"):
            anneal_weight(5, 10, alpha=bad)


def test_pause_two_phrases_with_pen_and_paper():
    # orthogonal phrases, exact positives, temperature 1, shift 0.5: a pair scores +0.5 at cosine 1
    # and -0.5 at cosine 0. Only pair (0, positive 0) is labelled: P = {+0.5}; U = phrase 0 vs
    # phrase 1 and positive 1, phrase 1 vs phrase 0 and positive 0 (four at -0.5) and phrase 1 vs
    # its own, unlabelled positive (+0.5)
    s = 1 / (1 + math.exp(-0.5))  # sigmoid(0.5); sigmoid(-0.5) = 1 - s
    prior, w = 0.5, 0.3
    supervised = math.log(1 + math.exp(-0.5))
    risk_n = (4 * (1 - s) + s) / 5 - prior * s  # 0.115 >= 0: the plain PU risk
    pu = prior * (1 - s) + risk_n
    total, sup, got_pu = pause_loss(torch.eye(2), torch.eye(2), None, T([True, False]), prior=prior, weight=w,
                                    temperature=1.0)
    assert (float(sup), float(got_pu), float(total)) == pytest.approx((supervised, pu, supervised + w * pu), rel=1e-6)


def _manual_pause(orig, pos, neg, labelled, prior, weight, t, shift=0.5):
    sig = lambda x: 1 / (1 + math.exp(-x))
    score = lambda u, v: (_cos(u, v) - shift) / t
    b = len(orig)
    cands = orig + pos + neg
    zp = [score(orig[i], pos[i]) for i in range(b) if labelled[i]]
    zu = [score(orig[i], c) for i in range(b) for j, c in enumerate(cands)
          if j != i and not (j == b + i and labelled[i])]
    supervised = sum(math.log(1 + math.exp(-z)) for z in zp) / len(zp)
    risk_p = prior * sum(sig(-z) for z in zp) / len(zp)
    risk_n = sum(sig(z) for z in zu) / len(zu) - prior * sum(sig(z) for z in zp) / len(zp)
    pu = risk_p + risk_n if risk_n >= 0 else -risk_n
    return supervised + weight * pu


def test_pause_three_phrases_by_hand():
    orig = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
    pos = [[0.9, 0.1], [0.2, 1.0], [1.0, 0.8]]
    neg = [[1.0, -0.5], [-1.0, 1.0], [0.5, 1.0]]
    labelled = [True, False, True]
    for prior, w, t in ((0.05, 0.0, 0.07), (0.3, anneal_weight(5, 10), 1.0), (0.9, 1.0, 0.07)):
        expected = _manual_pause(orig, pos, neg, labelled, prior, w, t)
        got, _, _ = pause_loss(T(orig), T(pos), T(neg), T(labelled), prior=prior, weight=w, temperature=t)
        assert float(got) == pytest.approx(expected, rel=1e-5), (prior, w, t)


def test_nnpu_turns_a_negative_risk_around():
    # P scored high, U low, prior large: mean_U sigmoid(z) - prior * mean_P sigmoid(z) < 0
    z_p, z_u = T([4.0, 4.0]), T([-4.0, -4.0, -4.0])
    s4 = 1 / (1 + math.exp(-4))
    bracket = (1 - s4) - 0.9 * s4
    assert bracket < 0 and float(nnpu_risk(z_p, z_u, 0.9)) == pytest.approx(-bracket, rel=1e-6)
    # no labelled pair in the batch: the P terms are 0 (PAUSE divides by max(1, #P))
    assert float(nnpu_risk(T([]), z_u, 0.5)) == pytest.approx(1 - s4, rel=1e-6)


def test_labelled_share_is_seeded():
    a, b = labelled_pairs(200, 0.05, seed=1), labelled_pairs(200, 0.05, seed=1)
    assert a.sum() == 10 and (a == b).all() and not (a == labelled_pairs(200, 0.05, seed=2)).all()
    assert labelled_pairs(10, 0.01, seed=0).sum() == 1  # at least one labelled pair


# ------------------------------------------------------------------ settings refused
@pytest.mark.parametrize("objective, bad, match", [
    ("triplet", {}, "unknown objective"), ("simclr", {}, "unknown objective"),
    ("pause", dict(pu_prior=0.0), "pu_prior"), ("pause", dict(pu_prior=1.0), "pu_prior"),
    ("pause", dict(label_share=0.0), "label_share"), ("pause", dict(label_share=1.5), "label_share"),
    ("pause", dict(pu_anneal=0.0), "pu_anneal"), ("pause", dict(pu_anneal=-3.0), "pu_anneal"),
    ("pearl", dict(temperature=0.0), "temperature"), ("phrase_bert", dict(phrase_bert_form="hinge"), "phrase_bert_form"),
    ("phrase_bert", dict(phrase_bert_margin=-1.0), r"phrase_bert_margin = -1\.0 .*must be"),
    ("pearl", dict(label_share=0.5), "no setting label_share \\(a setting of 'pause'\\)"),  # another method's setting
])
def test_bad_settings_are_refused_with_the_setting_named(objective, bad, match):
    with pytest.raises(ValueError, match=match):
        configure(objective, **bad)


def test_settings_of_another_objective_are_refused():
    from pearl.training.objectives import PauseSettings

    with pytest.raises(ValueError, match="takes PhraseBertSettings, got PauseSettings"):
        TrainConfig(objective="phrase_bert", settings=PauseSettings())
    assert TrainConfig(objective="pause").settings == PauseSettings()  # none given: the objective's defaults


@pytest.mark.parametrize("bad", [
    dict(steps=0), dict(steps=-5), dict(steps=2.5), dict(epochs=0), dict(batch_size=0), dict(batch_size=1),
    dict(lr=0.0), dict(lr=float("nan")), dict(gamma=0.0), dict(gamma=1.5), dict(decay_every=0), dict(seed=-1),
    dict(hard_negatives=-1), dict(char_dim=0), dict(char_weight=float("nan")), dict(char_weight=-0.5),
    dict(char_distill_steps=-1), dict(char_distill_vocab=0), dict(type_weight=float("inf")), dict(head_lr=0.0),
    dict(temperature=float("nan")), dict(average=2.0), dict(average=-1.0), dict(max_length=0),
    dict(length_buckets=0), dict(checkpoint_every=-1), dict(num_workers=-1),
    dict(use_char="yes"), dict(bf16="no"), dict(backbone=""),
    dict(seed=2 ** 32), dict(temperature=0.0), dict(temperature=1e-9), dict(temperature=50.0), dict(device="gpu"),
    dict(device="cuda:x"), dict(device=""), dict(embedding_update="sparse"), dict(embedding_update=None),
])
def test_every_setting_is_range_checked_naming_field_value_and_range(bad):
    """Each field out of range fails at creation, not steps into a run (steps=0 used to train two
    epochs, average=2.0 to extrapolate the weights)."""
    (name, value), = bad.items()
    with pytest.raises(ValueError, match=rf"{name}.*{re.escape(repr(value)) if name != 'temperature' else ''}.*must be"):
        TrainConfig(**bad)


@pytest.mark.parametrize("bad, allowed", [
    (dict(seed=2 ** 32), r"seed = 4294967296 is out of range: it must be an integer in \[0, 2\*\*32 - 1\]"),
    (dict(temperature=1e-9), r"temperature = 1e-09 is out of range: it must be a number in \[0\.001, 1\]"),
    (dict(device="gpu"), r"device = 'gpu' is out of range: it must be None .*'cpu', 'mps', 'cuda' or 'cuda:N'"),
])
def test_seed_temperature_and_device_name_their_range(bad, allowed):
    """These passed the check and failed later: a seed past numpy's range in np.random.seed, a tiny
    temperature as a NaN loss, a misspelt device in torch's .to() steps into the run."""
    with pytest.raises(ValueError, match=rf"^TrainConfig\.{allowed}"):
        TrainConfig(**bad)
    assert TrainConfig(seed=2 ** 32 - 1, temperature=0.001, device="cuda:1").device == "cuda:1"


def test_the_defaults_and_every_profile_pass_the_range_checks():
    from pearl.training.profiles import config_for

    TrainConfig()
    for profile in ("tiny", "cpu", "gpu"):
        for objective in OBJECTIVES:
            config_for(profile, objective=objective)


def test_objectives_are_the_method_names_of_the_folders():
    from pearl.models import folder_name, label, parse_folder_name

    for method, objective in OBJECTIVES.items():
        folder = folder_name(method, "minilm", 3)
        assert parse_folder_name(folder)["method"] == method and label(folder).startswith(objective.label + " seed 3")


def test_the_registry_keeps_the_flat_record_and_the_losses_forms():
    """pearl.json's train_config, checkpoints and runner keys hold one flat dict, as before the
    registry: every objective's settings fields beside the shared ones."""
    from pearl.training.loss import PHRASE_BERT_FORMS
    from pearl.training.objectives import _FORMS

    record = configure("pause", label_share=0.05).record()
    assert record["objective"] == "pause" and record["label_share"] == 0.05 and record["phrase_bert_margin"] == 1.0
    assert "settings" not in record and set(record) == set(TrainConfig().record())
    assert _FORMS == PHRASE_BERT_FORMS


# ------------------------------------------------------------------ SimCSE's dropout
def _collated(k=0):
    from pearl.training.batches import BatchPlan, Collator, identity_augmenter

    corpus = tiny_corpus(16)
    _, tok = tiny_backbone()
    collator = Collator(tok, [p for p, _ in corpus], [LABELS.index(t) for _, t in corpus], None,
                        identity_augmenter, k=k, use_char=False)
    return collator(0, BatchPlan(16, 8, seed=0).indices(0))


def test_simcse_views_differ_by_dropout_alone():
    from pearl.training.model import build_model

    batch = _collated()
    model = build_model(tiny_backbone()[0], use_char=False, use_type_head=False)
    e = model.train()(**batch["inputs"]).embedding
    assert not torch.allclose(e[:8], e[8:16])  # the same phrases, two dropout masks
    with torch.no_grad():
        e = model.eval()(**batch["inputs"]).embedding
    torch.testing.assert_close(e[:8], e[8:16])  # no dropout: identical views


def test_simcse_refuses_eval_mode_and_a_backbone_without_dropout():
    from pearl.training.model import build_model
    from pearl.training.train import compute_loss, train

    model = build_model(tiny_backbone()[0], use_char=False, use_type_head=False).eval()
    with pytest.raises(ValueError, match="train mode"):
        compute_loss(model, _collated(), TrainConfig(objective="simcse", use_char=False, use_type_head=False))
    cfg = TrainConfig(steps=1, objective="simcse", **{**CFG, "use_char": False, "use_type_head": False})
    with pytest.raises(ValueError, match="needs dropout"):
        train(cfg, tiny_corpus(32), None, None, labels=LABELS, progress=False, backbone=tiny_backbone(dropout=0.0))


# ------------------------------------------------------------------ each method, end to end
WORDS = ["new", "york", "times", "paris", "city", "green", "tree", "run", "fast", "bank", "river", "old", "man",
         "small", "house"]


def _tables():
    from pearl.corpus.augment import AugmentLexicons

    # a synonym for every lower-case word of the tiny corpus except "york" and "paris"
    syn = {w: [w[::-1]] for w in WORDS if w not in ("york", "paris")}
    return AugmentLexicons(wordnet=syn, paraphrases={})


@pytest.mark.parametrize("method, extra", [("pearl", {}), ("simcse", {}), ("phrase_bert", {}),
                                           ("phrase_bert", {"hard_negatives": 0}), ("pause", {"label_share": 0.3})])
def test_each_method_trains_and_exports_a_folder_load_model_reads(tmp_path, method, extra):
    from pearl.encode import encode
    from pearl.models import folder_name, label, load_model, parse_folder_name
    from pearl.training.export import export
    from pearl.training.methods import inputs_for
    from pearl.training.train import train

    cfg = configure(method, steps=3, average=1.0, **{**CFG, **OBJECTIVES[method].defaults, **extra})
    corpus, augmenter = inputs_for(cfg, tiny_corpus(48), _tables())
    assert len(corpus) >= 16 and (method not in ("phrase_bert", "pause") or len(corpus) < 48)
    backbone = tiny_backbone()
    before = backbone[0].state_dict()["encoder.layer.0.attention.self.query.weight"].clone()
    result = train(cfg, corpus, tiny_hard_negatives(corpus), augmenter, labels=LABELS, progress=False,
                   backbone=backbone)
    assert len(result.log) == 3 and all(math.isfinite(r["loss"]) for r in result.log)
    assert not torch.equal(before, result.model.backbone.state_dict()["encoder.layer.0.attention.self.query.weight"])
    if method == "pause":  # the PU weight follows (step / total) ** 3 over the run
        assert [r["pu_weight"] for r in result.log] == pytest.approx([0.0, 1 / 27, 8 / 27])
    path = export(result.model, result.tokenizer, tmp_path / folder_name(method, "minilm", 0), labels=LABELS,
                  extra={"train_config": cfg.record()})
    assert parse_folder_name(path.name)["method"] == method and label(path).startswith(
        {"pearl": "PEARL", "simcse": "SimCSE", "phrase_bert": "Phrase-BERT", "pause": "PAUSE"}[method] + " seed 0")
    vectors = encode(load_model(path, device="cpu", cache=False), ["green tree", "old man"])
    assert vectors.shape == (2, result.model.dim) and (method == "pearl") == (result.model.char_encoder is not None)
    assert f"`{method}` objective" in (path / "README.md").read_text() or method == "pearl"


def test_pause_pu_only_trains_on_the_pu_risk_alone_at_weight_one():
    """``pu_only``: the paper's binary positive-only form; the annealing weight is not applied."""
    from torch import nn

    from pearl.training.objectives import contrastive

    orig = T([[1.0, 0.0], [0.0, 1.0]])
    pos = T([[0.8, 0.6], [0.6, 0.8]])
    labelled = T([True, True])
    paper = configure("pause", pu_only=True, temperature=0.1)
    loss, parts = contrastive(paper, nn.Identity(), orig, pos, torch.empty(0, 2), labelled, step=1, total=10)
    _, _, pu = pause_loss(orig, pos, None, labelled, prior=0.05, temperature=0.1)
    assert float(loss) == pytest.approx(float(pu), rel=1e-6) and parts["pu_weight"] == 1.0
    default = dataclasses.replace(paper, settings=dataclasses.replace(paper.settings, pu_only=False))
    loss, parts = contrastive(default, nn.Identity(), orig, pos, torch.empty(0, 2), labelled, step=1, total=10)
    assert parts["pu_weight"] == pytest.approx(1e-3)  # (1/10)^3
    assert float(loss) == pytest.approx(parts["supervised"] + 1e-3 * parts["pu"], rel=1e-6)


# ------------------------------------------------------------------ a new objective
def test_a_toy_objective_is_one_registry_entry_and_trains_two_steps():
    """Adding an objective is one entry: its loss, its settings, its positives, its label. The
    trainer, the config, the record and the model registry then know it."""
    from dataclasses import dataclass

    from pearl import method_names
    from pearl.models import folder_name, label
    from pearl.training.methods import inputs_for
    from pearl.training.objectives import Objective, register
    from pearl.training.train import train

    @dataclass(frozen=True)
    class ToySettings:
        toy_scale: float = 1.0

    def toy_loss(cfg, v):  # pull each phrase towards its positive: 1 - cosine, scaled
        return cfg.settings.toy_scale * (1 - (v.orig * v.aug).sum(-1)).mean(), {"toy": 1.0}

    register(Objective("toy", "Toy", toy_loss, positives="self", settings=ToySettings, defaults={"use_char": False}))
    try:
        cfg = configure("toy", steps=2, toy_scale=2.0, **{**CFG, "use_type_head": False, **OBJECTIVES["toy"].defaults})
        corpus, augmenter = inputs_for(cfg, tiny_corpus(16))
        result = train(cfg, corpus, None, augmenter, labels=LABELS, progress=False, backbone=tiny_backbone())
        assert len(result.log) == 2 and all(math.isfinite(r["loss"]) and r["toy"] == 1.0 for r in result.log)
        assert cfg.record()["toy_scale"] == 2.0 and label(folder_name("toy", "minilm", 0)).startswith("Toy seed 0")
        with pytest.raises(ValueError, match="no setting toy_scale"):
            configure("pearl", toy_scale=1.0)
    finally:
        OBJECTIVES.pop("toy")
        method_names.LABELS.pop("toy")
