"""pearl.training.flops: a training step's FLOPs, on cases counted by hand."""
import torch

from pearl.training.char_encoder import CharEncoder
from pearl.training.flops import char_forward, encoder_forward


def test_an_encoder_layer_counts_its_projections_feed_forward_and_attention():
    """One layer, hidden 2, feed-forward 4, a text of 2 tokens: projections and feed-forward
    2 x 2 x (4 x 4 + 2 x 2 x 4) = 128, attention 4 x 2^2 x 2 = 32; two layers of two such texts, 4x."""
    assert encoder_forward(torch.tensor([2]), layers=1, hidden=2, ffn=4) == 160
    assert encoder_forward(torch.tensor([2, 2]), layers=2, hidden=2, ffn=4) == 640


def test_the_character_encoder_counts_its_convolutions_and_its_linear_layer():
    """Embedding 2, 3 filters of width 2, out 4, one text of 3 bytes: 2 x 2 x 3 x 2 x 3 = 72 for the
    convolution, 2 x 3 x 4 = 24 for the linear layer."""
    enc = CharEncoder(out_dim=4, emb_dim=2, filters=3, widths=(2,))
    assert char_forward(torch.tensor([3]), enc) == 96
