"""The view composition's rule (pearl.training.composition): hand-computed cases of its statistics
and decisions, its settings' ranges, and one vector through training, export and loading."""
import json
import math

import numpy as np
import pytest
import torch
from _tiny import LABELS, tiny_backbone, tiny_train
from pearl.training.composition import CENTRE_ABOVE, cap_weight, compose, resultant_length, total_variance
from pearl.training.train import TrainConfig

#: phrase vectors sharing the direction (1, 0): unit vectors (3, ±1)/sqrt(10), mean (3/sqrt(10), 0)
ANISOTROPIC = np.array([[3.0, 1.0], [3.0, -1.0]])
#: character vectors (1, 0) and (0, 1): unit already, mean (0.5, 0.5), each 0.5 from it squared
CHARS = np.array([[1.0, 0.0], [0.0, 1.0]])


def test_an_anisotropic_backbone_is_centred_and_its_statistics_are_the_hand_computed_ones():
    comp, centre = compose(ANISOTROPIC, CHARS, char_weight=0.5, max_char_share=0.2)
    assert comp.resultant_length == pytest.approx(3 / math.sqrt(10)) and comp.resultant_length > CENTRE_ABOVE
    assert comp.centred and centre.tolist() == [3.0, 0.0]
    # centred: (0, 1) and (0, -1), unit already, variance 1 each; the character part's 0.5
    assert comp.var_phrase == pytest.approx(1.0) and comp.var_char == pytest.approx(0.5)
    # w = 0.5 is under the cap sqrt(0.2 / 0.8 * 1 / 0.5) = sqrt(0.5): kept, share 0.125 / 1.125
    assert comp.char_scale == 0.5 and comp.char_share == pytest.approx(0.125 / 1.125)


def test_a_weight_above_the_cap_is_cut_to_the_chosen_share():
    comp, _ = compose(ANISOTROPIC, CHARS, char_weight=0.9, max_char_share=0.2)
    assert comp.char_scale == pytest.approx(math.sqrt(0.5)) and comp.asked_weight == 0.9
    assert comp.char_share == pytest.approx(0.2)  # 0.5 * 0.5 / (1 + 0.25)
    assert cap_weight(1.0, 0.5, 0.2) == pytest.approx(math.sqrt(0.5))
    uncapped, _ = compose(ANISOTROPIC, CHARS, char_weight=0.9, max_char_share=None)
    assert uncapped.char_scale == 0.9  # no cap: the fixed weight of the recipes before the rule


def test_an_isotropic_backbone_is_left_uncentred():
    phrase = np.array([[1.0, 0.0], [-0.6, 0.8]])  # unit; mean (0.2, 0.4): R = sqrt(0.2) < 1/sqrt(2)
    comp, centre = compose(phrase, CHARS, char_weight=0.25, max_char_share=0.2)
    assert comp.resultant_length == pytest.approx(math.sqrt(0.2)) and not comp.centred
    assert not centre.any()
    assert comp.var_phrase == pytest.approx(1 - 0.2) == pytest.approx(total_variance(phrase))  # R^2 = 1 - V
    forced, m = compose(phrase, CHARS, 0.25, 0.2, centre=True)  # the recipe before the rule: always centred
    assert forced.centred and m.tolist() == pytest.approx([0.2, 0.4])
    assert not compose(ANISOTROPIC, CHARS, 0.25, 0.2, centre=False)[0].centred


def test_resultant_length_by_hand():
    assert resultant_length(np.array([[2.0, 0.0], [5.0, 0.0]])) == pytest.approx(1.0)
    assert resultant_length(np.array([[1.0, 0.0], [-3.0, 0.0]])) == pytest.approx(0.0)


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5, -0.1, float("nan")])
def test_a_share_outside_0_1_names_the_setting_and_its_range(share):
    with pytest.raises(ValueError, match=r"^TrainConfig\.max_char_share = .* is out of range: it must be None .* "
                                         r"or a share in \(0, 1\)"):
        TrainConfig(max_char_share=share)
    assert TrainConfig(max_char_share=None).max_char_share is None


def test_centre_takes_the_rule_or_a_switch():
    assert TrainConfig().centre is None  # the rule decides
    with pytest.raises(ValueError, match=r"^TrainConfig\.centre = 'yes' is out of range: it must be None \(the rule"):
        TrainConfig(centre="yes")


def test_training_applies_the_rule_and_a_resumed_run_keeps_its_scale(tmp_path):
    full = tiny_train(tmp_path / "full", max_char_share=0.001)
    comp = full.model.composition
    assert comp is not None and comp.char_scale < 0.5 == comp.asked_weight  # the cap engaged
    assert comp.char_share == pytest.approx(0.001) and float(full.model.char_scale) == comp.char_scale
    tiny_train(tmp_path / "killed", max_char_share=0.001, stop_at=2)
    resumed = tiny_train(tmp_path / "killed", max_char_share=0.001)
    assert resumed.steps == 2
    torch.testing.assert_close(resumed.model.char_scale, full.model.char_scale, rtol=0, atol=0)
    a, b = full.model.state_dict(), resumed.model.state_dict()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=0, msg=k)


def test_a_checkpoint_without_the_scale_keeps_the_models_own():
    from pearl.training.model import build_model

    model = build_model(tiny_backbone()[0], char_dim=16, char_scale=0.3)
    state = {k: v for k, v in model.state_dict().items() if k != "char_scale"}  # written before the buffer
    model.load_state_dict(state)
    assert float(model.char_scale) == pytest.approx(0.3)


def test_export_records_the_rule_and_loads_the_vector_training_joins(tmp_path):
    from pearl.encode import encode
    from pearl.models import load_model
    from pearl.training.export import export
    from sentence_transformers import SentenceTransformer

    result = tiny_train(tmp_path / "run", max_char_share=0.001)
    model, tok = result.model, result.tokenizer
    path = export(model, tok, tmp_path / "pearl-tiny-rule", labels=LABELS)
    info = json.loads((path / "pearl.json").read_text())
    assert info["char_scale"] == pytest.approx(float(model.char_scale)) and info["char_scale"] < 0.5
    assert info["composition"]["char_scale"] == info["char_scale"] and "char_weight" not in info
    assert info["composition"]["asked_weight"] == 0.5  # the asked w, TrainConfig.char_weight
    assert info["composition"]["max_char_share"] == 0.001 and "resultant_length" in info["composition"]
    phrases = ["The New York Times", "NYTimes", "in 2008", "café au lait"]
    want = torch.nn.functional.normalize(model.embed(tok, phrases), dim=-1).numpy()  # training's join_parts
    np.testing.assert_allclose(encode(load_model(path, device="cpu"), phrases), want, atol=1e-5)
    st = SentenceTransformer(str(path), device="cpu", trust_remote_code=True)
    np.testing.assert_allclose(st.encode(phrases), want, atol=1e-5)


def test_a_folder_exported_before_the_rule_loads_as_it_was(tmp_path):
    """No ``composition`` key: the vector reads only char_scale and phrase_centre, as before."""
    from _tiny import tiny_exported
    from pearl.encode import encode
    from pearl.models import load_model

    model, tok, path = tiny_exported(tmp_path / "pearl-tiny-old")
    info = json.loads((path / "pearl.json").read_text())
    assert "composition" not in info and info["char_scale"] == 0.5
    phrases = ["green tree", "Paris"]
    want = torch.nn.functional.normalize(model.embed(tok, phrases), dim=-1).numpy()
    np.testing.assert_allclose(encode(load_model(path, device="cpu"), phrases), want, atol=1e-5)


def test_a_folder_exported_before_the_applied_scale_had_its_name_loads_as_it_was(tmp_path):
    """Folders exported before the asked weight and the applied scale had a name each hold the scale
    under ``char_weight``, in ``pearl.json``, its ``composition`` and ``2_CharConcat/config.json``: they
    load (pearl and sentence-transformers) with the same vectors and their records read the same scale."""
    from _tiny import tiny_exported
    from pearl.backbones import weights
    from pearl.encode import encode
    from pearl.models import load_model
    from pearl.training.composition import applied_scale
    from pearl.training.export import export
    from sentence_transformers import SentenceTransformer

    model, tok, _ = tiny_exported(tmp_path / "pearl-tiny")
    model.char_scale.fill_(0.3)
    path = export(model, tok, tmp_path / "pearl-tiny-old", labels=LABELS)
    phrases = ["green tree", "Paris", "NYTimes"]
    want = encode(load_model(path, device="cpu", cache=False), phrases)
    config = json.loads((path / "2_CharConcat" / "config.json").read_text())
    config["char_weight"] = config.pop("char_scale")
    (path / "2_CharConcat" / "config.json").write_text(json.dumps(config))
    info = json.loads((path / "pearl.json").read_text())
    info["char_weight"] = info.pop("char_scale")
    info["embedding"] = info["embedding"].replace("char_scale", "char_weight")
    info["sha256"] = weights.digests(path)
    info["settings_sha256"] = weights.settings_digest(info)
    (path / "pearl.json").write_text(json.dumps(info))
    assert applied_scale(info) == pytest.approx(0.3) and applied_scale({"char_weight": 0.1, "asked_weight": 0.25}) == 0.1
    loaded = load_model(path, device="cpu", cache=False)
    np.testing.assert_array_equal(encode(loaded, phrases), want)
    assert float(loaded.model.char_scale) == pytest.approx(0.3)
    st = SentenceTransformer(str(path), device="cpu", trust_remote_code=True)
    np.testing.assert_allclose(st.encode(phrases), want, atol=1e-5)


def _composition_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "scripts" / "composition.py"
    spec = importlib.util.spec_from_file_location("composition_script", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path.parents[1] / "results" / "composition" / "choice.jsonl"


def test_the_default_cap_is_the_one_the_development_splits_chose():
    """TrainConfig.max_char_share is what scripts/composition.py's criterion picks from the committed
    development-split scores (results/composition/choice.jsonl): the default cannot drift from its evidence."""
    import doctest

    script, choice = _composition_script()
    assert doctest.testmod(script).failed == 0  # the criterion's own oracle cases
    rows = [json.loads(x) for x in choice.read_text().splitlines() if x.strip()]
    assert {r["backbone"] for r in rows} == {"minilm", "me5-small"} and {r["set"] for r in rows} == {"bc5cdr dev", "conll dev"}
    assert TrainConfig().max_char_share == script.chosen_share(rows)


def test_the_uncentred_diagnostic_is_each_cap_against_the_untrained_backbone(tmp_path):
    """``--choose --no-centre``'s rows sit beside the rule's as differences from the untrained backbone
    (a hand-made pair of files), and chose nothing: without the file there is no such table."""
    script, _ = _composition_script()
    row = {"backbone": "me5-small", "set": "bc5cdr dev", "untrained": 60.0}
    rule = {**row, **{f"share {s}": 58.0 for s in script.CHOICE_SHARES}}
    never = {**row, **{f"share {s}": 59.5 + s for s in script.CHOICE_SHARES}}
    choice = tmp_path / "choice.jsonl"
    choice.write_text(json.dumps(rule) + "\n")
    assert script.uncentred_notes(choice) == []
    choice.with_name("choice_uncentred.jsonl").write_text(json.dumps(never) + "\n")
    table = script.uncentred_notes(choice)[-1]
    cells = table.frame.iloc[0]
    assert cells["rule 0.01"] == -2.0 and abs(cells["never 0.01"] - (-0.49)) < 1e-9


def test_a_degenerate_vocabulary_is_refused_naming_the_fix():
    """Before: one string, or strings that all give one vector, divided by zero in the character share."""
    same = np.ones((4, 3))
    with pytest.raises(ValueError, match=r"same phrase vector \(variance 0\).*char_distill_vocab"):
        compose(same, CHARS[:4], char_weight=0.5, max_char_share=0.2)
    with pytest.raises(ValueError, match=r"got 1 string: it needs at least two"):
        compose(ANISOTROPIC[:1], CHARS[:1], char_weight=0.5, max_char_share=0.2)
    with pytest.raises(ValueError, match=r"got 0 strings"):
        compose(np.zeros((0, 3)), np.zeros((0, 2)), char_weight=0.5, max_char_share=0.2)
