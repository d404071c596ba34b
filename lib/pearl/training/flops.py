"""The FLOPs of one PEARL training step, counted from the model's shapes and the batch's real lengths.

A step encodes every text of the batch (phrases, copies, hard negatives) through the backbone and
the character encoder, scores every phrase against every candidate and (with the head) classifies
the phrases and their copies; backward costs twice the forward (the usual 3x rule). Counted per
text on its own length (padding is not useful work), for a BERT-shaped backbone:

- a layer: ``2 L (4 h^2 + 2 h f)`` for the projections and the feed-forward, ``4 L^2 h`` for the
  attention scores and their weighted sum (``L`` tokens, hidden ``h``, feed-forward ``f``);
- the character encoder: ``2 C e F w`` per convolution of width ``w`` over ``C`` bytes (embedding
  ``e``, ``F`` filters), then its linear layer;
- the loss's similarities ``2 B (2 + k) B d`` and the type head ``2 (2B) d labels``.

What it leaves out: element-wise work (softmax, layer norm, GELU, Adam), which is memory-bound and
small beside the matrix products at these widths; the word-embedding lookup (no FLOPs).
"""
from __future__ import annotations

import torch


def encoder_forward(lengths: torch.Tensor, layers: int, hidden: int, ffn: int) -> float:
    """Forward FLOPs of a BERT-shaped encoder over texts of ``lengths`` tokens."""
    L = lengths.double()
    return float(layers * (2 * L * (4 * hidden ** 2 + 2 * hidden * ffn) + 4 * L ** 2 * hidden).sum())


def char_forward(byte_lengths: torch.Tensor, encoder) -> float:
    """Forward FLOPs of :class:`pearl.training.char_encoder.CharEncoder` over texts of ``byte_lengths`` bytes."""
    c = encoder.config
    convs = sum(2 * c["emb_dim"] * c["filters"] * w for w in c["widths"]) * float(byte_lengths.double().sum())
    return convs + 2 * c["filters"] * len(c["widths"]) * c["out_dim"] * len(byte_lengths)


def step_flops(model, batch: dict) -> float:
    """Training FLOPs (forward and backward) of ``model`` (a :class:`pearl.training.model.PearlModel`)
    on ``batch`` (the Collator's or :class:`pearl.training.arrays.StepArrays`' dict)."""
    cfg = model.backbone.config
    inputs, b = batch["inputs"], batch["n"]
    texts = len(inputs["input_ids"])
    forward = encoder_forward(inputs["attention_mask"].sum(1), cfg.num_hidden_layers, cfg.hidden_size,
                              cfg.intermediate_size)
    if model.char_encoder is not None:
        forward += char_forward((inputs["char_ids"] > 0).sum(1), model.char_encoder)
    forward += 2 * b * (texts - b) * model.dim  # each phrase against every copy and negative
    if model.type_head is not None:
        forward += 2 * 2 * b * model.dim * model.num_labels
    return 3 * forward
