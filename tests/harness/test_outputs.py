"""The one guard of every output (harness.outputs, passed to pearl's writers as ``guard=``): derived
data and model folders say their scale in their own metadata, a SMOKE writer refuses to replace a
full-size one before it writes anything, a notebook stage checks every target first, and a full-size
reader refuses a SMOKE input."""
import json

import pytest
from _outputs import CHUNKS, MODEL, ROWS, SAMPLE, TOKENS, _derived, _note, _tree
from harness import outputs
from harness.record import Run
from harness.scale import FULL, SMOKE
from pearl import paths
from pearl.guard import metadata_of
from pearl.corpus import augment, build, hard_negatives, store, summary, training_inputs


@pytest.fixture
def full_root(tmp_path, monkeypatch):
    """A $PEARL_OUTPUT holding full-size derived data only (corpus.json says no scale: full size)."""
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    _derived(smoke=False)
    assert "smoke" not in json.loads(paths.derived_dir("corpus.json").read_text())
    return tmp_path, _tree(tmp_path)


def test_derived_data_says_its_scale_in_its_own_metadata(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "full"))
    _derived(smoke=False)
    full = [p for p in _tree(tmp_path / "full")]
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "smoke"))
    _derived(smoke=True)
    _derived(smoke=True)  # a SMOKE output may be replaced by a SMOKE run
    small = [p for p in _tree(tmp_path / "smoke") if not p.name.endswith(".smoke")]
    assert {outputs.scale_of(p) for p in full} == {"full"}
    assert {outputs.scale_of(p) for p in small} == {"smoke"}
    assert metadata_of(paths.derived_dir("phrases.tsv")) == paths.derived_dir("corpus.json")
    assert json.loads(paths.derived_dir("augment", "meta.json").read_text())["smoke"] is True
    assert outputs.sidecar(paths.derived_dir("hard_negatives.json")).is_file()  # no metadata of its own


def test_metadata_written_before_the_move_keeps_its_scale(tmp_path, monkeypatch):
    """Files pearl wrote when it said the scale itself: ``"smoke": false`` (or no flag) is full size,
    ``"smoke": true`` and a model's ``"SMOKE"`` note are SMOKE."""
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    _derived(smoke=False)
    about = paths.derived_dir("corpus.json")
    for said, scale in (({"smoke": False}, "full"), ({}, "full"), ({"smoke": True}, "smoke")):
        about.write_text(json.dumps({"corpus": "wikitext2", **said}))
        assert outputs.scale_of(paths.derived_dir("phrases.tsv")) == scale
    model = tmp_path / "models" / "pearl-minilm-seed0"
    model.mkdir(parents=True)
    (model / "pearl.json").write_text(json.dumps({"SMOKE": "SMOKE run: a few steps"}))
    assert outputs.scale_of(model) == "smoke"
    (model / "pearl.json").write_text(json.dumps({"format": "pearl-companion/1"}))
    assert outputs.scale_of(model) == "full"


def test_a_smoke_build_never_shares_a_full_size_builds_folder():
    """The build folder's name is a digest of its settings; a SMOKE build's settings say SMOKE, so it
    has a folder of its own, and a full-size one keeps the name it had."""
    full, smoke = build.Settings(SAMPLE, CHUNKS), build.Settings(SAMPLE, CHUNKS, note=_note(True))
    assert "smoke" not in full.record() and smoke.record()["smoke"] is True
    assert full.folder() != smoke.folder()


def _smoke_writes():
    build_dir = lambda: build.Settings(SAMPLE, CHUNKS, TOKENS, MODEL).folder()  # noqa: E731
    return {
        "corpus": (lambda: store.write_corpus(ROWS[:1], guard=SMOKE.guard), "data/derived/phrases.tsv"),
        "augment": (lambda: augment.save_lexicons(augment.AugmentLexicons(), guard=SMOKE.guard),
                    "data/derived/augment/wordnet_synonyms.json"),
        "hard_negatives": (lambda: hard_negatives.write_hard_negatives({}, guard=SMOKE.guard),
                           "data/derived/hard_negatives.json"),
        "training_inputs": (lambda: training_inputs.build_training_inputs(["a"], guard=SMOKE.guard),
                            "data/derived/augment/wordnet_synonyms.json"),
        "build": (lambda: build.build(SAMPLE, chunk_articles=CHUNKS, build_dir=build_dir(), guard=SMOKE.guard,
                                      progress=False),
                  "data/derived/wikipedia_builds/"),
    }


@pytest.mark.parametrize("writer", sorted(_smoke_writes()))
def test_a_smoke_writer_never_replaces_full_size_derived_data(full_root, writer):
    """Before: the corpus and augmentation writers never asked; a SMOKE corpus replaced a full-size one
    (and corpus.json then said "smoke": true). Each refuses, naming the file and what says its scale,
    and not one byte under the root changes (the training tables are checked before they are built)."""
    root, before = full_root
    write, name = _smoke_writes()[writer]
    with pytest.raises(FileExistsError, match=rf"{root}/{name}.* holds a full-size output .*SMOKE run.*scratch folder"):
        write()
    assert _tree(root) == before


def test_the_data_notebooks_check_every_target_before_writing(full_root):
    """The calls notebooks 01 and 02 make first (harness.outputs.refuse_full_stage with their targets)
    stop a SMOKE run on the corpus and on the augmentation lexicons; a full-size run and a SMOKE run into
    a root holding SMOKE data pass."""
    root, before = full_root
    with pytest.raises(FileExistsError, match=rf"{root}/data/derived/phrases\.tsv holds a full-size output \(.*corpus\.json"):
        outputs.refuse_full_stage(Run("01_data_building", scale=SMOKE), *summary.targets(SAMPLE, CHUNKS, TOKENS, MODEL, SMOKE.guard),
                                  figures=["figureA1"])
    with pytest.raises(FileExistsError, match=rf"{root}/data/derived/augment/wordnet_synonyms\.json holds a full-size .*meta\.json"):
        outputs.refuse_full_stage(Run("02_augmentation", scale=SMOKE), *training_inputs.targets(), figures=["figure3"])
    outputs.refuse_full_stage(Run("01_data_building", scale=FULL), *summary.targets(SAMPLE, CHUNKS, TOKENS, MODEL))
    assert _tree(root) == before


def test_a_stage_checks_its_figures_and_record_too(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    Run("03_training", {"SMOKE": False}).save(metrics={})
    with pytest.raises(FileExistsError, match=r"results/03_training\.json holds a full-size output"):
        outputs.refuse_full_stage(Run("03_training", scale=SMOKE), figures=["figure2"])
    outputs.refuse_full_stage(Run("03_training", scale=SMOKE), figures=["figure2"], own=False)


def test_damaged_metadata_is_refused_naming_it(full_root):
    root, _ = full_root
    about = paths.derived_dir("corpus.json")
    about.write_text('{"smoke": fal')
    with pytest.raises(ValueError, match=rf"{about} is not valid JSON .*cannot be told"):
        store.write_corpus(ROWS, guard=SMOKE.guard)


def test_a_full_size_reader_refuses_a_smoke_input(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    _derived(smoke=True)
    corpus = paths.derived_dir("phrases.tsv")
    with pytest.raises(outputs.SmokeInput, match=rf"{corpus} holds a SMOKE output \(.*corpus\.json says its scale\).*: rerun it"):
        outputs.refuse_smoke(corpus, smoke=False, fix="rerun it")
    outputs.refuse_smoke(corpus, smoke=True, fix="a SMOKE run may read SMOKE data")


def test_a_smoke_tables_csv_says_so_in_its_columns(tmp_path):
    """A SMOKE table copied without its hidden sidecar still reads as SMOKE: its CSV has a smoke column."""
    table = tmp_path / "table1.csv"
    table.write_text("model,score,smoke\na,1.0,True\n")
    assert outputs.scale_of(table) == "smoke"
    table.write_text("model,score\na,1.0\n")
    assert outputs.scale_of(table) == "full"


def test_smoke_label_is_put_once():
    md = outputs.smoke_label("| a |", "md")
    assert md.startswith("**SMOKE run") and outputs.smoke_label(md, "md") == md
    assert outputs.smoke_label("\\begin{tabular}", "tex").startswith("% SMOKE")
    assert outputs.smoke_label("% SMOKE x", "tex") == "% SMOKE x"
