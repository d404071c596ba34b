"""harness.report.front: the full-size run's gain beside the budget curve's projection at its views,
on a hand-made run and curve (oracle values)."""
import json

import pandas as pd
import pytest

from harness.report import common, front

DATASETS = ["ppdb", "ppdb_filtered", "turney", "bird", "yago", "umls", "conll", "bc5cdr", "autofj"]
#: a log-linear curve by hand: gain = log10(views), s = 0.5 on 10 degrees of freedom, x̄ = 4, Sxx = 8; at
#: 1e6 views the 95 % prediction interval is 6 -+ t(0.975, 10) 0.5 sqrt(1 + 1/12 + 4/8) = 6 -+ 1.40182
CURVE = {"fits": {"cpu, rule/minilm": {
    "fit": {"intercept": 0.0, "slope": 1.0, "resid_std": 0.5, "dof": 10, "n": 12, "x_mean": 4.0, "sxx": 8.0,
            "views_max": 1e5, "aic": 0.0},
    "saturating": {"failed": "not fitted in this test"}}}}


@pytest.fixture
def results(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    folder = tmp_path / "results" / front.FULL_SIZE
    folder.mkdir(parents=True)
    return folder


def rows(model, plus):
    return [{"model": model, "dataset": d, "score": 50.0 + i + plus} for i, d in enumerate(DATASETS)]


def write_run(folder, offsets, reference=None, views=1_000_000):
    """One Table 1 file and one training log a seed (``offsets``: each seed's gain on every dataset)."""
    for seed, offset in enumerate([offsets] if isinstance(offsets, float) else offsets):
        (folder / f"table1_full_size_seed{seed}.json").write_text(json.dumps({"rows": rows(f"pearl-minilm-seed{seed}", offset)}))
        record = {"seed": seed, "epochs": 2, "corpus_phrases": 1_958_040, "steps": 1953, "views": views + seed * (views == 7)}
        (folder / f"full_size_seed{seed}_train.log").write_text(f"Loading weights\n{json.dumps(record)}\nWriting model shards\n")
    ref = folder.parents[1] / (reference or f"{front.FULL_SIZE}/table1_full_size_minilm.json")
    ref.parent.mkdir(parents=True, exist_ok=True)
    # a reference file may hold other models' rows (the subset run's seeds): only MiniLM's are read from it
    ref.write_text(json.dumps({"rows": rows("minilm", 0.0) + rows("pearl-minilm-seed0", -9.0)}))
    prov = {"code_commit": "abcdef1234", "machine": "one NVIDIA H200, 16 CPU cores; torch 2.11"}
    (folder / "provenance.json").write_text(json.dumps({**prov, **({"reference": reference} if reference else {})}))


@pytest.mark.parametrize("offset, where", [(2.0, "outside"), (5.0, "inside")])
def test_the_full_size_gain_sits_beside_the_projection_at_its_views(results, offset, where):
    write_run(results, offset)
    fs = front.full_size(CURVE)
    assert fs["gain"] == pytest.approx(offset) and fs["views"] == 1_000_000 and fs["commit"] == "abcdef1"
    p = fs["projection"]
    assert (p["pi_low"], p["gain"], p["pi_high"]) == pytest.approx((6 - 1.40182, 6.0, 6 + 1.40182), abs=1e-4)
    assert p["extrapolation"] == pytest.approx(10.0)
    text = front.full_size_sentence(fs, "6.1 (5.46 like for like)")
    assert f"by {offset:+.2f} points" in text and "+4.60 to +7.40 at these views" in text
    assert f"lies {where} that interval" in text and "1,958,040 phrases, 2 epochs, 1,000,000 views" in text


def test_a_run_that_scored_no_minilm_reads_the_reference_its_provenance_names(results):
    write_run(results, 3.0, reference="gpu/gpu_profile_seeds/table1.json")
    assert not (results / "table1_full_size_minilm.json").exists()
    assert front.full_size(CURVE)["gain"] == pytest.approx(3.0)


def test_before_the_run_the_sentence_says_it_has_not_run(results):
    assert front.full_size(CURVE) is None
    assert "has not run yet" in front.full_size_sentence(None, "6.1")


def test_several_seeds_give_their_mean_and_the_one_sample_t_interval(results):
    """Gains 1, 2, 3: mean 2, sd 1, se 1/sqrt(3), t(0.975, 2) = 4.302653: 2 -+ 2.484138."""
    write_run(results, [1.0, 2.0, 3.0])
    fs = front.full_size(CURVE)
    assert fs["seeds"] == [0, 1, 2] and fs["gains"] == pytest.approx([1.0, 2.0, 3.0])
    assert (fs["ci_low"], fs["gain"], fs["ci_high"]) == pytest.approx((2 - 2.484138, 2.0, 2 + 2.484138), abs=1e-5)
    text = front.full_size_sentence(fs, "6.1")
    assert "3 seeds of PEARL move MiniLM's like-for-like average by +2.00 points on average" in text
    assert "(95 % interval -0.48 to +4.48)" in text and "the measured mean lies outside that interval" in text
    claims = pd.DataFrame([{"id": "C01", "backbone": "MiniLM", "paper": 6.1, "paper_like_for_like": 5.46, "ours": 0.3,
                            "ci_low": 0.1, "ci_high": 0.5, "n": 3, "verdict": "below the paper"}])
    curve = {**CURVE, "points": [{"backbone": "minilm", "series": "cpu, rule", "budget": 1.0, "views": 4800}]}
    curve["fits"]["cpu, rule/minilm"] = {**curve["fits"]["cpu, rule/minilm"], "paper_budget": {"views": 7.6e6}}
    row = front.table(claims, curve, None, fs).splitlines()[3]
    assert row.startswith("| MiniLM (fp16 copy) | gpu profile at full size, 1,000,000 views | +2.00 (-0.48 to +4.48) | 3 |")


def test_seeds_trained_at_different_sizes_are_refused(results):
    write_run(results, [1.0, 2.0], views=7)
    with pytest.raises(ValueError, match="different sizes"):
        front.full_size(CURVE)
