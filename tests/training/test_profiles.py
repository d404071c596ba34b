"""Training profiles and the augmentation switches of the training notebook."""
import numpy as np
import pytest
from pearl.training.methods import augmenter_factory
from pearl.training.profiles import PROFILES, config_for


def test_profiles_and_overrides():
    cfg, data = config_for("gpu")
    assert data == {"max_phrases": None, "anchors_only": False}
    assert (cfg.batch_size, cfg.lr, cfg.epochs, cfg.steps) == (512, 3e-5, 2, None)
    cfg, _ = config_for("cpu", lr=1e-3, steps=None)  # None keeps the profile's value
    assert cfg.lr == 1e-3 and cfg.steps == PROFILES["cpu"]["steps"]
    with pytest.raises(ValueError, match="choose from"):
        config_for("tpu")


def test_all_augmentation_levels_off_is_the_identity():
    rng = np.random.default_rng(0)
    assert augmenter_factory(0, 0, 0)(rng)("The New York Times") == "The New York Times"
    only_char = augmenter_factory(1, 0, 0)(rng)
    out = only_char("The New York Times")
    from rapidfuzz.distance import OSA

    assert out != "The New York Times" and OSA.distance(out, "The New York Times") == 1  # one character edit


def test_given_settings_table1_folders_and_data_summary(tmp_path, monkeypatch):
    import json

    from pearl import paths
    from pearl.training import profiles

    assert profiles.given(steps=None, lr=1e-4, use_char=False) == {"lr": 1e-4, "use_char": False}
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    for name in ("pearl-minilm-seed0", "pearl-minilm-seed1", "pearl-minilm-no-char-aug-seed0"):
        (paths.models_dir(name) / "pearl.json").write_text(json.dumps({}))
    assert [p.name for p in profiles.table1_folders(None, "cpu")] == ["pearl-minilm-seed0"]
    assert [p.name for p in profiles.table1_folders(None, "gpu")] == ["pearl-minilm-seed0", "pearl-minilm-seed1"]
    assert [p.name for p in profiles.table1_folders("*no-char*", "cpu")] == ["pearl-minilm-no-char-aug-seed0"]
    assert profiles.table1_folders("", "gpu") == []
    cfg, _ = config_for("tiny")
    summary = profiles.data_summary([("a", "NP"), ("b", "NP"), ("c", "VP")], {"a": ["b"], "c": []}, cfg)
    assert summary == {"phrases": 3, "labels used": 2, "phrases with hard negatives": 2, "steps per seed": 4,
                       "batch size": 8, "lr": 1e-4}
    assert profiles.data_summary([("a", "NP")], None, cfg)["phrases with hard negatives"] == 0


def test_the_gpu_profile_is_the_papers_schedule_and_its_small_size_shrinks_only_its_sizes(monkeypatch):
    from pearl.training.profiles import SMALL, config_for

    cfg, data = config_for("gpu")
    assert (cfg.steps, cfg.epochs, cfg.batch_size, cfg.lr, cfg.gamma, cfg.decay_every) == (None, 2, 512, 3e-5, 0.98, 2000)
    assert data == {"max_phrases": None, "anchors_only": False} and cfg.num_workers > 0
    assert config_for("gpu", "full")[0].batch_size == 512  # the full size: the profile as it is
    assert config_for("cpu", "small")[0].batch_size == 32  # the small size changes the gpu profile alone
    small, data = config_for("gpu", profile_size="small")
    assert (small.steps, small.epochs, small.lr) == (None, 2, 3e-5) and small.num_workers > 0  # the same branches
    assert small.batch_size == SMALL["batch_size"] and data["max_phrases"] == SMALL["max_phrases"]
    with pytest.raises(ValueError, match="unknown profile size 'huge'; choose from full, small"):
        config_for("gpu", "huge")
    assert config_for("gpu", batch_size=8)[0].batch_size == 8  # what a notebook sets still wins


@pytest.mark.parametrize("smoke_part", ["corpus", "augment", "hard_negatives"])
def test_full_size_training_refuses_smoke_data(tmp_path, monkeypatch, smoke_part):
    """Before: a full-size run trained on a SMOKE corpus (117 phrases) without a word. Now each
    SMOKE part of the training data stops it (the harness's guard, which notebooks pass), naming the
    file and how to make full-size data; a SMOKE run still reads them."""
    from harness import outputs
    from harness.outputs import ScaleGuard
    from harness.scale import FULL, SMOKE
    from pearl import paths
    from pearl.corpus import augment, hard_negatives, store
    from pearl.corpus.phrases import LABELS
    from pearl.training.profiles import load_training_data

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    store.write_corpus([("the war", LABELS[0], 2, "wikitext2")], guard=ScaleGuard(smoke_part == "corpus"))
    augment.save_lexicons(augment.AugmentLexicons(), guard=ScaleGuard(smoke_part == "augment"))
    hard_negatives.write_hard_negatives({"the war": ["the way"]}, guard=ScaleGuard(smoke_part == "hard_negatives"))
    named = {"corpus": "phrases.tsv", "augment": "augment/meta.json", "hard_negatives": "hard_negatives.json"}[smoke_part]
    with pytest.raises(outputs.SmokeInput, match=rf"{paths.derived_dir(named)} holds a SMOKE output.*full-size run.*"
                                                 r"build the phrase corpus and its lexicons at full size"):
        load_training_data(guard=FULL.guard)
    corpus, negs, _ = load_training_data(guard=SMOKE.guard)
    assert corpus == [("the war", LABELS[0])] and negs == {"the war": ["the way"]}


def test_the_command_line_trains_the_gpu_profile_at_its_small_size(monkeypatch, tmp_path):
    """``--profile-size small`` (the device scripts' first check) trains the gpu profile at SMALL's sizes."""
    from pearl.training import profiles

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))  # an empty root: no model there to keep

    seen = {}

    class Stop(Exception):
        pass

    def fake_load(**data):
        seen["data"] = data
        raise Stop

    real = profiles.config_for
    monkeypatch.setattr(profiles, "config_for", lambda *a, **k: seen.setdefault("cfg", real(*a, **k)))
    monkeypatch.setattr(profiles, "load_training_data", fake_load)
    with pytest.raises(Stop):
        profiles.main(["--profile", "gpu", "--profile-size", "small"])
    cfg, data = seen["cfg"]
    assert cfg.batch_size == profiles.SMALL["batch_size"] and cfg.char_distill_steps == profiles.SMALL["char_distill_steps"]
    assert seen["data"]["max_phrases"] == profiles.SMALL["max_phrases"]


def test_the_hard_negatives_carry_the_whole_corpus_types(tmp_path, monkeypatch):
    """The reference batch layout labels each hard negative's row with its type; cut to the
    mined anchors, the training corpus no longer holds "the way", but the hard negatives carry its type."""
    from pearl.corpus import augment, hard_negatives, store
    from pearl.corpus.phrases import LABELS
    from pearl.training.profiles import load_training_data

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    store.write_corpus([("the war", LABELS[0], 2, "wikitext2"), ("the way", LABELS[1], 2, "wikitext2")])
    augment.save_lexicons(augment.AugmentLexicons())
    hard_negatives.write_hard_negatives({"the war": ["the way"]})
    corpus, negs, _ = load_training_data(anchors_only=True)
    assert corpus == [("the war", LABELS[0])] and negs == {"the war": ["the way"]}
    assert negs.types == {"the war": LABELS[0], "the way": LABELS[1]}


def _stop_training(monkeypatch):
    """pearl's command line with its training data and training stubbed: what it does before training."""
    from pearl.training import profiles

    class Trained(Exception):
        pass

    def train(*_a, **_k):
        raise Trained
    monkeypatch.setattr(profiles, "load_training_data", lambda **_: ([("the war", "NP")], {}, None))
    monkeypatch.setattr(profiles, "inputs_for", lambda cfg, corpus, tables: (corpus, None))
    monkeypatch.setattr(profiles, "train", train)
    return Trained


def test_the_command_line_never_replaces_a_model_unasked(tmp_path, monkeypatch):
    """Before: ``python -m pearl.training.profiles --profile tiny`` replaced a full-size
    models/pearl-minilm-seed0 with a 4-step model, rc 0, no warning. Now it stops before training,
    naming the folder and --replace; with --replace it trains."""
    import shutil

    from _tiny import tiny_exported
    from pearl import paths
    from pearl.training import profiles

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folder = paths.models_dir("pearl-minilm-seed0")
    shutil.rmtree(folder)
    tiny_exported(folder)
    before = {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()}
    trained = _stop_training(monkeypatch)
    with pytest.raises(SystemExit, match=r"pearl-minilm-seed0 holds a model already.*--replace"):
        profiles.main(["--profile", "tiny"])
    assert {p: p.read_bytes() for p in folder.rglob("*") if p.is_file()} == before
    with pytest.raises(trained):
        profiles.main(["--profile", "tiny", "--replace"])


def test_a_tiny_profile_model_of_the_command_line_reads_as_smoke(tmp_path):
    """pearl's command line writes no SMOKE note; its pearl.json says the profile, and tiny is the SMOKE size."""
    import json

    from harness.outputs import scale_of

    for profile, scale in (("tiny", "smoke"), ("cpu", "full")):
        folder = tmp_path / profile
        folder.mkdir()
        (folder / "pearl.json").write_text(json.dumps({"profile": profile}))
        assert scale_of(folder) == scale


def test_the_command_line_refuses_smoke_data_at_a_full_profile(tmp_path, monkeypatch):
    """Before: ``--profile cpu --steps 2`` trained a model labelled full size on a SMOKE corpus. Now
    it stops before training, naming the corpus' metadata and the fix; --profile tiny still trains."""
    from harness.scale import SMOKE
    from pearl.corpus import augment, store
    from pearl.corpus.phrases import LABELS
    from pearl.training import profiles

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    store.write_corpus([("the war", LABELS[0], 2, "wikitext2")], guard=SMOKE.guard)
    augment.save_lexicons(augment.AugmentLexicons())
    trained = _stop_training(monkeypatch)
    with pytest.raises(SystemExit, match=r"corpus\.json carries a note.*'cpu' profile.*--profile tiny"):
        profiles.main(["--profile", "cpu", "--steps", "2"])
    assert not [p for p in (tmp_path / "models").rglob("*") if p.is_file()]
    with pytest.raises(trained):
        profiles.main(["--profile", "tiny"])


def test_a_full_size_table1_refuses_a_smoke_model_naming_it(tmp_path, monkeypatch):
    """Before: notebook 04 at full size scored a models/pearl-minilm-seed0 whose pearl.json says
    "smoke": true and wrote "PEARL seed 0 ... this run" in a record saying SMOKE false. Now the folders
    it scores go through its guard (notebooks 04 and 07 pass scale.guard), which names the folder."""
    import json

    from conftest import ROOT
    from harness.outputs import SmokeInput
    from harness.scale import FULL, SMOKE
    from pearl import paths
    from pearl.training import profiles

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folder = paths.models_dir("pearl-minilm-seed0")
    (folder / "pearl.json").write_text(json.dumps({"smoke": True, "note": "SMOKE run"}))
    with pytest.raises(SmokeInput, match=r"pearl-minilm-seed0 holds a SMOKE output.*notebook 03"):
        profiles.table1_folders(None, "cpu", guard=FULL.guard)
    assert profiles.table1_folders(None, "cpu", guard=SMOKE.guard) == [folder]
    for notebook, call in (("04_benchmark", "table1_folders(PEARL_MODELS, PROFILE, guard=scale.guard)"),
                           ("07_short_text", "named_folders(PEARL_MODELS, guard=scale.guard)"),
                           ("05_figures", "default_models(guard=scale.guard)")):
        assert call in (ROOT / "notebooks" / "src" / f"{notebook}.py").read_text()
