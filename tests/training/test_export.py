"""Export round trip: SentenceTransformer(path) and encode() both load the whole PEARL encoder."""
import json

import numpy as np
import pytest
import torch
from _tiny import LABELS, tiny_backbone
from pearl.encode import encode
from pearl.models import load_model
from pearl.training.export import export, load_pearl
from pearl.training.model import build_model

PHRASES = ["The New York Times", "NYTimes", "in 2008", "café au lait"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    backbone, tok = tiny_backbone()
    torch.manual_seed(0)
    model = build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval()
    path = export(model, tok, tmp_path_factory.mktemp("m") / "pearl-tiny", labels=LABELS)
    return model, tok, path


def test_encode_round_trip(exported):
    model, tok, path = exported
    info = json.loads((path / "pearl.json").read_text())
    assert info["dim"] == 48 and info["phrase_dim"] == 32 and info["char_dim"] == 16 and info["labels"] == LABELS
    enc = load_model(path, device="cpu")
    assert enc.dim == 48
    got = encode(enc, PHRASES)
    want = torch.nn.functional.normalize(model.embed(tok, PHRASES), dim=-1).numpy()
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_sentence_transformers_loads_the_whole_model(exported):
    """SentenceTransformer gives the full embedding (phrase + character parts), as pearl's encode()."""
    from sentence_transformers import SentenceTransformer

    model, tok, path = exported
    # sentence-transformers >= 6 asks trust_remote_code for any module class outside its own
    # namespace, installed packages included: here that is pearl.training.st_modules
    st = SentenceTransformer(str(path), device="cpu", trust_remote_code=True)
    got = st.encode(PHRASES)
    want = encode(load_model(path, device="cpu"), PHRASES)
    assert got.shape == (len(PHRASES), 48)
    assert np.abs(got - want).max() <= 1e-5


def test_a_folder_without_the_character_part_loads_in_sentence_transformers(tmp_path):
    from sentence_transformers import SentenceTransformer

    backbone, tok = tiny_backbone()
    model = build_model(backbone, use_char=False, num_labels=len(LABELS)).eval()
    path = export(model, tok, tmp_path / "pearl-tiny-nochar", labels=LABELS)
    got = SentenceTransformer(str(path), device="cpu").encode(PHRASES)
    np.testing.assert_allclose(got, encode(load_model(path, device="cpu"), PHRASES), atol=1e-5)


def test_the_folder_has_a_model_card(exported):
    card = (exported[2] / "README.md").read_text()
    assert "PEARL" in card and "all-MiniLM-L6-v2 stands in" in card and "trust_remote_code=True" in card


def test_type_head_and_char_encoder_round_trip(exported):
    model, tok, path = exported
    loaded, _, _ = load_pearl(path)
    for k, v in model.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[k], v, msg=k)


def test_not_a_pearl_folder_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="pearl.training.export.export"):
        load_pearl(tmp_path)


def test_a_smoke_export_says_smoke_and_never_replaces_a_full_model(exported, tmp_path, monkeypatch):
    import shutil

    from pearl import paths

    model, tok, full = exported
    monkeypatch.setenv(paths.SMOKE_ENV, "1")
    smoke = export(model, tok, tmp_path / "pearl-tiny-smoke", labels=LABELS)
    assert json.loads((smoke / "pearl.json").read_text())["SMOKE"].startswith("SMOKE run")
    assert "**SMOKE run" in (smoke / "README.md").read_text()
    export(model, tok, smoke, labels=LABELS)  # a smoke folder may be rewritten by a smoke run
    copy = shutil.copytree(full, tmp_path / "full")
    with pytest.raises(FileExistsError, match="holds a full-size model and this is a SMOKE run"):
        export(model, tok, copy, labels=LABELS)
