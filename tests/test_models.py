"""Model loading fails fast and says what works: unknown names offline, empty folders, and
paths that do not exist (never taken for hub ids)."""
import time

import pytest
from pearl import models
from pearl.models import ModelNotFound, load_model


def test_unknown_name_offline_fails_at_once_naming_the_aliases(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    start = time.perf_counter()
    with pytest.raises(ModelNotFound, match="minilm") as err:
        load_model("no-such-model")
    assert time.perf_counter() - start < 5
    assert "offline" in str(err.value)


def test_empty_folder_says_it_holds_no_model(tmp_path):
    with pytest.raises(ModelNotFound, match="holds no model") as err:
        load_model(tmp_path)
    assert "sentencepiece" not in str(err.value).lower() and "minilm" in str(err.value)


@pytest.mark.parametrize("path", ["./nowhere/model", "nowhere/model/", "../nowhere", "~/nowhere/model",
                                  "nowhere/deeper/model"])
def test_a_path_that_does_not_exist_is_not_a_hub_id(path, monkeypatch):
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # even online: no hub lookup for a path
    monkeypatch.setattr(models, "_offline", lambda: pytest.fail("looked up the hub for a path"))
    with pytest.raises(ModelNotFound, match="no model folder") as err:
        load_model(path)
    assert "minilm" in str(err.value)


def test_config_without_weights_is_named(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(ModelNotFound, match="no weights"):
        load_model(tmp_path)


def test_the_registry_imports_nothing_from_the_stages_above_it():
    """models.py (function-local imports included) imports no module of pearl.benchmark or
    pearl.training: the methods' labels are pearl.method_names, a PEARL folder names its own
    loader, the baselines sit beside encode. Importing the model registry imports no torch."""
    import ast
    import subprocess
    import sys
    from pathlib import Path

    import pearl.models

    tree = ast.parse(Path(pearl.models.__file__).read_text())
    imported = {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    above = {m for m in imported if m.lstrip(".").startswith(("benchmark", "training", "pearl.benchmark", "pearl.training"))}
    assert above == set()
    code = "import sys, pearl.models; assert 'torch' not in sys.modules, 'pearl.models imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(pearl.models.__file__).parents[1])


def test_a_folder_names_its_loader_and_only_pearl_code_runs(tmp_path):
    import json

    from pearl.models import FOLDER_LOADER, ModelNotFound, folder_loader
    from pearl.training.export import load_encoder

    (tmp_path / "pearl.json").write_text(json.dumps({"dim": 4}))  # exported before folders named their loader
    assert FOLDER_LOADER == "pearl.training.export:load_encoder" and folder_loader(tmp_path) is load_encoder
    (tmp_path / "pearl.json").write_text(json.dumps({"loader": "os:system"}))
    with pytest.raises(ModelNotFound, match="only 'pearl.<module>:<function>'"):
        folder_loader(tmp_path)


def test_named_folders_display_names_and_labels(tmp_path, monkeypatch):
    import json

    from pearl import models, paths

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folder = paths.models_dir("pearl-minilm-seed0")
    (folder / "pearl.json").write_text(json.dumps({}))
    assert models.named_folders("") == [] and models.named_folders("pearl-*") == [folder]
    assert models.folder_names([folder, "x/y"]) == ["pearl-minilm-seed0", "y"]
    assert models.display_names(["glove", "minilm"], [folder]) == \
        {"glove": "glove", "minilm": "minilm", "pearl-minilm-seed0": str(folder)}
    assert models.method_labels(["pause", "pearl"]) == {"pause": "PAUSE", "pearl": "PEARL"}
    loaded = models.load_labelled(["char3gram-jaccard"])
    assert list(loaded) == [models.label("char3gram-jaccard")]


@pytest.mark.parametrize("text,what", [('{"config": {', "is not valid JSON"), ("[1, 2]", "holds a list")])
@pytest.mark.parametrize("name,record,fix", [("mlm-wiki", "mlm.json", r"pretrain it again \(pearl.backbones.mlm.build"),
                                             ("me5-small", "me5.json", r"convert it again \(pearl.backbones.me5.convert")])
def test_a_damaged_backbone_record_is_named_with_the_fix(tmp_path, monkeypatch, text, what, name, record, fix):
    """load_model reads a built backbone's record (the raw LM's mlm.json, the converted me5-small's
    me5.json) first: a damaged one names itself and the fix, not a bare JSONDecodeError."""
    import re

    from pearl.backbones.weights import WeightsError

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    path = tmp_path / "data" / "derived" / name / record
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(WeightsError, match=rf"{re.escape(str(path))} {what}.*delete {path.parent} and {fix}"):
        load_model(name, cache=False)
