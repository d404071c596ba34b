"""A tiny random BERT with all-MiniLM-L6-v2's tokenizer and a synthetic labelled corpus:
the training tests run in seconds and need no data files."""
import numpy as np
import torch


def tiny_backbone(seed: int = 0, dropout: float = 0.1):
    from pearl.models import resolve
    from transformers import AutoTokenizer, BertConfig, BertModel

    tokenizer = AutoTokenizer.from_pretrained(resolve("minilm"))
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                        intermediate_size=64, max_position_embeddings=64, hidden_dropout_prob=dropout,
                        attention_probs_dropout_prob=dropout)
    return BertModel(config, add_pooling_layer=False), tokenizer


#: a TrainConfig for the tiny model: seconds per run, every component on
CFG = dict(batch_size=8, lr=1e-3, char_dim=16, char_distill_steps=5, char_distill_vocab=64, epochs=2)

LABELS = ["NP-ORG", "NP-PERSON", "NP-GPE", "VP"]
WORDS = "new york times paris city green tree run fast bank river old man small house".split()


def tiny_corpus(n: int = 48, seed: int = 0):
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(n):
        k = int(rng.integers(1, 4))
        phrase = " ".join(rng.choice(WORDS, k)) + f" {i}"
        rows.append((phrase, LABELS[i % len(LABELS)]))
    return rows


def tiny_hard_negatives(corpus):
    phrases = [p for p, _ in corpus]
    return {p: [phrases[(i + j) % len(phrases)] for j in (1, 2, 3)] for i, p in enumerate(phrases)}


def swap_augmenter(rng):
    """A stand-in augmenter for tests: drops one random character."""
    def augment(phrase):
        i = int(rng.integers(len(phrase)))
        return phrase[:i] + phrase[i + 1:]
    return augment


def tiny_train(run_dir, steps=4, stop_at=None, **kw):
    """One training run of the tiny backbone on :func:`tiny_corpus` (32 phrases), checkpointing
    every 2 steps into ``run_dir``; ``kw`` overrides :data:`CFG` (``pearl.training.train.train``'s result)."""
    from pearl.training.train import TrainConfig, train

    corpus = tiny_corpus(32)
    cfg = TrainConfig(steps=steps, checkpoint_every=2, **{**CFG, **kw})
    return train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, run_dir=run_dir,
                 stop_at=stop_at, progress=False, backbone=tiny_backbone())


def tiny_exported(folder):
    """``(model, tokenizer, path)``: an untrained tiny PEARL model (seed 0, 16-d character part,
    a type head over :data:`LABELS`, its phrase part centred on five phrases) exported to ``folder``."""
    from pearl.training.export import export
    from pearl.training.model import build_model

    backbone, tok = tiny_backbone()
    torch.manual_seed(0)
    model = build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval()
    # a centre of its own, as training leaves one: round trips then cover the centring too
    model.estimate_centre(tok, ["the New York Times", "in 2008", "green tree", "café au lait", "run"])
    return model, tok, export(model, tok, folder, labels=LABELS)
