"""Train-or-reuse: a model is retrained exactly when its recipe, profile or training files change."""
import json
import os

import pytest

import pearl.workers
from harness.scale import SMOKE
from pearl import paths
from pearl.guard import Guard
from pearl.experiments import runner
from pearl.experiments.runner import Recipe, ablation, train_models

CORPUS = [(f"phrase {i}", "NP") for i in range(10)]
NEGS = {p: [CORPUS[(i + 1) % 10][0]] for i, (p, _) in enumerate(CORPUS[:6])}


@pytest.fixture
def fake_training(monkeypatch, tmp_path):
    """Training replaced by a recorder that writes what export would: pearl.json with the recipe."""
    import pearl.training.profiles as profiles

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    derived = paths.derived_dir()
    derived.mkdir(parents=True, exist_ok=True)
    (derived / "phrases.tsv").write_text("phrase\tlabel\n")
    (derived / "hard_negatives.json").write_text("{}")
    calls = []

    def load(anchors_only=False, **_):
        corpus = [r for r in CORPUS if r[0] in NEGS] if anchors_only else CORPUS
        return corpus, NEGS, {}

    def fake(cfg, corpus, negs, augmenter, out_dir, run_dir=None, progress=True, extra=None, guard=None, replace=False):
        from pearl.backbones import weights

        calls.append({"folder": out_dir.name, "corpus": corpus, "negs": negs, "cfg": cfg})
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "config.json").write_text(json.dumps({"seed": cfg.seed}))  # a file the digests cover
        info = {"train_config": {}, **(extra or {}), "sha256": weights.digests(out_dir)}  # a folder that verifies
        info["settings_sha256"] = weights.settings_digest(info)
        (out_dir / "pearl.json").write_text(json.dumps(info))

    monkeypatch.setattr(profiles, "load_training_data", load)
    monkeypatch.setattr(profiles, "train_and_export", fake)
    return calls


def test_trains_once_then_reuses(fake_training):
    out = train_models([ablation(""), ablation("no-char-encoder")], [0, 1], profile="cpu", log=lambda _: None)
    assert [f.name for f in out["no-char-encoder"]] == ["pearl-minilm-no-char-encoder-seed0",
                                                       "pearl-minilm-no-char-encoder-seed1"]
    assert len(fake_training) == 4
    train_models([ablation(""), ablation("no-char-encoder")], [0, 1], profile="cpu", log=lambda _: None)
    assert len(fake_training) == 4  # nothing retrained


def test_each_recipe_trains_its_own_seeds(fake_training):
    """Notebook 08's EXTRA_SEEDS: one arm gets more seeds, the others keep theirs, and the seeds
    already trained are reused."""
    train_models([ablation(""), ablation("no-char-aug")], [0, 1], profile="cpu", log=lambda _: None)
    assert len(fake_training) == 4
    per_arm = runner.arm_seeds(["", "no-char-aug"], [0, 1], {"no-char-aug": [2, 3]})
    out = train_models([ablation(""), ablation("no-char-aug")], per_arm, profile="cpu", log=lambda _: None)
    assert [f.name for f in out[""]] == ["pearl-minilm-seed0", "pearl-minilm-seed1"]
    assert [f.name for f in out["no-char-aug"]] == [f"pearl-minilm-no-char-aug-seed{s}" for s in range(4)]
    assert [c["folder"] for c in fake_training[4:]] == ["pearl-minilm-no-char-aug-seed2", "pearl-minilm-no-char-aug-seed3"]


def test_arm_seeds_names_the_recipes_it_knows():
    assert runner.arm_seeds(["", "no-token-aug"], [0, 1, 2], {"": [3], "no-char-aug": [3, 4]}) == \
        {"": [0, 1, 2, 3], "no-token-aug": [0, 1, 2]}  # an arm not trained here: its extra seeds wait
    with pytest.raises(ValueError, match="no-char-agu.*full recipe"):
        runner.arm_seeds([""], [0], {"no-char-agu": [1]})


def test_seeds_text_says_each_count():
    labels = {"": "full", "a": "− a", "b": "− b"}
    assert runner.seeds_text({"": [0, 1, 2], "a": [0, 1, 2]}, labels) == "3 seeds"
    assert runner.seeds_text({"": list(range(12)), "a": list(range(12)), "b": list(range(9)), "c": [0, 1, 2]},
                             labels) == "3 seeds (12: full, − a; 9: − b)"


def test_a_changed_recipe_or_corpus_retrains(fake_training):
    quiet = dict(profile="cpu", log=lambda _: None)
    train_models([Recipe(name="x")], [0], **quiet)
    train_models([Recipe(name="x", augment=(0.0, 1.0, 1.0))], [0], **quiet)
    assert len(fake_training) == 2
    train_models([Recipe(name="x", augment=(0.0, 1.0, 1.0))], [0], profile="gpu", log=lambda _: None)
    assert len(fake_training) == 3  # another profile
    paths.derived_dir("phrases.tsv").write_text("phrase\tlabel\nnew\tNP\n")
    train_models([Recipe(name="x", augment=(0.0, 1.0, 1.0))], [0], profile="gpu", log=lambda _: None)
    assert len(fake_training) == 4  # a rebuilt corpus
    with pytest.raises(FileExistsError, match=r"pearl-minilm-x-seed0 holds a full-size output .*pearl.json says its scale\) and this is a SMOKE run"):
        train_models([Recipe(name="x")], [0], profile="tiny", log=lambda _: None, guard=SMOKE.guard)  # never over a full model
    assert len(fake_training) == 4


def test_speed_settings_do_not_retrain(fake_training):
    train_models([Recipe(name="x")], [0], profile="cpu", log=lambda _: None)
    train_models([Recipe(name="x")], [0], profile="cpu", log=lambda _: None, device="cpu", num_workers=2)
    assert len(fake_training) == 1


def test_checkpoints_of_another_recipe_are_discarded(fake_training):
    run_dir = paths.models_dir("runs", "pearl-minilm-x-seed0")
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "checkpoint.pt").write_bytes(b"from another recipe")
    train_models([Recipe(name="x")], [0], profile="cpu", log=lambda _: None)
    assert not (run_dir / "checkpoint.pt").exists()
    assert (run_dir / "recipe.json").is_file()


def test_without_hard_negatives_the_phrases_stay_the_same(fake_training):
    train_models([ablation(""), ablation("no-hard-negatives")], [0], profile="cpu", log=lambda _: None)
    full, no_hn = fake_training
    assert full["corpus"] == no_hn["corpus"] == [r for r in CORPUS if r[0] in NEGS]
    # the runner hands both the same mined negatives; the config's count alone switches them off (the Collator)
    assert full["negs"] is NEGS and no_hn["negs"] is NEGS and no_hn["cfg"].hard_negatives == 0


def test_bad_settings_name_the_fix():
    with pytest.raises(ValueError, match="choose from no-phrase-aug"):
        ablation("no-everything")
    with pytest.raises(ValueError, match=r"phrase_share must be in \(0, 1\]"):
        runner._subset(CORPUS, 0)
    assert len(runner._subset(CORPUS, 0.3)) == 3 and runner._subset(CORPUS, 0.3) == runner._subset(CORPUS, 0.3)


def test_figure5_points_share_models_with_the_ablations():
    assert runner.hyperparameter_recipe(3e-5, 2) == ablation("")
    assert runner.hyperparameter_recipe(3e-5, 0) == ablation("no-hard-negatives")
    assert runner.hyperparameter_recipe(1e-4, 2).name == "lr1e-4"
    assert runner.hyperparameter_recipe(3e-5, 4).config == {"lr": 3e-5, "hard_negatives": 4}


@pytest.fixture
def thread_workers(monkeypatch):
    """Workers as threads (they see the test's fakes); the notebooks' smoke runs use real processes."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(pearl.workers, "executor", lambda n: ThreadPoolExecutor(n))


def test_workers_train_each_missing_model_once(fake_training, thread_workers):
    train_models([ablation("")], [0], profile="cpu", log=lambda _: None)
    logged = []
    out = train_models([ablation(""), ablation("no-char-encoder")], [0, 1], profile="cpu", log=logged.append,
                       workers=2)
    assert sorted(c["folder"] for c in fake_training) == ["pearl-minilm-no-char-encoder-seed0",
                                                         "pearl-minilm-no-char-encoder-seed1",
                                                         "pearl-minilm-seed0", "pearl-minilm-seed1"]
    assert sum(m.startswith("trained") for m in logged) == 3 and sum(m.startswith("reuse") for m in logged) == 4
    assert [f.name for f in out[""]] == ["pearl-minilm-seed0", "pearl-minilm-seed1"]


def test_workers_wait_on_no_backbone_being_built(monkeypatch):
    """One job per backbone built on first use goes first; its others go after every other job,
    so the second worker trains while the first one builds (and holds the build's lock)."""
    assert not runner._built_on_first_use("minilm")  # shipped whole
    monkeypatch.setattr(runner, "_built_on_first_use", lambda b: b == "mlm-wiki")
    jobs = [(Recipe(backbone=b), s) for b in ("me5-small", "mlm-wiki", "minilm.l2") for s in (0, 1)]
    jobs.append((runner.method_recipe("simcse", backbone="mlm-wiki"), 0))
    order = [(j[0].method, j[0].backbone, j[1]) for j in runner._worker_order(jobs)]
    assert order == [("pearl", "mlm-wiki", 0), ("pearl", "me5-small", 0), ("pearl", "me5-small", 1),
                     ("pearl", "minilm.l2", 0), ("pearl", "minilm.l2", 1), ("pearl", "mlm-wiki", 1),
                     ("simcse", "mlm-wiki", 0)]
    monkeypatch.setattr(runner, "_built_on_first_use", lambda b: False)
    assert runner._worker_order(jobs) == jobs  # nothing to build: the plan's order


def test_the_output_root_is_a_value_passed_down(fake_training, tmp_path):
    """Before: a smoke-profile call rebuilt its scale and called itself again inside a block that
    rewrote $PEARL_OUTPUT. Now the caller passes ``root``: every folder goes under it, the guard sees
    them there, and the environment is never written."""
    seen, before = [], os.environ["PEARL_OUTPUT"]

    class Seen(Guard):
        def check(self, targets):
            seen.extend(targets)

    out = train_models([ablation("")], [0], profile="tiny", log=lambda _: None, guard=Seen(), root=tmp_path / "elsewhere")
    assert out[""] == [tmp_path / "elsewhere" / "models" / "pearl-minilm-seed0"] == seen
    assert (tmp_path / "elsewhere" / "models" / "pearl-minilm-seed0" / "pearl.json").is_file()
    assert os.environ["PEARL_OUTPUT"] == before and not (tmp_path / "models" / "pearl-minilm-seed0").exists()


def test_recipe_lists_of_the_ablation_and_method_notebooks():
    assert [r.name for r in runner.ablation_recipes(["no-char-aug"])] == ["", "no-char-aug"]
    recipes = runner.recipes_for_methods(["pearl", "simcse"])
    assert list(recipes) == ["pearl", "simcse"] and recipes["simcse"] == runner.method_recipe("simcse")


def test_run_summary_reads_steps_seconds_batch_and_views(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    folder = paths.models_dir("pearl-minilm-seed0")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pearl.json").write_text(json.dumps({"train_seconds": 6.0, "train_config": {"batch_size": 4}}))
    log = paths.models_dir("runs", "pearl-minilm-seed0", "log.csv")
    log.write_text("step,loss\n0,3.0\n1,2.0\n2,1.0\n")  # 3 steps done
    row = runner.run_summary(folder, 0)
    # 3 steps x 4 phrases = 12 views in 6 s: 2 phrases/s; last loss is the mean of the (3) last 20
    assert row == {"seed": 0, "folder": str(folder), "steps": 3, "train_s": 6.0, "phrases_per_s": 2.0,
                   "first_loss": 3.0, "last_loss": 2.0, "batch_size": 4, "views": 12}


def test_is_trained_says_whether_train_models_would_reuse_the_folder(fake_training):
    """What scripts/batch_composition.py --no-train scores: only folders of this very recipe."""
    reference = runner.layout_recipe("reference")
    assert not runner.is_trained(reference, 0)
    train_models([reference], [0], profile="cpu", log=lambda _: None)
    assert runner.is_trained(reference, 0) and not runner.is_trained(reference, 1)
    assert fake_training[0]["cfg"].batch_composition == "reference"
    assert not runner.is_trained(Recipe(name="reference-batches"), 0)  # the same folder, another recipe
