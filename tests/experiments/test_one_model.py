"""make model (pearl.experiments.one_model, its command line harness.model): notebook 01's settings, a missing data folder named with
its fix, the explorer's build skipped when a model exists, and at SMOKE size a whole build, then a
second one that reuses every stage and says so."""
import json

import pytest

from conftest import ROOT, needs_wordnet, notebook_parameters
from pearl import paths
from harness import model as make_model
from pearl.experiments import one_model
from pearl.models import load_model


def test_notebook_01_declares_the_settings():
    params = notebook_parameters(ROOT / "notebooks" / "src" / "01_data_building.py")
    assert {name: params[name] for name in one_model.NOTEBOOK_01} == one_model.NOTEBOOK_01


def test_a_missing_shared_data_folder_is_named_with_the_fix(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(paths, "ROOT", tmp_path / "clone")
    monkeypatch.delenv(paths.DATA_ENV, raising=False)
    assert make_model.main([]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / "shared" / "data") in err and "does not exist" in err
    assert f"set {paths.DATA_ENV}=" in err  # the fix


def test_a_data_folder_without_wikitext2_names_the_file(tmp_path, monkeypatch):
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path))
    with pytest.raises(one_model.SetupError, match=r"corpora/wikitext2/valid\.txt.*PEARL_DATA"):
        one_model.check_inputs()
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "nowhere"))
    with pytest.raises(one_model.SetupError, match="is not a folder"):
        one_model.check_inputs()


def test_the_explorer_builds_nothing_when_a_pearl_model_exists(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "nowhere"))  # a build would fail on it
    (tmp_path / "models" / "pearl-minilm-seed0").mkdir(parents=True)
    (tmp_path / "models" / "pearl-minilm-seed0" / "pearl.json").write_text("{}")
    assert make_model.main(["--if-missing"]) == 0
    assert "PEARL model found: pearl-minilm-seed0" in capsys.readouterr().out
    (tmp_path / "models" / "pearl-minilm-seed0" / "pearl.json").unlink()
    assert make_model.main(["--if-missing"]) == 2  # none: it builds, and the data folder stops it


def test_the_report_says_what_was_built_and_where(tmp_path):
    stages = {s: {"built": True, "seconds": 60.0} for s in one_model.STAGES}
    built = one_model.report({"folder": str(tmp_path / "m"), "stages": stages, "wall_time_s": 180.0})
    assert "data    built in 60 s" in built and "3.0 minutes in all" in built and str(tmp_path / "m") in built
    reused = one_model.report({"folder": str(tmp_path / "m"), "wall_time_s": 1.0,
                               "stages": {s: {"built": False, "seconds": 0.5} for s in one_model.STAGES}})
    assert "model   reused" in reused and "nothing to build" in reused and "make explorer" in reused


@pytest.mark.slow
@needs_wordnet
def test_a_smoke_build_then_a_second_that_reuses_every_stage(tmp_path, monkeypatch, capsys):
    """The three stages at SMOKE size into a scratch root (about a minute), then again: nothing is built."""
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    record_file = tmp_path / "make_model.json"
    assert make_model.main(["--smoke", "--record", str(record_file)]) == 0
    first = capsys.readouterr().out
    folder = tmp_path / "models" / "pearl-minilm-seed0"
    record = json.loads((folder / one_model.RECORD).read_text())
    assert record == json.loads(record_file.read_text())
    assert all(record["stages"][s]["built"] for s in one_model.STAGES) and record["smoke"] is True
    assert record["pearl_json_settings_sha256"] == json.loads((folder / "pearl.json").read_text())["settings_sha256"]
    assert "[3/3] model" in first and f"== PEARL model: {folder}" in first
    load_model(folder, device="cpu", cache=False)  # the record beside it leaves the folder verifiable

    assert make_model.main(["--smoke", "--record", str(record_file)]) == 0
    second = capsys.readouterr().out
    assert f"reuse {tmp_path / 'data' / 'derived' / 'phrases.tsv'}" in second
    assert "reuse pearl-minilm-seed0" in second and "nothing to build" in second
    assert json.loads(record_file.read_text()) == record  # a build that reused everything measured nothing


def test_tables_of_another_corpus_are_built_again(tmp_path, monkeypatch):
    """Tables whose meta.json counts other phrases than the corpus holds were made from an earlier corpus."""
    from pearl.corpus.store import write_corpus
    from pearl.corpus.training_tables import targets

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    write_corpus([("the war", "NP-OTHER", 3, "wikitext2"), ("in 2008", "PP-DATE", 2, "wikitext2")], about={})
    assert not one_model.tables_exist()  # none yet
    for path in targets():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"phrases": 5, "smoke": False}) if path.name == "meta.json" else "{}")
    assert not one_model.tables_exist()
    (tmp_path / "data" / "derived" / "augment" / "meta.json").write_text('{"phrases": 2, "smoke": false}')
    assert one_model.tables_exist()
