"""perf/reproduce_walltime.py: the batch's notebooks' records added up, in the batch's order,
beside the machine's rate; a notebook without a record makes the total a lower bound."""
import importlib.util
import json
from pathlib import Path

from harness.report import common, timings

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("reproduce_walltime", ROOT / "perf" / "reproduce_walltime.py")
rw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rw)


def _batch(tmp_path, records: dict[str, float]):
    """A tree whose batch is 00, 01 and 11 less 11 (SEPARATE), with the given records' wall times."""
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ORDER").write_text("00_a.ipynb\n01_b.ipynb\n11_c.ipynb\n")
    (tmp_path / "notebooks" / "SEPARATE").write_text("11_c.ipynb\n")
    (tmp_path / "results").mkdir()
    for name, seconds in records.items():
        (tmp_path / "results" / f"{name}.json").write_text(json.dumps(
            {"wall_time_s": seconds, "provenance": {"git_sha": "abcdef0123", "hardware": {"cpu_count": 2}}}))


def test_it_adds_up_the_batchs_records_and_says_the_machines_rate(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    _batch(tmp_path, {"00_a": 60.0, "01_b": 120.0, "11_c": 6000.0})  # 11 is SEPARATE: not in the sum
    assert rw.main(["--no-rate"]) == 0
    out = capsys.readouterr().out
    assert [ln.split()[0] for ln in out.splitlines()[1:3]] == ["00_a.ipynb", "01_b.ipynb"]
    assert "11_c" not in out and "batch: 3.0 minutes on 2 cores (records' cells only)" in out
    assert "GFLOPS" not in out
    rows, missing = timings.batch_records()
    assert rw.table(rows, missing, 151.2).endswith("this machine: 151 GFLOPS sustained (fp32 matmul 2048 x 2048, every core)")


def test_a_notebook_without_a_record_makes_the_total_a_lower_bound(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    _batch(tmp_path, {"00_a": 60.0})
    rw.main(["--no-rate"])
    out = capsys.readouterr().out
    assert "batch: at least 1.0 minutes" in out and "no record with a wall time: 01_b.ipynb" in out
