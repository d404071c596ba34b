"""Experiment tables on hand-computed cases."""
import math

import pandas as pd
import pytest

from pearl.experiments import tables


def test_compare_marks_only_differences_beyond_the_noise():
    g = pd.DataFrame({"recipe": ["full"] * 3 + ["a"] * 3 + ["b"] * 3,
                      "average": [60, 61, 62, 55, 56, 57, 59, 62, 63.0]})
    c = tables.compare(g, "full", columns=["average"]).set_index("recipe")
    assert c.loc["a", "delta"] == -5 and c.loc["a", "arrow"] == "↓*"
    assert c.loc["b", "delta"] == pytest.approx(1 / 3) and c.loc["b", "arrow"] == "↑"  # within noise: no star
    assert c.loc["full", "arrow"] == "" and c.loc["full", "std"] == 1.0
    assert tables.beyond_noise(c.reset_index()) == {"a": (-5.0, pytest.approx(0.0036, abs=1e-4))}


def test_compare_stars_with_the_ledgers_welch_test():
    """Three noisy seeds against six quiet ones: Student's pooled t would star it (p = 0.0015);
    Welch's, the ledger's test, does not (p = 0.079), and the table's p is the ledger's."""
    from scipy import stats

    from pearl.claims import rule

    ref, x = [60, 60.2, 59.8, 60.1, 59.9, 60.0], [62, 64.5, 66.5]
    g = pd.DataFrame({"recipe": ["full"] * 6 + ["a"] * 3, "average": ref + x})
    row = tables.compare(g, "full", columns=["average"]).set_index("recipe").loc["a"]
    assert stats.ttest_ind(x, ref, equal_var=True).pvalue < 0.05  # what the tables used to star
    assert row["arrow"] == "↑" and row["p"] == pytest.approx(rule.two_sample(x, ref)["p"], rel=1e-12)
    assert row["p"] == pytest.approx(stats.ttest_ind(x, ref, equal_var=False).pvalue, rel=1e-9)


def test_pooled_seed_std():
    g = pd.DataFrame({"recipe": ["x"] * 3 + ["y"] * 3, "average": [1, 2, 3, 2, 4, 6.0]})
    # variances 1 and 4, 2 degrees of freedom each: sqrt((2 * 1 + 2 * 4) / 4)
    assert tables.seed_std(g) == pytest.approx(math.sqrt(2.5))


def test_gains_against_the_original():
    after = pd.DataFrame({"recipe": ["weak"] * 3 + ["strong"] * 3, "average": [50, 52, 54, 60, 61, 59.0]})
    before = pd.DataFrame({"recipe": ["weak", "strong"], "average": [40.0, 60.0]})
    t = tables.gains(after, before).set_index("backbone")
    assert t.loc["weak", "gain"] == 12 and t.loc["weak", "pearl_std"] == 2 and t.loc["weak", "beyond_noise"]
    assert t.loc["strong", "gain"] == 0 and not t.loc["strong", "beyond_noise"]
    assert t.loc["weak", "control_n"] == 0 and math.isnan(t.loc["weak", "control_gain"])


def test_a_control_arm_joins_only_its_backbones_rows():
    after = pd.DataFrame({"recipe": ["raw"] * 3 + ["enc"] * 3, "average": [50, 52, 54, 60, 61, 59.0]})
    before = pd.DataFrame({"recipe": ["raw", "enc"], "average": [40.0, 60.0]})
    simcse = pd.DataFrame({"recipe": ["raw"] * 3, "average": [41, 42, 43.0]})
    t = tables.gains(after, before, control=simcse).set_index("backbone")
    # seeds 41, 42, 43 against 40: mean 42, std 1, t = 2 / (1 / sqrt 3) = 3.46 on 2 dof, p = 0.074
    assert t.loc["raw", "control_gain"] == 2 and t.loc["raw", "control_std"] == 1 and t.loc["raw", "control_n"] == 3
    assert t.loc["raw", "control_p"] == pytest.approx(0.0742, abs=1e-3)
    assert t.loc["enc", "control_n"] == 0 and math.isnan(t.loc["enc", "control"])


def test_wide_table_has_the_paper_layout():
    g = pd.DataFrame({"recipe": ["", "", "-x", "-x"], **{c: [1.0, 3.0, 0.0, 0.0] for c in tables.COLUMNS}})
    w = tables.wide(tables.compare(g, ""), {"": "full", "-x": "minus x"})
    assert list(w["recipe"]) == ["full", "minus x"]
    assert w.iloc[0, 1] == "2.0 ± 1.4" and w.iloc[1, -1].startswith("0.0 ± 0.0 ↓")


def test_unknown_reference_is_an_error():
    with pytest.raises(ValueError, match="has no scores"):
        tables.compare(pd.DataFrame({"recipe": ["a"], "average": [1.0]}), "full", columns=["average"])


def test_short_text_average_is_the_mean_over_the_four_sets():
    g = pd.DataFrame({"recipe": ["a", "a"], "model": ["a0", "a1"], "average": [1.0, 2.0]})
    short = pd.DataFrame({"group": ["a"] * 8, "model": ["a0"] * 4 + ["a1"] * 4,
                          "dataset": ["s", "l", "as", "al"] * 2, "score": [80, 70, 90, 100, 0, 0, 0, 4.0]})
    out = tables.add_short_text(g, short)
    assert list(out[tables.SHORT_TEXT]) == [85.0, 1.0]
    frame = tables.short_text_frame(short)  # per model, without the sweep groups: (80+70+90+100)/4, 4/4
    assert frame.to_dict("list") == {"recipe": ["a", "a"], "model": ["a0", "a1"], tables.SHORT_TEXT: [85.0, 1.0]}
    with pytest.raises(ValueError, match="some are missing: a1"):
        tables.add_short_text(g, short.iloc[:7])
    with pytest.raises(ValueError, match="no short-text scores for: a1"):
        tables.add_short_text(g, short.iloc[:4])


def test_ablation_summary_counts_the_ablations_that_lower_the_average():
    """By hand: the full recipe "" at 60, 61, 62; "a" at 50, 51, 52 (delta -10, far beyond the
    noise); "b" at 59, 62, 63 (delta +0.33, p large). Every recipe's seed std is 1 or more, so the
    pooled std is sqrt((2*1 + 2*1 + 2*4.333) / 6)."""
    g = pd.DataFrame({"recipe": [""] * 3 + ["a"] * 3 + ["b"] * 3, "model": list("xyzxyzxyz"),
                      "average": [60, 61, 62, 50, 51, 52, 59, 62, 63.0]})
    comparison = tables.compare(g, reference="", columns=["average"])
    summary = tables.ablation_summary(comparison, g, reference="")
    assert summary["ablations"] == 2 and summary["lower_average"] == 1 and summary["lower_average_beyond_noise"] == 1
    assert summary["seed_std_average"] == pytest.approx(math.sqrt((2 + 2 + 2 * 13 / 3) / 6))
    assert list(summary["beyond_noise"]) == ["a"] and summary["beyond_noise"]["a"][0] == pytest.approx(-10)


def test_gain_per_group():
    after = pd.DataFrame({"recipe": ["m", "m", "e"], "model": ["m0", "m1", "e0"],
                          "paraphrase": [50.0, 54.0, 40.0], "average": [60.0, 62.0, 45.0]})
    originals = pd.DataFrame({"recipe": ["m", "e"], "model": ["m", "e"], "paraphrase": [49.0, 41.0], "average": [58.0, 44.0]})
    gain = tables.gain_per_group(after, originals, columns=["paraphrase", "average"])
    assert gain.loc["m"].tolist() == [3.0, 3.0] and gain.loc["e"].tolist() == [-1.0, 1.0]  # (50+54)/2 - 49, (60+62)/2 - 58
