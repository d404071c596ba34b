"""make model (harness.one_model, its command line harness.model): notebook 01's settings, a missing data folder named with
its fix, the explorer's build skipped when a model exists, and at SMOKE size a whole build, then a
second one that reuses every stage and says so."""
import json

import pytest

from conftest import ROOT, needs_wordnet, notebook_parameters
from pearl import paths
from harness import model as make_model
from harness import one_model
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
    from _tiny import tiny_exported

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "nowhere"))  # a build would fail on it
    tiny_exported(tmp_path / "models" / "pearl-minilm-seed0")  # a model that verifies
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


def test_tables_are_reused_only_when_their_corpus_and_files_are_the_ones_stamped(tmp_path, monkeypatch):
    """Before: the tables were reused when meta.json counted as many phrases as the corpus, so a corpus
    with one row changed kept its old tables. Now the stage's stamp keys them on the corpus' sha256 and
    on each file's; no stamp, a changed row, a changed table: built again."""
    from pearl.corpus.store import write_corpus
    from pearl.corpus.training_inputs import targets

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    rows = [("the war", "NP-OTHER", 3, "wikitext2"), ("in 2008", "PP-DATE", 2, "wikitext2")]
    write_corpus(rows, about={})
    assert not one_model.tables_exist()  # none yet
    for path in targets():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"phrases": 2}) if path.name == "meta.json" else "{}")
    assert not one_model.tables_exist()  # there, with the right count, but not stamped by a build
    corpus = paths.derived_dir("phrases.tsv")
    one_model.stamp_stage("tables", one_model.stage_key("tables", "full", [corpus]), targets())
    assert one_model.tables_exist() and not one_model.tables_exist("tiny")
    write_corpus([rows[0], ("in 2009", "PP-DATE", 2, "wikitext2")], about={})  # one row changed, the same count
    assert not one_model.tables_exist()
    write_corpus(rows, about={})
    assert one_model.tables_exist()
    paths.derived_dir("augment", "glove_synonyms.json").write_text('{"war": ["battle"]}')
    assert not one_model.tables_exist()


def test_the_recipe_key_digests_every_augmentation_table(tmp_path, monkeypatch):
    """Before: make model reused a model after augment/glove_synonyms.json changed (the recipe key
    left the tables out). Now each table's sha256 is in the key, so the model is trained again."""
    from pearl.experiments import runner

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    for name in ("wordnet_synonyms.json", "glove_synonyms.json", "paraphrases.json"):
        paths.derived_dir("augment", name).write_text("{}")
    before = runner._training_files()
    assert before["augment/glove_synonyms.json"] is not None
    paths.derived_dir("augment", "glove_synonyms.json").write_text('{"war": ["battle"]}')
    assert runner._training_files() != before


def _broken_model(root):
    """A verified tiny PEARL model at models/pearl-minilm-seed0 under ``root``, then one byte of its weights flipped."""
    from _tiny import tiny_exported

    folder = root / "models" / "pearl-minilm-seed0"
    tiny_exported(folder)
    weights = folder / "model.safetensors"
    raw = bytearray(weights.read_bytes())
    raw[-1] ^= 1
    weights.write_bytes(bytes(raw))
    return folder


def test_a_folder_that_fails_verification_is_never_found(tmp_path, monkeypatch, capsys):
    """Before: make explorer said "PEARL model found" over a folder that loading refuses, and notebook
    06 then stopped. Now --if-missing, the explorer's list and the runner's reuse all pass it over."""
    from pearl.display.explorer import preset_models
    from pearl.experiments import runner

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    monkeypatch.setenv(paths.DATA_ENV, str(tmp_path / "nowhere"))  # a build would fail on it
    folder = _broken_model(tmp_path)
    with pytest.warns(UserWarning, match="pearl-minilm-seed0 is left out: it does not verify"):
        assert make_model.main(["--if-missing"]) == 2  # not found: it builds, and the data folder stops it
    assert "PEARL model found" not in capsys.readouterr().out
    with pytest.warns(UserWarning, match="does not verify"):
        assert preset_models("minilm") == ["minilm"]
    assert not runner._reusable(folder, runner._stored_key(folder))  # its key matches, its files do not


def test_a_full_size_build_over_smoke_data_refuses_before_writing(tmp_path, monkeypatch):
    """Before: a full-size make model over SMOKE data rewrote the augmentation lexicons from the SMOKE
    corpus, labelled full size, and only then refused at training. Now it stops first, naming the file."""
    from harness.outputs import SmokeInput
    from harness.scale import FULL, SMOKE
    from pearl.corpus import augment, hard_negatives, store

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    store.write_corpus([("the war", "NP-OTHER", 2, "wikitext2")], guard=SMOKE.guard)
    augment.save_lexicons(augment.AugmentLexicons(meta={"phrases": 1}), guard=SMOKE.guard)
    hard_negatives.write_hard_negatives({"the war": ["the way"]}, guard=SMOKE.guard)
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    for stage in ("build_corpus", "build_tables", "train_model"):
        monkeypatch.setattr(one_model, stage, lambda *a, **k: pytest.fail("a stage ran"))
    with pytest.raises(SmokeInput, match=r"phrases\.tsv holds a SMOKE output"):
        one_model.build("full", FULL.guard, log=lambda _: None)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before
