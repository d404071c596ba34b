"""Figure 2 live (pearl.display.figure2): the batch comes from the trainer's Collator and its loss
terms from the trainer's compute_loss, on a tiny exported model."""
import matplotlib
import pytest
import torch
from _tiny import LABELS, tiny_corpus, tiny_exported, tiny_hard_negatives

from pearl.display.figure2 import framework_batch, pick_phrase, plot_framework
from pearl.training.batches import Collator
from pearl.training.loss import info_nce
from pearl.training.methods import augmenter_factory
from pearl.training.train import TrainConfig

matplotlib.use("Agg")
NYT = "The New York Times"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    model, tok, folder = tiny_exported(tmp_path_factory.mktemp("m") / "tiny")
    corpus = tiny_corpus() + [(NYT, "NP-ORG")]
    negs = tiny_hard_negatives(corpus)
    cfg = TrainConfig(batch_size=8, hard_negatives=2, char_dim=16)
    return cfg, corpus, negs, folder, model, tok


def test_the_batch_is_the_trainers(setup):
    cfg, corpus, negs, folder, model, tok = setup
    data = framework_batch(cfg, corpus, negs, None, folder, others=3)
    assert data["phrase"] == NYT and data["type"] == "NP-ORG" and data["batch"] == 4 and data["k"] == 2
    assert {t for t, _ in data["hard_negatives"]} <= set(negs[NYT])
    assert set(data["levels"]) == {"char", "token", "phrase"}
    assert data["levels"]["char"][0] != NYT  # a character edit always applies
    # the same Collator call the trainer makes gives the same texts
    phrases = [p for p, _ in corpus]
    collator = Collator(tok, phrases, [LABELS.index(t) for _, t in corpus], negs, augmenter_factory(), 2,
                        cfg.max_length, True, cfg.seed)
    idx = [phrases.index(NYT)] + [phrases.index(t) for t, _, _ in data["in_batch"]]
    originals, augmented, negatives, _ = collator.texts(0, idx)
    assert augmented[0] == data["positive"][0] and [t for t, _ in data["hard_negatives"]] == negatives[:2]
    # the loss terms are eq. 2 and the type cross-entropy over that batch's embeddings
    batch = collator(0, idx)
    with torch.no_grad():
        out = model(**batch["inputs"])
    e = out.embedding
    want = info_nce(e[:4], e[4:8], e[8:], cfg.temperature)
    assert data["parts"]["contrastive"] == pytest.approx(float(want), rel=1e-4)
    assert data["parts"]["loss"] == pytest.approx(data["parts"]["contrastive"] + data["parts"]["type"], rel=1e-5)


def test_without_the_wanted_phrase_it_takes_one_with_hard_negatives():
    corpus = [("a", "NP"), ("b", "NP"), ("c", "NP")]
    assert pick_phrase(corpus, {"c": ["a"]}, NYT) == 2
    assert pick_phrase(corpus, None, "b") == 1


def test_the_figure_names_the_phrase_and_the_loss_terms(setup):
    cfg, corpus, negs, folder, _, _ = setup
    fig = plot_framework(framework_batch(cfg, corpus, negs, None, folder))
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert NYT in texts and "InfoNCE" in texts and "type cross-entropy" in texts and "hard negative" in texts
