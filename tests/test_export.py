"""Export round trip: SentenceTransformer(path) loads the phrase encoder and encode() the full PEARL encoder."""
import json

import numpy as np
import pytest
import torch
from _tiny import LABELS, tiny_backbone

from pearl.encode import encode, load_model
from pearl.export import export, load_pearl
from pearl.model import build_model

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


def test_sentence_transformers_loads_the_phrase_encoder(exported):
    from sentence_transformers import SentenceTransformer

    model, tok, path = exported
    st = SentenceTransformer(str(path), device="cpu")
    got = st.encode(PHRASES, normalize_embeddings=True)
    want = model.embed(tok, PHRASES)[:, :32].numpy()  # the phrase part is already unit length
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_type_head_and_char_encoder_round_trip(exported):
    model, tok, path = exported
    loaded, _, _ = load_pearl(path)
    for k, v in model.state_dict().items():
        torch.testing.assert_close(loaded.state_dict()[k], v, msg=k)


def test_not_a_pearl_folder_names_the_fix(tmp_path):
    with pytest.raises(FileNotFoundError, match="pearl.export"):
        load_pearl(tmp_path)
