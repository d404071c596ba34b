"""The report is strict (harness.report.common): a null, NaN or missing number renders as *no result*
with its reason, never as ``nan``, ``None`` or a crash; a Table 1 that is not one never becomes the
README's headline; a damaged results file is an error naming it and the fix."""
import json
import math
import shutil
from pathlib import Path

import pytest

from harness.record import Run
from harness.report import build, common, ledger_lines, mechanism, timings

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def results(tmp_path, monkeypatch):
    """An empty results folder the report reads (and ``Run.save`` writes)."""
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    (tmp_path / "results").mkdir()
    return tmp_path / "results"


@pytest.mark.parametrize("value", [None, math.nan, math.inf, "61.2", True])
def test_num_refuses_anything_but_a_finite_number(value):
    with pytest.raises(common.NoResult, match="where a number belongs"):
        common.num(value, ".1f")


def test_a_null_metric_that_run_save_wrote_renders_as_no_result_with_its_reason(results):
    """A NaN mean saved by Run.save is ``null`` with its reason under "undefined": the sentence used
    to crash on it (TypeError formatting None); now it says no result and why."""
    row = {"backbone": "minilm", "corpus": "wikitext2", "set": "conll", "seeds": 2, "untrained": 37.5,
           "mean": math.nan, "std": 0.4, "difference": 0.2, "ci_low": -1.0, "ci_high": 1.4}
    Run("views_mechanism").save({}, undefined={"seeds/0/mean": "no seed finished its run"}, seeds=[row])
    assert json.loads((results / "views_mechanism.json").read_text())["seeds"][0]["mean"] is None
    text = build.render("{{views.seeds}}", mechanism.sentences())
    assert text.startswith("*[no result: `views.seeds`;") and "`results/views_mechanism.json`" in text
    assert "seeds/0/mean undefined: no seed finished its run" in text
    assert "None" not in text.replace("gives None", "") and "nan" not in text


def test_a_key_missing_from_its_record_renders_as_no_result_naming_it(results):
    record = json.loads((ROOT / "results" / "budget_curve.json").read_text())
    for fit in record["fits"].values():
        del fit["fit"]["se_slope"]
    (results / "budget_curve.json").write_text(json.dumps(record))
    values = mechanism.sentences()
    assert "budget.series" not in values and "budget.*" in values  # one function's sentences go together
    text = build.render("{{budget.fits}}", values)
    assert text == ("*[no result: `budget.fits`; `results/budget_curve.json` holds no 'se_slope'; rerun the notebook "
                    "or script that writes `results/budget_curve.json` (`git grep -l budget_curve.json scripts perf "
                    "notebooks/src`)]*")


def test_a_nan_in_the_ledger_is_no_result_never_nan(results):
    """The report said "would need nan to nan" for a row with no seed count; the ranking of the
    inconclusive rows names no NaN, and a NaN p of one claim leaves that claim's line alone *no result*."""
    shutil.copy(ROOT / "results" / "claims.csv", results / "claims.csv")
    values = ledger_lines.sentences()
    assert "nan" not in values["ledger.power_ranked"].lower()
    text = (results / "claims.csv").read_text().splitlines()
    c01 = next(i for i, ln in enumerate(text) if ln.startswith("C01,"))
    import pandas as pd

    frame = pd.read_csv(results / "claims.csv")
    frame.loc[frame["id"] == "C01", "p_adj"] = float("nan")
    frame.to_csv(results / "claims.csv", index=False)
    lines = ledger_lines.sentences()["ledger.lines"].splitlines()
    assert lines[c01 - 1].startswith("- *[no result: `C01`; `results/claims.csv` gives nan where a number belongs")
    assert not any("nan" in ln.lower().replace("gives nan", "") for ln in lines)
    assert sum("no result" in ln for ln in lines) == 1


def test_every_timing_sentence_falls_under_a_guarded_prefix():
    """build.sentences guards harness.report.timings from outside (build.TIMED): a key outside those
    prefixes would lose its *no result* note and show as *no result yet*."""
    keys = list(timings.all_sentences())
    assert keys and [k for k in keys if not k.startswith(build.TIMED)] == []


def test_the_report_builds_from_an_empty_results_folder_without_a_crash(results):
    """Each sentence whose file is absent is *no result* (paper.* used to crash on a missing record)."""
    values = build.sentences()
    assert "paper.bird" not in values and "is absent" in build.render("{{paper.bird}}", values)
    assert "no result yet: `table1`" in build.headline()
    assert "no result yet: `methods.simcse`" in build.headline()


@pytest.mark.parametrize("broken, why", [
    ("table1 was lost\n", "no header row"),
    ("| Model | Source | Avg |\n|---|---|---|\n| GloVe | this run | 39.6 |\n| E5-small | paper |\n", "row 4 has 2 cells"),
    ("| Model | Source | Avg |\n|---|---|---|\n| GloVe | this run | nan |\n", "is 'nan', not a number"),
    ("| Model | Source | Avg |\n|---|---|---|\n| GloVe | this run | 39.6 |\n", "no average for the paper's small models"),
])
def test_a_broken_table1_is_no_result_in_the_headline(results, broken, why):
    (results / "table1.md").write_text(broken)
    line = next(ln for ln in build.headline().splitlines() if ln.startswith("- **Table 1"))
    assert "*[no result: `table1`; `results/table1.md` is not Table 1 as notebook 04 writes it (" in line
    assert why in line and "git checkout -- results/table1.md" in line


def test_a_whole_table1_gives_its_averages(results):
    shutil.copy(ROOT / "results" / "table1.md", results / "table1.md")
    assert build.table1_averages().startswith("this run: GloVe 6B 50-d")


def test_a_damaged_results_file_is_an_error_naming_it_and_the_fix(results):
    (results / "04_benchmark.json").write_text('{"provenance": {"commit": "abc')
    with pytest.raises(ValueError, match=r"results/04_benchmark\.json is damaged: not JSON .* Rerun notebook "
                                         r"notebooks/04_benchmark\.ipynb .*git checkout -- results/04_benchmark\.json"):
        build.provenance()
    (results / "discrepancy.json").write_text("")
    with pytest.raises(ValueError, match=r"discrepancy\.json is damaged.*the notebook or script that writes it"):
        common.read_json("discrepancy.json")


def test_the_report_refuses_a_smoke_record_naming_it(tmp_path, monkeypatch):
    """A SMOKE record in results/ was quoted as a finding; now the sentence's read stops, naming the
    file and the fix. A full-size record reads as before."""
    from harness import outputs

    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results").mkdir()
    record = {"notebook": "08_ablations", "parameters": {"SMOKE": True}, "metrics": {"x": 1}}
    (tmp_path / "results" / "08_ablations.json").write_text(json.dumps(record))
    with pytest.raises(outputs.SmokeInput, match=r"results/08_ablations\.json holds a SMOKE output.*make reproduce"):
        common.read_json("08_ablations.json")
    record["parameters"]["SMOKE"] = False
    (tmp_path / "results" / "08_ablations.json").write_text(json.dumps(record))
    assert common.read_json("08_ablations.json")["metrics"] == {"x": 1}


def _plant(path: Path, change) -> None:
    """Parse ``path``, let ``change`` edit it, write it back (NaN as the bare token a non-strict writer leaves)."""
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))


def test_the_report_built_from_records_with_nulls_planted_never_prints_what_is_not_there(tmp_path, monkeypatch):
    """Before: the timing sentences bypassed num(): "Median update latency is None ms", "nan minutes",
    "nan–nan s", "None cores". Now the report, built in a scratch root from the committed records with
    nulls and NaN planted, says *no result* with the reason, and grep finds none of those."""
    import re

    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    shutil.copytree(ROOT / "results", tmp_path / "results")
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks", ignore=shutil.ignore_patterns("*.ipynb"))
    res = tmp_path / "results"
    _plant(res / "06_explorer.json", lambda r: r["metrics"]["update_latency_ms"].update(median_ms=None))
    _plant(res / "04_benchmark.json", lambda r: r.update(wall_time_s=math.nan))
    _plant(res / "03_training.json", lambda r: [m.update(train_s=math.nan) for m in r["metrics"]["models"]])
    _plant(res / "01_data_building.json", lambda r: r["provenance"]["hardware"].update(cpu_count=None))
    for name in ("perf/rehearsal.json", "perf/make_model.json"):
        _plant(res / name, lambda r: r["hardware"].update(cpu_count=None))
    for path, text in build.outputs(tmp_path).items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    found = [f"{p.relative_to(tmp_path)}:{n}" for p in [*res.rglob("*.md"), tmp_path / "README.md"]
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if re.search(r"None ms|nan minutes|None cores|nan–nan|None s\b", line)]
    assert found == []
    text = "".join(p.read_text() for p in [*res.rglob("*.md"), tmp_path / "README.md"])
    for key, said in (("speed.explorer", "`results/06_explorer.json` gives None"),
                      ("time.notebook04", "gives nan"), ("time.training", "gives nan"),
                      ("reproduce.time", "gives nan"), ("rehearsal.time", "gives None"), ("model.time", "gives None")):
        assert re.search(rf"\*\[no result: `{re.escape(key)}`; [^]]*{re.escape(said)} where a number belongs", text), key
    _plant(res / "04_benchmark.json", lambda r: r.update(wall_time_s=60.0))  # then the null core count speaks
    assert common.strict(timings.batch_time, "reproduce.")["reproduce.*"].endswith(
        "gives None where a number belongs; rerun what writes it")
    assert "*[no result: `speed.exact_search`" not in text  # the other sentences of the prefix still say theirs


def test_a_cut_claims_csv_names_the_file_line_and_fix(results):
    """Before: a claims.csv cut by a kill read its last row as empty cells, or failed inside pandas."""
    text = (ROOT / "results" / "claims.csv").read_text()
    (results / "claims.csv").write_text(text[: text.rindex(",", 0, len(text) - 200)])
    n = len((results / "claims.csv").read_text().splitlines())
    with pytest.raises(ValueError, match=rf"claims\.csv:{n} has \d+ fields where its header has \d+: .*git checkout"):
        ledger_lines.ledger()
