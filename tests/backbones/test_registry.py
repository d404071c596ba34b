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
    assert registry.named("MINILM").folder() == minilm.folder() and registry.find("x/y") is None


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
    from pearl.corpus.augment import AugmentLexicons
    from pearl.benchmark.scoring import run_model_sets
    from pearl.experiments import backbones as table4, paper_beside, runs, tables
    from pearl.experiments.runner import train_models
    from pearl.tabular import render

    entry, built = tiny_registered
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "output"))
    corpus = [(p, t if t != "VP" else "VP-DATE") for p, t in tiny_corpus(48)]  # the corpus' own types
    words = "new york times paris city green tree run fast bank river old man small house".split()
    augment = AugmentLexicons(wordnet={w: [w[::-1]] for w in words}, paraphrases={})
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


# ------------------------------------------------------------------ CONTRIBUTING's "Add a backbone", step by step
ROOT = Path(__file__).resolve().parents[2]
#: modules outside pearl.backbones that keep a module-level table of backbone names, and why it is not the registry's
OWN_TABLES = {
    "pearl/experiments/discrepancy.py": "the discrepancy study's design: the two backbones it crosses with corpora "
                                        "and budgets, described in the study's words",
    "pearl/display/explorer.py": "its presets: \"minilm\" names a set of models to show (MiniLM and its PEARL "
                                 "seeds), not anything about the backbone",
}


def _steps() -> list[str]:
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf8")
    section = text.split("## Add a backbone\n", 1)[1].split("\n## ", 1)[0]
    import re

    return [m.strip() for m in re.split(r"\n(?=\d\. )", section)[1:]]


def test_contributing_adds_a_backbone_in_four_steps_that_hold():
    import dataclasses
    import re

    import pearl.training.profiles as profiles
    from pearl.encode import mean_pool  # noqa: F401  (step 2 names it as the pooling run)

    steps = _steps()
    assert [s[:2] for s in steps] == ["1.", "2.", "3.", "4."]
    # 1: a loader of no argument (and an optional built()) per entry
    for b in registry.BACKBONES.values():
        assert callable(b.folder) and (b.built is None or callable(b.built))
    # 2: the call it writes names every field of Backbone, in order, and the kinds and poolings it cites exist
    call = re.search(r"`register\(Backbone\((.*?)\)\)`", steps[1], re.S).group(1)
    written = [a.split("=")[0].strip() for a in call.replace("\n", " ").split(",")]
    assert written == [f.name for f in dataclasses.fields(Backbone)]
    assert "raw LM" in registry.KINDS and registry.POOLINGS == ("mean",)
    # 3: the command line takes --backbone; the composition reads no backbone's name
    assert '"--backbone"' in Path(profiles.__file__).read_text()
    composition = (ROOT / "lib/pearl/training/composition.py").read_text()
    assert not [n for b in registry.BACKBONES.values() for n in (*b.names(), b.short) if f'"{n}"' in composition]
    # 4: notebook 09 takes BACKBONES, and the test the step cites exists
    from conftest import notebook_parameters

    assert "BACKBONES" in notebook_parameters(ROOT / "notebooks/src/09_backbones.py")
    assert "test_a_new_backbone_is_one_entry_and_trains_scores_and_stands_in_table4" in steps[3]
    assert test_a_new_backbone_is_one_entry_and_trains_scores_and_stands_in_table4


def backbone_tables(root: Path = ROOT / "lib") -> list[str]:
    """``file:line name`` of every module-level table outside ``pearl/backbones`` (a dict keyed by, or
    a tuple, list or set holding, a registered backbone's name, alias or folder-name part): a second
    place that defines something per backbone, as the model registry's aliases and labels, Table 4's
    offline backbones and raw LMs and the model cards' hub ids once did."""
    import ast

    names = {n for b in registry.BACKBONES.values() for n in (*b.names(), b.short)}
    found = []
    for path in sorted((root / "pearl").rglob("*.py")):
        where = path.relative_to(root).as_posix()
        if where.startswith("pearl/backbones/") or where in OWN_TABLES:
            continue
        for node in ast.parse(path.read_text(encoding="utf8")).body:
            value = node.value if isinstance(node, (ast.Assign, ast.AnnAssign)) else None
            items = value.keys if isinstance(value, ast.Dict) else \
                value.elts if isinstance(value, (ast.Tuple, ast.List, ast.Set)) else []
            found += [f"{where}:{k.lineno} {k.value}" for k in items
                      if isinstance(k, ast.Constant) and isinstance(k.value, str) and k.value.lower() in names]
    return found


def test_the_registry_is_the_one_place_a_backbone_is_defined(tmp_path):
    assert not backbone_tables(), "tables keyed by backbone names outside pearl.backbones.registry"
    assert all((ROOT / "lib" / f).is_file() for f in OWN_TABLES)
    # the check finds a table like the model registry's old labels
    (tmp_path / "pearl").mkdir()
    (tmp_path / "pearl" / "labels.py").write_text('NAMES = {"minilm": "MiniLM", "me5": "E5"}\nRAW = ("mlm-wiki",)\n')
    assert backbone_tables(tmp_path) == ["pearl/labels.py:1 minilm", "pearl/labels.py:1 me5", "pearl/labels.py:2 mlm-wiki"]
