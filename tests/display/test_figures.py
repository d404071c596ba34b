"""Figure 1 (ranking cases) and Figure 4 (YAGO-type sample, projections, separation scores)."""
import json
import re

import numpy as np
import pytest
from pearl.data import autofj_names
from pearl.display import figure1, figure4
from pearl.models import label as model_label
from pearl.models import load_model
from pearl.paths import models_dir
from pearl.provenance import save_figure
from pearl.tabular import render


def test_rank_candidates_orders_by_cosine_and_keeps_ties_stable():
    q = np.array([1.0, 0.0])
    c = np.array([[0.6, 0.8], [1.0, 0.0], [0.6, 0.8], [0.0, 1.0]])
    scores, ranks = figure1.rank_candidates(q, c)
    assert scores.round(2).tolist() == [0.6, 1.0, 0.6, 0.0]
    assert ranks.tolist() == [2, 1, 3, 4]


def test_shipped_cases_start_with_the_paper_example():
    cases = figure1.ranking_cases()
    assert cases[0]["query"] == "The New York Times"
    assert cases[0]["aliases"] == ["nytimes.com", "NYTimes", "New-York Daily Times"]
    assert cases[0]["others"] == ["New York Post", "New York"]
    kinds = " ".join(c["kind"] for c in cases)
    assert "typo" in kinds and "acronym" in kinds and "same surface" in kinds
    assert len({c["case"] for c in cases}) == len(cases)


def test_bad_case_file_names_what_is_missing(tmp_path):
    bad = tmp_path / "cases.json"
    bad.write_text(json.dumps([{"case": "x", "kind": "k", "query": "q", "aliases": ["a"]}]))
    with pytest.raises(ValueError, match="others"):
        figure1.ranking_cases(bad)


def test_figure1_table_marks_aliases_first_from_the_ranks(minilm):
    cases = figure1.ranking_cases()[:3]
    table = figure1.figure1_table({"minilm": minilm}, cases)
    assert len(table) == sum(len(c["aliases"]) + len(c["others"]) for c in cases)
    for _, d in table.groupby("case"):
        assert sorted(d["rank"]) == list(range(1, len(d) + 1))
        expected = d.loc[d.is_alias, "rank"].max() == d.is_alias.sum()
        assert d["aliases_first"].all() == expected
    # the paper's point: a general-purpose sentence encoder puts "New York Post" above an alias
    paper = table[table.case == "figure1"].set_index("candidate")
    assert paper.loc["New York Post", "rank"] < paper.loc["NYTimes", "rank"]
    md = render(figure1.figure1_markdown(table), "md")
    assert "**NYTimes**" in md and "All aliases ranked first" in md
    fig = figure1.plot_figure1(table)
    written = save_figure(fig, "figure1_test")
    assert all(p.stat().st_size > 1000 for p in written)


def test_yago_mapping_uses_real_autofj_sets_once():
    known = set(autofj_names())
    used = [ds for group in figure4.YAGO_GROUPS.values() for ds in group]
    assert set(used) <= known
    assert len(used) == len(set(used)), "an AutoFJ set is mapped to two groups"
    assert list(figure4.YAGO_GROUPS) == ["Place", "Person", "MedicalEntity", "Event", "Organization", "CreativeWork"]


def test_type_sample_is_seeded_balanced_and_unambiguous():
    a = figure4.type_sample(20, seed=3)
    assert a == figure4.type_sample(20, seed=3)
    assert a != figure4.type_sample(20, seed=4)
    groups = [g for _, g in a]
    assert {g: groups.count(g) for g in set(groups)} == {g: 20 for g in figure4.YAGO_GROUPS}
    names = [n for n, _ in a]
    assert len(set(names)) == len(names)
    assert not any(re.search(r"\)\s*$", n) for n in names), "disambiguators must be stripped"
    with pytest.raises(ValueError, match="fewer"):
        figure4.type_sample(10**6)


def test_separation_scores_tell_clusters_from_noise():
    rng = np.random.default_rng(0)
    centres = rng.normal(size=(3, 8)) * 10
    labels = np.repeat(["a", "b", "c"], 30)
    clustered = centres[np.repeat([0, 1, 2], 30)] + rng.normal(size=(90, 8))
    good = figure4.separation(clustered, labels, "euclidean")
    noise = figure4.separation(rng.normal(size=(90, 8)), labels, "euclidean")
    assert good["silhouette"] > 0.5 and good["knn_accuracy"] == 1.0
    assert noise["silhouette"] < 0.1 and noise["knn_accuracy"] < 0.6
    assert figure4.separation(clustered, labels, "euclidean", seed=1) == figure4.separation(
        clustered, labels, "euclidean", seed=1)


def test_tsne_projection_is_seeded_and_unknown_method_fails():
    x = np.random.default_rng(0).normal(size=(40, 16)).astype(np.float32)
    a, b = figure4.project(x, "tsne", seed=0), figure4.project(x, "tsne", seed=0)
    assert a.shape == (40, 2) and np.allclose(a, b)
    with pytest.raises(ValueError, match="tsne"):
        figure4.project(x, "pca")


def test_figure4_data_and_plot(minilm):
    sample = figure4.type_sample(8, seed=0)
    table, proj = figure4.figure4_data({"minilm": minilm}, sample, methods=("tsne",))
    assert table[["model", "space"]].values.tolist() == [["minilm", "embedding"], ["minilm", "tsne"]]
    assert table["knn_accuracy"].between(0, 1).all() and table["silhouette"].between(-1, 1).all()
    assert (table["zero_vectors"] == 0).all(), "MiniLM sees every name"
    assert proj["minilm"]["tsne"].shape == (len(sample), 2)
    fig = figure4.plot_figure4(proj, [g for _, g in sample], table)
    assert fig.axes[0].get_xlabel().startswith("2-D: silhouette") and fig.axes[0].get_ylabel() == "t-SNE"
    # the embeddings' own numbers, not only the projection's, under the model's name (#70: the
    # panels quoted t-SNE's silhouettes alone, two to three times the embeddings')
    name, space, measured = fig.axes[0].get_title().rsplit("\n", 2)
    emb = figure4.in_space(table).iloc[0]
    assert name.replace("\n", " ") == model_label("minilm") and space == "full embeddings:"
    assert measured == f"silhouette {emb.silhouette:.3f} · kNN acc {emb.knn_accuracy:.2f}"
    assert "full embeddings" in fig.get_supxlabel().replace("\n", " ")
    # a model with zero vectors (GloVe: names out of vocabulary) gets the note on the figure
    glove = table.assign(model="glove", zero_vectors=5)
    fig = figure4.plot_figure4({"glove": proj["minilm"]}, [g for _, g in sample], glove)
    note = fig.get_supxlabel().replace("\n", " ")
    assert "5 of 48 names" in note and "zero vector" in note


def test_figure1_labels_models_as_table1_and_says_no_verdict_in_red(minilm):
    table = figure1.figure1_table({"minilm": minilm}, figure1.ranking_cases()[:2])
    fig = figure1.plot_figure1(table)
    bars, grid = fig.axes
    title = bars.get_title().replace("\n", " ")
    assert title.startswith(model_label("minilm")) and "aliases ranked" in title
    assert "outranked" not in bars.get_title() and bars.title.get_color() == "black"
    cells = [t.get_text() for t in grid.texts]
    assert len(cells) == 2 and all(c[0] in "✓✗" and c.endswith("/3") for c in cells)


def test_a_trained_pearl_folder_joins_the_figures_and_the_explorer(scratch_output):
    """An exported PEARL folder under models/pearl-* is found, loaded and ranked like any model."""
    import shutil

    import torch
    from _tiny import LABELS, tiny_backbone
    from pearl.display.explorer import Explorer
    from pearl.training.export import export
    from pearl.training.model import build_model

    backbone, tok = tiny_backbone()
    torch.manual_seed(0)
    folder = export(build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval(), tok,
                    models_dir("pearl-minilm-seed99"), labels=LABELS)
    try:
        names = figure1.default_models(with_glove=False)
        assert names[0] == "minilm" and str(folder) in names
        label = model_label(str(folder))
        assert label == "PEARL seed 99 (MiniLM backbone)"
        models = {label: load_model(folder, device="cpu")}
        table = figure1.figure1_table(models, figure1.ranking_cases()[:1])
        assert set(table["model"]) == {label} and table["rank"].tolist() != []
        app = Explorer(models, "The New York Times", ["NYTimes", "New York Post"], debounce_s=0)
        assert f'data-model="{label}"' in app.ranking.value
    finally:
        shutil.rmtree(folder)


def test_figure5_marks_the_papers_choice_and_the_untrained_backbone():
    import pandas as pd

    from pearl.display.figure5 import plot_hyperparameters

    points = pd.DataFrame({"parameter": ["lr", "lr", "hard_negatives", "hard_negatives"],
                           "value": [1e-5, 3e-5, 0, 2], "score": [66.8, 67.2, 67.6, 67.2]})
    fig = plot_hyperparameters(points, 0.17, reference={"lr": 3e-5, "hard_negatives": 2}, untrained=67.3)
    labels = [t.get_text() for ax in fig.axes for t in ax.get_legend().get_texts()]
    assert "paper's choice (3e-05)" in labels and "paper's choice (2)" in labels
    assert labels.count("untrained backbone (67.3)") == 2


def test_figure1_metrics_and_sample_groups_from_a_hand_made_table():
    import pandas as pd

    table = pd.DataFrame({"model": ["a", "a", "a", "b", "b", "b"], "case": ["figure1", "figure1", "typo"] * 2,
                          "aliases_first": [True, True, False, False, False, True]})
    cases = [{"case": "figure1"}, {"case": "typo"}]
    assert figure1.figure1_metrics(table, cases, ["a", "b"]) == {
        "figure1_aliases_first": {"a": True, "b": False}, "figure1_cases_with_aliases_first": {"a": 1, "b": 1},
        "figure1_cases": 2}
    assert figure4.sample_groups([("Paris", "place"), ("Bach", "person")]) == ["place", "person"]


def test_in_space_keeps_one_spaces_rows():
    import pandas as pd

    table = pd.DataFrame({"model": ["a", "a", "b"], "space": ["embedding", "tsne", "embedding"], "silhouette": [0.1, 0.2, 0.3]})
    assert figure4.in_space(table)["model"].tolist() == ["a", "b"]
    assert figure4.in_space(table, "tsne")["silhouette"].tolist() == [0.2]
