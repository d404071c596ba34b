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


def test_table4_share_recipes_and_labels():
    import pandas as pd
    from pearl.experiments import backbones

    assert (backbones.phrase_share(None, "cpu"), backbones.phrase_share(None, "gpu"), backbones.phrase_share(0.5, "gpu")) == \
        (1.0, 0.3, 0.5)
    sources, recipes = backbones.recipes(["minilm", "me5-small"], 0.3)
    assert sources == {"minilm": "minilm", "me5-small": "me5-small"}
    assert [(r.name, r.backbone, r.phrase_share) for r in recipes.values()] == \
        [("share30", "minilm", 0.3), ("share30", "me5-small", 0.3)]
    assert {r.name for r in backbones.recipes(["minilm"], 1.0)[1].values()} == {""}
    table = backbones.with_labels(pd.DataFrame({"backbone": ["minilm", "mlm-wiki"], "gain": [1.0, 2.0]}))
    assert table.columns.tolist() == ["backbone", "label", "kind", "gain"] and table["label"][0] == models.backbone_label("minilm")
    assert table["kind"].tolist() == ["sentence encoder", "raw LM"]


def test_the_raw_lm_gets_a_simcse_control_at_the_same_share():
    from pearl.experiments import backbones

    _, recipes = backbones.recipes(["minilm", "mlm-wiki"], 0.3)
    controls = backbones.control_recipes(recipes)
    assert list(controls) == ["mlm-wiki"]
    c = controls["mlm-wiki"]
    assert (c.method, c.backbone, c.name, c.phrase_share) == ("simcse", "mlm-wiki", "share30", 0.3)
    assert c.folder(0).name == "simcse-mlmwiki-share30-seed0"
