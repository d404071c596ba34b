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


def _scores(rows):
    import pandas as pd

    return pd.DataFrame(rows, columns=["group", "model", "dataset", "score"])


def test_short_text_gains_on_a_hand_computed_case():
    from pearl.experiments.backbones import short_text_gains

    trained = _scores([("me5", "s0", "a", 80.0), ("me5", "s0", "b", 60.0), ("me5", "s1", "a", 84.0), ("me5", "s1", "b", 64.0)])
    originals = _scores([("me5", "me5", "a", 79.0), ("me5", "me5", "b", 61.0)])
    out = short_text_gains(trained, originals).set_index("dataset")
    # a: seeds 80, 84 -> 82 ± 2.83, gain 3; b: 60, 64 -> 62, gain 1; average: seeds 70, 74 -> 72 against 70
    assert out.loc["a", ["original", "pearl", "gain", "seeds"]].tolist() == [79.0, 82.0, 3.0, 2]
    assert out.loc["b", "gain"] == 1.0 and out.loc["average", "gain"] == 2.0
    assert abs(out.loc["a", "std"] - 8 ** 0.5) < 1e-12
