"""Export round trip: SentenceTransformer(path) and encode() both load the whole PEARL encoder."""
import json
import re
from pathlib import Path

import numpy as np
import pytest
import torch
from _tiny import LABELS, tiny_backbone, tiny_exported
from pearl.encode import encode
from pearl.models import load_model
from pearl.training.export import export, load_pearl, write_card
from pearl.training.model import build_model

PHRASES = ["The New York Times", "NYTimes", "in 2008", "café au lait"]


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    return tiny_exported(tmp_path_factory.mktemp("m") / "pearl-tiny")


def test_encode_round_trip(exported):
    model, tok, path = exported
    info = json.loads((path / "pearl.json").read_text())
    assert info["dim"] == 48 and info["phrase_dim"] == 32 and info["char_dim"] == 16 and info["labels"] == LABELS
    assert info["loader"] == "pearl.training.export:load_encoder"  # what pearl.models.load_model runs on it
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
    assert "PEARL" in card and "all-MiniLM-L6-v2 (22M parameters, shipped on PyPI) stands in" in card
    assert "trust_remote_code=True" in card and "## Intended use" in card and "## Limitations" in card
    assert "Not scored yet" in card and "pearl.benchmark.scoring" in card and "04_benchmark" not in card


ABSOLUTE = re.compile(r"(?<![\w.:/~-])(?:/|~/|[A-Za-z]:\\)[\w.-]+[/\\]")


def test_absolute_path_pattern():
    assert ABSOLUTE.search("SentenceTransformer('/work/main/models/x')")
    assert ABSOLUTE.search("at ~/models/x") and ABSOLUTE.search(r"C:\Users\me")
    assert not ABSOLUTE.search("see results/table1.md or https://huggingface.co/x/y and 3.8M/4")


def cards() -> list[Path]:
    """Every model card the checkout's models/ holds (a batch run's exports)."""
    return sorted((Path(__file__).resolve().parents[2] / "models").glob("*/README.md"))


def card_of(exported, folder: Path, train_config: dict, scores=None) -> str:
    """The card of a copy of the exported folder's pearl.json with ``train_config``."""
    info = json.loads((exported[2] / "pearl.json").read_text())
    folder.mkdir()
    (folder / "pearl.json").write_text(json.dumps({**info, "train_config": train_config}))
    return write_card(folder, scores).read_text()


def test_no_card_names_an_absolute_path(exported, tmp_path):
    """A card written here (its backbone given as a machine path, with scores) and every exported card."""
    card = card_of(exported, tmp_path / "pearl-e5-small-seed0",
                   {"backbone": str(tmp_path / "backbones" / "e5-small"), "seed": 0, "steps": 10},
                   {"PPDB": 80.0, "Avg": float("nan")})
    assert "| backbone | e5-small |" in card and "| 80.0 | n/a |" in card and "Not scored yet" not in card
    for text in [card] + [c.read_text() for c in cards()]:
        assert str(tmp_path) not in text and not ABSOLUTE.search(text), ABSOLUTE.search(text)


def test_card_header_is_metadata_the_hub_reads(exported, tmp_path):
    from huggingface_hub import ModelCard

    card = card_of(exported, tmp_path / "pearl-minilm-seed0", {"backbone": "minilm", "seed": 0})
    data = ModelCard(card).data.to_dict()
    assert data["library_name"] == "sentence-transformers" and data["license"] == "apache-2.0"
    assert data["base_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert "sentence-transformers" in data["tags"] and data["datasets"] == ["Salesforce/wikitext"]


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

    model, tok, full = exported
    from harness.scale import SMOKE

    smoke = export(model, tok, tmp_path / "pearl-tiny-smoke", labels=LABELS, guard=SMOKE.guard)
    info = json.loads((smoke / "pearl.json").read_text())  # what the harness's guard notes, pearl writes as given
    assert info["smoke"] is True and info["note"].startswith("SMOKE run")
    assert "**SMOKE run" in (smoke / "README.md").read_text()
    export(model, tok, smoke, labels=LABELS, guard=SMOKE.guard, replace=True)  # a smoke run may rewrite a smoke folder
    copy = shutil.copytree(full, tmp_path / "full")
    with pytest.raises(FileExistsError, match=r"full.*pearl\.json says its scale\) and this is a SMOKE run"):
        export(model, tok, copy, labels=LABELS, guard=SMOKE.guard)
    before = {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()}
    info = copy / "pearl.json"
    info.write_text(info.read_text()[:40])  # cut short: its scale cannot be told, so it is refused too
    before[info] = info.read_bytes()
    with pytest.raises(ValueError, match=r"pearl.json is not valid JSON .*cannot be told.*scratch folder"):
        export(model, tok, copy, labels=LABELS, guard=SMOKE.guard)
    assert {p: p.read_bytes() for p in copy.rglob("*") if p.is_file()} == before


def _files(folder: Path) -> dict:
    return {p.relative_to(folder): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("kill_at", ["weights", "pearl.json", "rename"])
def test_a_killed_re_export_leaves_the_old_verified_model(exported, tmp_path, monkeypatch, kill_at):
    """A re-export stopped at the weights, at pearl.json or at the rename (a kill, a full disk) leaves the
    folder holding the old model, whole and verified, and no staging folder that a later export keeps."""
    import shutil

    from pearl import atomic
    from pearl.backbones import weights
    from pearl.training import export as export_module

    model, tok, full = exported
    folder = shutil.copytree(full, tmp_path / "pearl-tiny-seed0")
    before = _files(folder)
    other = build_model(tiny_backbone()[0], char_dim=16, num_labels=len(LABELS)).eval()
    torch.nn.init.normal_(other.type_head.weight)  # another model: other bytes

    def killed(*_a, **_k):
        raise OSError(28, "No space left on device")

    target = {"weights": (export_module, "save_file"), "pearl.json": (export_module, "write_json"),
              "rename": (atomic, "_exchange")}[kill_at]
    if kill_at == "weights":
        import safetensors.torch
        target = (safetensors.torch, "save_file")
    monkeypatch.setattr(*target, killed)
    with pytest.raises(OSError, match="No space left"):
        export(model if kill_at != "rename" else other, tok, folder, labels=LABELS, replace=True)
    monkeypatch.undo()
    assert _files(folder) == before
    weights.verify(folder)
    assert load_pearl(folder)[2]["sha256"] == json.loads((full / "pearl.json").read_text())["sha256"]
    assert [p.name for p in tmp_path.iterdir()] == ["pearl-tiny-seed0"]  # the staging folder is gone
    export(other, tok, folder, labels=LABELS, replace=True)  # and the next export puts the new one in place whole
    weights.verify(folder)
    torch.testing.assert_close(load_pearl(folder)[0].type_head.weight, other.type_head.weight)


def test_a_kill_between_the_two_renames_gives_the_old_model_back(exported, tmp_path, monkeypatch):
    """Where the file system cannot exchange two folders, the old one is set aside first: a kill before
    the new one is renamed in leaves it aside, and the next export of the folder puts it back first."""
    import os
    import shutil

    from pearl import atomic

    model, tok, full = exported
    folder = shutil.copytree(full, tmp_path / "pearl-tiny-seed0")
    before = _files(folder)
    staged = atomic.staging_folder(folder)
    (staged / "x").write_text("new")
    aside = tmp_path / f".pearl-tiny-seed0.{os.getpid()}.old"
    os.rename(folder, aside)  # what swap_folder's fallback does first; then the kill
    assert not folder.exists()
    again = atomic.staging_folder(folder)  # the next export's first step
    assert _files(folder) == before and not aside.exists() and list(again.iterdir()) == []  # the cut staging cleared


def test_export_never_replaces_a_model_unless_asked(exported, tmp_path):
    import shutil

    model, tok, full = exported
    folder = shutil.copytree(full, tmp_path / "pearl-tiny-seed0")
    before = _files(folder)
    with pytest.raises(FileExistsError, match=r"pearl-tiny-seed0 already holds a model.*replace=True"):
        export(model, tok, folder, labels=LABELS)
    assert _files(folder) == before
