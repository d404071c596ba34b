"""The discrepancy study's arithmetic on hand-computed cases, and its design."""
import math

import pandas as pd
import pytest

from pearl import paths
from pearl.experiments import discrepancy as d
from pearl.experiments.discrepancy import COLUMNS, Cell


def _gains(cells: dict) -> pd.DataFrame:
    """Per-seed gain rows with the same gain in every column: ``{(backbone, corpus, budget): [gains]}``."""
    rows = [{"backbone": b, "corpus": c, "budget": g, "seed": s, "model": f"{b}/{c}/{g}/{s}", **{col: x for col in COLUMNS}}
            for (b, c, g), xs in cells.items() for s, x in enumerate(xs)]
    return pd.DataFrame(rows)


def test_gain_is_trained_minus_its_own_backbone():
    cell_a, cell_b = Cell("minilm", "wikitext2", "cpu"), Cell("me5-small", "wikitext2", "cpu")
    groups = pd.DataFrame([{"recipe": "x", "model": "m0", **{c: 60.0 for c in COLUMNS}},
                           {"recipe": "y", "model": "e0", **{c: 55.0 for c in COLUMNS}}])
    originals = pd.DataFrame([{"recipe": "minilm", **{c: 58.0 for c in COLUMNS}},
                              {"recipe": "me5-small", **{c: 50.0 for c in COLUMNS}}])
    g = d.gains_frame(groups, {"m0": (cell_a, 0), "e0": (cell_b, 0)}, originals).set_index("model")
    assert g.loc["m0", "average"] == 2.0 and g.loc["e0", "average"] == 5.0
    assert g.loc["e0", "backbone"] == "me5-small" and g.loc["e0", "seed"] == 0


def test_summary_mean_std_t_test_and_mde():
    # gains 1, 2, 3: mean 2, std 1, t = 2 / (1 / sqrt 3) = 3.464 on 2 dof -> p = 0.0742
    t = d.summary(_gains({("minilm", "wikitext2", "cpu"): [1.0, 2.0, 3.0],
                          ("minilm", "wikitext2", "10x"): [4.0]})).set_index("budget")
    assert t.loc["cpu", "average_gain"] == 2 and t.loc["cpu", "std"] == 1 and t.loc["cpu", "seeds"] == 3
    assert t.loc["cpu", "p"] == pytest.approx(0.0742, abs=1e-4)
    # mde > the t critical value times the se (2 dof: 4.303 / sqrt 3 = 2.48), below 3x it
    assert 2.48 < t.loc["cpu", "mde"] < 3 * 2.48
    assert t.loc["10x", "seeds"] == 1 and math.isnan(t.loc["10x", "std"]) and math.isnan(t.loc["10x", "p"])


def test_factor_pairs_differ_in_one_factor_only():
    gains = _gains({("minilm", "wikitext2", "cpu"): [1.0, 2.0, 3.0],   # mean 2, var 1
                    ("me5-small", "wikitext2", "cpu"): [5.0, 6.0, 7.0],  # mean 6, var 1
                    ("minilm", "wikitext2", "10x"): [3.0],
                    ("me5-small", "wikipedia-1x", "10x"): [9.0]})  # differs from every other cell in two factors
    pairs, pooled = d.factors(gains)
    assert set(zip(pairs["factor"], pairs["to"])) == {("backbone", "me5-small"), ("budget", "10x")}
    b = pairs.set_index("factor").loc["backbone"]
    assert b["delta_gain"] == 4 and b["se"] == pytest.approx(math.sqrt(1 / 3 + 1 / 3))
    # Welch t = 4 / 0.8165 = 4.899, 4 dof -> p = 0.0080
    assert b["p"] == pytest.approx(0.0080, abs=1e-4)
    u = pairs.set_index("factor").loc["budget"]  # one seed: it borrows the 3-seed side's variance
    assert u["delta_gain"] == 1 and u["se"] == pytest.approx(math.sqrt(1 / 3 + 1)) and math.isnan(u["p"])
    assert pooled.iloc[0]["factor"] == "backbone"  # the largest move first
    assert d.largest(pooled) == {"factor": "backbone", "from": "minilm", "to": "me5-small", "delta_gain": 4.0,
                                 "se": pytest.approx(math.sqrt(2 / 3)), "pairs": 1}


def test_pooled_factor_is_the_mean_of_its_pairs():
    gains = _gains({("minilm", "wikitext2", "cpu"): [1.0, 3.0], ("me5-small", "wikitext2", "cpu"): [3.0, 5.0],
                    ("minilm", "wikitext2", "10x"): [2.0, 4.0], ("me5-small", "wikitext2", "10x"): [8.0, 10.0]})
    _, pooled = d.factors(gains)
    row = pooled[(pooled["factor"] == "backbone")].iloc[0]
    # pairs: cpu 2 -> 4 (+2), 10x 3 -> 9 (+6); each se = sqrt(2/2 + 2/2) = sqrt 2, carried: sqrt(2 + 2) / 2 = 1;
    # but the pairs disagree: their spread std(+2, +6) / sqrt 2 = 2.83 / 1.41 = 2 is the larger, and wins
    assert row["pairs"] == 2 and row["delta_gain"] == 4 and row["se"] == pytest.approx(2.0)


def test_pooled_factor_keeps_the_seed_noise_when_its_pairs_agree():
    gains = _gains({("minilm", "wikitext2", "cpu"): [1.0, 3.0], ("me5-small", "wikitext2", "cpu"): [3.0, 5.0],
                    ("minilm", "wikitext2", "10x"): [2.0, 4.0], ("me5-small", "wikitext2", "10x"): [4.0, 6.0]})
    _, pooled = d.factors(gains)
    row = pooled[(pooled["factor"] == "backbone")].iloc[0]
    # pairs +2 and +2: no spread, so the carried seed noise sqrt(2 + 2) / 2 = 1 is the se
    assert row["delta_gain"] == 2 and row["se"] == pytest.approx(1.0)


def test_designs_and_their_folders():
    whole, reduced = d.cells("whole"), d.cells("reduced")
    assert len(whole) == 12 and len(reduced) == 8 and {c.key() for c in reduced} <= {c.key() for c in whole}
    names = {c.recipe().folder(0).name for c in whole}
    assert len(names) == 12  # no two configurations share a model folder
    # WikiText-2 at the cpu budget is notebook 03's recipe: its models are shared
    assert Cell("minilm", "wikitext2", "cpu").recipe().folder(1).name == "pearl-minilm-seed1"
    assert Cell("minilm", "wikipedia-10x", "10x").recipe().config == {"batch_size": 128, "steps": 375, "epochs": 6}
    # 6 passes over the cpu profile's ~9,300 anchors hold 375 x 128 = 48,000 views: ten times 150 x 32
    assert 6 * 9_000 >= 375 * 128 >= 10 * 150 * 32
    with pytest.raises(ValueError, match="choose from core, reduced, whole"):
        d.cells("all")


def test_tiny_budget_stays_tiny():
    assert d.design("reduced", "tiny") == d.tiny_cells() and d.design("reduced") == d.cells("reduced")
    with pytest.raises(ValueError, match="unknown design"):
        d.design("big", "tiny")
    assert d.budget_config("10x", tiny=True) == {"steps": 8} and d.budget_config("cpu", tiny=True) == {}
    assert d.tiny_cells()[2].recipe().config == {"steps": 8}  # a tiny cell's budget stays tiny
    with pytest.raises(ValueError, match="choose from cpu, 10x"):
        d.budget_config("huge", tiny=True)


def test_views_and_seconds_come_from_each_trained_folder(tmp_path, monkeypatch):
    import json

    from pearl import models

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    cell = Cell("minilm", "wikitext2", "10x", (0,))
    folder = cell.recipe().folder(0)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pearl.json").write_text(json.dumps({"train_seconds": 12.5, "train_config": {"batch_size": 128}}))
    paths.models_dir("runs", folder.name, "log.csv").write_text("step,loss\n" + "".join(f"{i},1.0\n" for i in range(7)))
    (label,) = d.trained([cell])
    got_cell, seed, row = d.trained([cell])[label]
    assert label == models.label(folder) and (got_cell, seed) == (cell, 0)
    assert (row["views"], row["train_s"]) == (7 * 128, 12.5)  # 7 steps done (not the 375 asked) x 128


def test_per_dataset_gain_is_the_seed_mean_minus_the_backbone():
    cpu, wiki = Cell("minilm", "wikitext2", "cpu", (0, 1)), Cell("minilm", "wikipedia-1x", "cpu", (0,))
    scored = pd.DataFrame([
        {"group": "a", "model": "s0", "dataset": "bc5cdr", "score": 10.0},
        {"group": "a", "model": "s1", "dataset": "bc5cdr", "score": 20.0},
        {"group": "a", "model": "s0", "dataset": "average", "score": 99.0},  # not a dataset: dropped
        {"group": "b", "model": "w0", "dataset": "bc5cdr", "score": 60.0}])
    base = pd.DataFrame([{"group": "minilm", "model": "all-MiniLM-L6-v2 (...)", "dataset": "bc5cdr", "score": 50.0}])
    out = d.dataset_gains(scored, base, {"s0": (cpu, 0), "s1": (cpu, 1), "w0": (wiki, 0)})
    # wikitext2: mean(10, 20) = 15 against 50 -> -35 over 2 seeds; wikipedia-1x: 60 - 50 = +10, one seed
    assert out[["corpus", "seeds", "backbone_score", "pearl", "gain"]].values.tolist() == [
        ["wikitext2", 2, 50.0, 15.0, -35.0], ["wikipedia-1x", 1, 50.0, 60.0, 10.0]]


def test_only_the_core_design_writes_notebook_13s_own_record():
    assert d.is_batch_design("core") and not d.is_batch_design("reduced") and not d.is_batch_design("whole")
