"""The PEARL model: dimensions, the type head's label index, and the ablation switches."""
import numpy as np
import pytest
import torch
from _tiny import swap_augmenter, tiny_backbone, tiny_corpus, tiny_hard_negatives
from pearl.training.char_encoder import CharEncoder, char_ids, distill_init
from pearl.training.model import build_model


def test_type_head_shape_and_label_index():
    from pearl.corpus.phrases import LABELS as ALL
    from pearl.corpus.phrases import label_index

    backbone, tok = tiny_backbone()
    model = build_model(backbone, char_dim=16, num_labels=len(ALL))
    out = model(**model.inputs(tok, ["the New York Times", "in 2008", "run"]))
    assert out.embedding.shape == (3, 32 + 16) and model.dim == 48
    assert out.type_logits.shape == (3, 95) and model.type_head.in_features == model.dim
    idx = label_index()
    assert len(ALL) == 95 and [idx[label] for label in ALL] == list(range(95))


def test_embedding_is_the_documented_concatenation():
    backbone, tok = tiny_backbone()
    model = build_model(backbone, char_dim=16, char_scale=0.5).eval()
    emb = model(**model.inputs(tok, ["green tree"])).embedding[0]
    assert float(emb[:32].norm()) == pytest.approx(1.0, abs=1e-5)
    assert float(emb[32:].norm()) == pytest.approx(0.5, abs=1e-5)


def test_switches_remove_their_component():
    backbone, tok = tiny_backbone()
    no_char = build_model(backbone, use_char=False)
    assert no_char.char_encoder is None and no_char.dim == 32
    assert not any("char" in n for n, _ in no_char.named_parameters())
    assert "char_ids" not in no_char.inputs(tok, ["a b"])
    no_head = build_model(backbone, use_type_head=False, char_dim=16)
    assert no_head.type_head is None and no_head(**no_head.inputs(tok, ["a b"])).type_logits is None
    assert not any("type_head" in n for n, _ in no_head.named_parameters())


def _first_batch(**cfg_kwargs):
    from pearl.training.batches import BatchPlan, Collator, identity_augmenter

    corpus = tiny_corpus(16)
    backbone, tok = tiny_backbone()
    phrases = [p for p, _ in corpus]
    aug = cfg_kwargs.pop("augmenter", swap_augmenter)
    negs = cfg_kwargs.pop("hard_negatives", tiny_hard_negatives(corpus))
    col = Collator(tok, phrases, [0] * 16, negs, aug, k=cfg_kwargs.pop("k", 2), **cfg_kwargs)
    plan = BatchPlan(16, 4, seed=0)
    return col.texts(0, plan.indices(0)), col(0, plan.indices(0)), identity_augmenter


def test_switches_remove_augmentation_and_hard_negatives():
    from pearl.training.batches import identity_augmenter

    (orig, aug, negs, _), batch, _ = _first_batch()
    assert aug != orig and len(negs) == 8 and batch["inputs"]["input_ids"].shape[0] == 16
    (orig, aug, negs, _), batch, _ = _first_batch(augmenter=identity_augmenter, k=0)  # the count alone switches them off
    assert aug == orig and negs == [] and batch["inputs"]["input_ids"].shape[0] == 8
    _, _, negs, _ = _first_batch(hard_negatives=None)[0]  # no mined pools: k random corpus phrases each
    assert len(negs) == 8 and set(negs) <= {p for p, _ in tiny_corpus(16)}
    _, batch, _ = _first_batch(use_char=False)
    assert "char_ids" not in batch["inputs"]


def test_type_weight_zero_and_no_head_drop_the_type_loss():
    from pearl.training.train import TrainConfig, compute_loss

    _, batch, _ = _first_batch()
    backbone, _ = tiny_backbone()
    torch.manual_seed(0)
    model = build_model(backbone, char_dim=16, num_labels=4).eval()
    _, with_head = compute_loss(model, batch, TrainConfig())
    model.type_head = None
    _, without = compute_loss(model, batch, TrainConfig())
    assert "type" in with_head and "type" not in without
    assert without["loss"] == pytest.approx(with_head["contrastive"], rel=1e-5)


def test_char_ids_handle_unicode_and_truncate():
    ids = char_ids(["café", "東京", "x" * 500])
    assert ids.shape == (3, 48) and int(ids[0, 3]) == 0xC3 + 1  # é is two UTF-8 bytes
    assert CharEncoder(out_dim=8)(ids).shape == (3, 8)


def test_distillation_brings_the_char_encoder_towards_its_teacher():
    rng = np.random.default_rng(0)
    phrases = [f"word{i} thing{i % 7}" for i in range(80)]
    teacher = rng.normal(size=(80, 32)).astype(np.float32)
    torch.manual_seed(0)
    losses = distill_init(CharEncoder(out_dim=8), phrases, teacher, steps=60, batch_size=32)
    assert np.mean(losses[-10:]) < np.mean(losses[:10])
    with pytest.raises(ValueError, match="teacher vectors"):
        distill_init(CharEncoder(out_dim=8), phrases, teacher[:5])


def test_length_buckets_give_the_same_vectors():
    backbone, tok = tiny_backbone()
    model = build_model(backbone, char_dim=16).eval()
    batch = model.inputs(tok, ["a", "the new york times company of paris", "green tree", "run fast now", "x"])
    one = model(**batch).embedding
    three = model(**batch, buckets=3).embedding
    torch.testing.assert_close(one, three, atol=1e-5, rtol=1e-5)


def test_the_phrase_part_is_centred_on_the_training_vocabulary():
    from pearl.encode import mean_pool

    backbone, tok = tiny_backbone()
    model = build_model(backbone, char_dim=16).eval()
    assert float(model.phrase_centre.abs().sum()) == 0  # no centre until one is estimated
    vocab = ["green tree", "the New York Times", "in 2008", "run"]
    centre = model.estimate_centre(tok, vocab)
    with torch.no_grad():
        batch = tok(vocab, padding=True, return_tensors="pt")
        raw = mean_pool(backbone(**batch).last_hidden_state, batch["attention_mask"])
        np.testing.assert_allclose(centre.numpy(), raw.mean(0).numpy(), atol=1e-5)
        emb = model(**model.inputs(tok, vocab)).embedding
        want = torch.nn.functional.normalize(raw - raw.mean(0), dim=-1)
    np.testing.assert_allclose(emb[:, :32].numpy(), want.numpy(), atol=1e-5)
    no_char = build_model(backbone, use_char=False).eval()
    no_char.phrase_centre.fill_(1.0)  # without a character part the phrase vector is never centred
    with torch.no_grad():
        plain = no_char(**no_char.inputs(tok, vocab)).embedding
    np.testing.assert_allclose(plain.numpy(), torch.nn.functional.normalize(raw, dim=-1).numpy(), atol=1e-5)
