"""Our numbers for the claims, read from a results folder written by hand."""
import json

import pytest

from harness.claims import ours


def _results(tmp_path, models, originals):
    rows = lambda items: [{"group": g, "model": m, "dataset": d, "score": s, "std": 0.4} for g, m, d, s in items]
    record = {"metrics": {"backbone_models": rows(models), "backbone_originals": rows(originals),
                          "arm_models": [{"recipe": r, "model": f"{r or 'full'}{i}", "short-text average": s}
                                         for r, scores in (("", (80, 82, 84)), ("no-char-encoder", (70, 71, 72)))
                                         for i, s in enumerate(scores)]}}
    (tmp_path / "14_short_text_arms.json").write_text(json.dumps(record))
    return ours.Results(tmp_path)


def test_short_sets_on_another_backbone_read_notebook_14(tmp_path):
    sets = ("twitter_s", "atis_s", "twitter_l", "atis_l")
    seed = {"s0": (70, 90, 60, 80), "s1": (72, 92, 61, 81)}
    models = [("me5-small", m, d, s) for m, scores in seed.items() for d, s in zip(sets, scores)]
    models += [("minilm.l2", "x", d, 0.0) for d in sets]  # another backbone's rows are not read
    res = _results(tmp_path, models, [("me5-small", "me5", d, s) for d, s in zip(sets, (66, 88, 60, 80))])
    x, ref, se = ours._short(res, ("twitter_s", "atis_s"), "me5-small")
    assert sorted(x) == [80.0, 82.0] and ref == 77.0
    # the reference's own noise: two sets, each a mean of 10 classifier runs with std 0.4
    assert se == pytest.approx((2 * 0.4 ** 2 / 10) ** 0.5 / 2)
    # short minus long, per seed: s0 80 − 70 = 10, s1 82 − 71 = 11; the reference 77 − 70 = 7
    diff = ours.short_minus_long(res, "me5-small")
    assert diff["ours"] == pytest.approx(10.5 - 7)
    # Welch: the variance of the seeds' mean (var(10, 11) / 2 = 0.25) plus the two reference means' variances
    assert diff["se"] ** 2 == pytest.approx(0.25 + 2 * se ** 2)


def test_a_backbone_without_short_text_scores_is_a_key_error(tmp_path):
    res = _results(tmp_path, [("me5-small", "s0", "twitter_s", 70.0)], [("me5-small", "me5", "twitter_s", 60.0)])
    with pytest.raises(KeyError):
        ours.short_set_on(res, "me5-small", "twitter_s", "atis_s")


def test_a_character_arm_on_short_texts_is_its_seeds_less_the_full_recipes(tmp_path):
    """Notebook 14's arm_models: − character encoder at 70, 71, 72 against the full recipe's 80, 82,
    84: a difference of 71 − 82 = −11; a missing arm is a KeyError (the claim stays untestable)."""
    res = _results(tmp_path, [], [])
    out = ours.short_ablation(res, "no-char-encoder")
    assert out["ours"] == pytest.approx(-11.0) and out["n"] == 3
    with pytest.raises(KeyError):
        ours.short_ablation(res, "no-char-aug")


def _labels(tmp_path, part):
    curve = [{"share": 0.1, "model": f"p{i}", "average": a} for i, a in enumerate(part)]
    curve += [{"share": 1.0, "model": f"f{i}", "average": a} for i, a in enumerate((50.0, 52.0, 54.0))]
    (tmp_path / "11_methods.json").write_text(json.dumps({"metrics": {"label_efficiency": curve}}))
    return ours.Results(tmp_path)


def test_a_label_share_with_one_seed_reads_the_fully_labelled_seeds_spread(tmp_path):
    """One seed at 10 % (49) against 50, 52, 54 (mean 52, std 2, 2 dof): −3, se 2·√(1 + 1/3)."""
    out = ours.label_share(_labels(tmp_path, [49.0]), 0.1)
    assert out["ours"] == pytest.approx(-3.0) and out["df"] == 2 and out["n"] == 1
    assert out["se"] == pytest.approx(2 * (1 + 1 / 3) ** 0.5)


def test_a_label_share_with_seeds_is_welchs_t_over_both_sides(tmp_path):
    """48, 49, 50 (var 1) against 50, 52, 54 (var 4): −3, se √(1/3 + 4/3), Welch's dof
    (5/3)² / ((1/3)²/2 + (4/3)²/2) = 2.94."""
    out = ours.label_share(_labels(tmp_path, [48.0, 49.0, 50.0]), 0.1)
    assert out["ours"] == pytest.approx(-3.0) and out["n"] == 3 and out["n_ref"] == 3
    assert out["se"] == pytest.approx((5 / 3) ** 0.5)
    assert out["df"] == pytest.approx((5 / 3) ** 2 / ((1 / 3) ** 2 / 2 + (4 / 3) ** 2 / 2))


def test_a_damaged_results_file_names_itself_and_the_fix(tmp_path):
    """A record cut short (a copy that failed, a bad merge) used to raise a bare JSONDecodeError."""
    (tmp_path / "08_ablations.json").write_text('{"metrics": {"table": [')
    with pytest.raises(ValueError, match=r"08_ablations\.json is damaged: not JSON .*Rerun notebook "
                                         r"notebooks/08_ablations\.ipynb.*git checkout -- .*08_ablations\.json"):
        ours.Results(tmp_path).metrics("08_ablations")


def _copy_results(tmp_path):
    """The committed results files (the ledger's evidence) in a folder of their own."""
    import shutil

    from pearl import paths

    return shutil.copytree(paths.ROOT / "results", tmp_path / "results")


def test_a_full_size_ledger_refuses_a_smoke_record_naming_it(tmp_path):
    """Before: notebook 12 at full size, given results whose 08_ablations.json is a SMOKE record, read
    it as evidence, exited 0 and changed the verdict counts without saying SMOKE. Now the ledger stops,
    naming the file and the fix; a SMOKE ledger reads it and says its scale."""
    from harness import outputs
    from harness.scale import FULL, SMOKE
    from harness.claims import report

    folder = _copy_results(tmp_path)
    record = json.loads((folder / "08_ablations.json").read_text())
    record["parameters"]["SMOKE"] = True
    (folder / "08_ablations.json").write_text(json.dumps(record))
    with pytest.raises(outputs.SmokeInput, match=rf"{folder}/08_ablations\.json holds a SMOKE output.*RESULTS_FROM"):
        report.build(ours.Results(folder, guard=FULL.guard))
    smoke = ours.Results(folder, guard=SMOKE.guard)
    ours.ablation(smoke, "no-char-aug", "average")
    assert [s["scale"] for s in smoke.sources()] == ["smoke"]


def test_a_smoke_table_is_refused_too(tmp_path):
    from harness import outputs
    from harness.scale import FULL

    folder = _copy_results(tmp_path)
    import pandas as pd

    table = folder / "table1.csv"
    pd.read_csv(table).assign(smoke=True).to_csv(table, index=False)  # as save_table writes a SMOKE table
    with pytest.raises(outputs.SmokeInput, match=rf"{table} holds a SMOKE output"):
        ours.value(ours.Results(folder, guard=FULL.guard), "glove", "ppdb")


def test_the_ledger_lists_every_file_it_read_with_its_commit_and_scale():
    """A record names its own commit; a table the commit of the record of the notebook that wrote it;
    a text log none. Paths are from the repository root (no machine path in claims.json)."""
    from harness.scale import FULL
    from pearl import paths

    res = ours.Results(guard=FULL.guard)  # the harness's guard says each file's scale
    ours.ablation(res, "no-char-aug", "average")
    ours.value(res, "glove", "ppdb")
    ours.hard_negative_cost(res)
    ours.ablation(res, "no-token-aug", "average")  # read twice, listed once
    sources = {s["file"]: s for s in res.sources()}
    assert list(sources) == ["results/08_ablations.json", "results/perf/experiment_models.txt", "results/table1.csv"]
    record = json.loads((paths.ROOT / "results" / "08_ablations.json").read_text())
    assert sources["results/08_ablations.json"]["commit"] == record["provenance"]["git_sha"]
    bench = json.loads((paths.ROOT / "results" / "04_benchmark.json").read_text())
    assert sources["results/table1.csv"] == {"file": "results/table1.csv", "commit": bench["provenance"]["git_sha"],
                                             "scale": "full", "commit_from": "results/04_benchmark.json"}
    assert sources["results/perf/experiment_models.txt"]["commit"] is None
    assert {s["scale"] for s in sources.values()} == {"full"}
