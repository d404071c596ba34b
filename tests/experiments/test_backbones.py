"""The offline Table-4 backbones are MiniLM cut to fewer layers, written once, loadable by name."""
import pytest

from pearl import models
from pearl.experiments.backbones import truncated_minilm


def test_truncated_minilm_keeps_the_first_layers(minilm):
    import torch
    from transformers import AutoModel

    folder = truncated_minilm(2)
    assert folder.name == "minilm.l2" and truncated_minilm(2) == folder  # written once
    cut, full = AutoModel.from_pretrained(folder), AutoModel.from_pretrained(models.resolve("minilm"))
    assert len(cut.encoder.layer) == 2
    assert torch.equal(cut.encoder.layer[1].output.dense.weight, full.encoder.layer[1].output.dense.weight)
    assert models.folder_name("pearl", str(folder), 0) == "pearl-minilm.l2-seed0"
    assert models.backbone_label(str(folder)) == "MiniLM first 2 of 6 layers"


def test_out_of_range_layers():
    with pytest.raises(ValueError, match="keep 0 to 5"):
        truncated_minilm(6)
