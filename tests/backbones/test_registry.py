"""The backbone registry: each backbone is one entry, and a new one needs that entry alone to train,
score and stand in Table 4 (through the calls notebook 09 makes)."""
from pathlib import Path

import pytest
from _tiny import tiny_backbone, tiny_corpus, tiny_hard_negatives

from pearl import models, paths
from pearl.backbones import me5, minilm, mlm, registry
from pearl.backbones.registry import Backbone, register


def test_the_built_in_backbones_and_what_reads_them():
    assert list(registry.BACKBONES) == ["minilm", "minilm.l2", "minilm.l0", "me5-small", "mlm-wiki"]
    assert {b.short for b in registry.BACKBONES.values()} == {"minilm", "minilm.l2", "minilm.l0", "me5", "mlmwiki"}
    # the model registry: aliases, folder names, labels
    assert models.backbone_short("sentence-transformers/all-MiniLM-L6-v2") == "minilm"
    assert models.folder_name("pearl", me5.NAME, 0) == "pearl-me5-seed0"
    assert models.folder_name("simcse", "/x/data/derived/mlm-wiki", 1) == "simcse-mlmwiki-seed1"
    assert models.label("mlm-wiki") == mlm.LABEL and models.label("minilm.l2") == "minilm.l2"
    assert models.label("pearl-me5-seed2") == f"PEARL seed 2 ({me5.LABEL} backbone)"
    assert models.backbone_label("minilm.l0") == "MiniLM token embeddings, 0 layers"
    assert models.backbone_label("bert-base-uncased") == "bert-base-uncased"  # a hub id, as it is
    # only me5-small's tokenizer prepends E5's prefix; every backbone is mean-pooled
    assert {b.name: b.prefix for b in registry.BACKBONES.values() if b.prefix} == {me5.NAME: "query: "}
    assert {b.pooling for b in registry.BACKBONES.values()} == {"mean"}
    assert registry.named("MINILM").folder == minilm.folder and registry.find("x/y") is None


def test_register_refuses_a_taken_name_a_hyphenated_folder_part_and_an_unknown_kind():
    with pytest.raises(ValueError, match="registered backbones already"):
        register(Backbone("other", "Other", minilm.folder, aliases=("all-minilm-l6-v2",)))
    with pytest.raises(ValueError, match="give it a short="):
        register(Backbone("tiny-bert", "Tiny", minilm.folder))
    with pytest.raises(ValueError, match="kind must be one of"):
        register(Backbone("tiny", "Tiny", minilm.folder, kind="decoder"))
    with pytest.raises(ValueError, match="kind must be one of"):
        register(Backbone("tiny", "Tiny", minilm.folder, pooling="cls"))
    assert "other" not in registry.BACKBONES and "tiny" not in registry.BACKBONES


@pytest.fixture
def tiny_registered(tmp_path):
    """A backbone the companion never heard of: a tiny random BERT (MiniLM's tokenizer) written to a
    folder on first use, registered under ``tinybert`` for the test only."""
    built = []

    def folder() -> Path:
        from pearl.backbones import weights

        target = tmp_path / "tinybert"
        if not target.is_dir():
            model, tokenizer = tiny_backbone(seed=0)
            model.save_pretrained(target)
            tokenizer.save_pretrained(target)
            weights.write_manifest(target)  # every load verifies a local folder's files
            built.append(target)
        return target

    entry = register(Backbone("tinybert", "a tiny random BERT (test)", folder, kind="raw LM",
                              built=lambda: (tmp_path / "tinybert").is_dir()))
    yield entry, built
    registry.unregister("tinybert")


def test_a_new_backbone_is_one_entry_and_trains_scores_and_stands_in_table4(tiny_registered, tmp_path, monkeypatch):
    """The calls of notebook 09 at SMOKE size (tiny profile and benchmark, seed 0), with
    ``BACKBONES=["tinybert"]``: nothing but the entry names the backbone."""
    import pearl.training.profiles as profiles
    from pearl.corpus.augment import AugmentTables
    from pearl.benchmark.scoring import run_model_sets
    from pearl.experiments import backbones as table4, paper_beside, runs, tables
    from pearl.experiments.runner import train_models
    from pearl.tabular import render

    entry, built = tiny_registered
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "output"))
    corpus = [(p, t if t != "VP" else "VP-DATE") for p, t in tiny_corpus(48)]  # the corpus' own types
    words = "new york times paris city green tree run fast bank river old man small house".split()
    augment = AugmentTables(wordnet={w: [w[::-1]] for w in words}, paraphrases={})
    monkeypatch.setattr(profiles, "load_training_data", lambda **_: (corpus, tiny_hard_negatives(corpus), augment))
    paths.derived_dir().mkdir(parents=True, exist_ok=True)  # the files whose digests key a recipe
    (paths.derived_dir() / "phrases.tsv").write_text("phrase\tlabel\n")
    (paths.derived_dir() / "hard_negatives.json").write_text("{}")

    assert registry.needs_building("tinybert") and table4.kind("tinybert") == "raw LM"
    sources, recipes = table4.recipes(["tinybert"], table4.phrase_share(None, "tiny"))
    controls = table4.control_recipes(recipes)  # a raw LM: its SimCSE arm too
    assert sources == {"tinybert": "tinybert"} and list(controls) == ["tinybert"]
    train_models([*recipes.values(), *controls.values()], [0], profile="tiny", log=lambda _: None)
    trained, simcse = runs.recipe_folders(recipes, [0]), runs.recipe_folders(controls, [0])
    assert [f.name for f in trained["tinybert"]] == ["pearl-tinybert-seed0"] and len(built) == 1
    assert all((f / "pearl.json").is_file() for f in [*trained["tinybert"], *simcse["tinybert"]])

    scored = run_model_sets({"originals": runs.as_groups(sources), "pearl": trained, "simcse": simcse},
                            size="tiny", log=lambda _: None)
    originals, after = tables.group_frame(scored["originals"]), tables.group_frame(scored["pearl"])
    table = table4.with_labels(tables.gains(after, originals, control=tables.group_frame(scored["simcse"])))
    row = table.set_index("backbone").loc["tinybert"]
    assert (row["label"], row["kind"]) == ("a tiny random BERT (test)", "raw LM")
    assert row["original"] == row["original"] and row["pearl"] == row["pearl"]  # scored, not NaN
    md = paper_beside.table4_markdown(table, header="tiny")
    assert "a tiny random BERT (test)" in render(md, "md")
