"""The batch's time from its notebooks' records, and the rehearsal's (harness.report.timings)."""
import json

from harness.report import common, timings


def _record(path, seconds, sha="abcdef0123"):
    path.write_text(json.dumps({"wall_time_s": seconds, "provenance": {"git_sha": sha, "hardware": {"cpu_count": 2}}}))


def test_the_batch_time_adds_up_the_latest_records_of_its_notebooks(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ORDER").write_text("00_a.ipynb 01_b.ipynb 11_c.ipynb\n")
    (tmp_path / "notebooks" / "SEPARATE").write_text("11_c.ipynb\n")
    (tmp_path / "results").mkdir()
    assert timings.batch_time() == {}  # no record: no sentence (the headline says it is missing)
    _record(tmp_path / "results" / "00_a.json", 600.0)
    _record(tmp_path / "results" / "11_c.json", 6000.0)  # SEPARATE: its own make target, not the batch
    assert timings.batch_time() == {"reproduce.time": (
        "at least 10 minutes on 2 cores, the wall times of the latest records of its 1 notebook added up "
        "(`results/NN_*.json`, cells only, at commits `abcdef0`; no record yet for 01; `perf/reproduce_walltime.py` "
        "prints them beside this machine's speed)")}
    _record(tmp_path / "results" / "01_b.json", 1200.0, sha="1234567890")
    assert timings.batch_time()["reproduce.time"].startswith(
        "30 minutes on 2 cores, the wall times of the latest records of its 2 notebooks added up "
        "(`results/NN_*.json`, cells only, at commits `abcdef0`, `1234567`; `perf/")


def test_the_rehearsal_time_names_its_commit_and_load(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    assert timings.rehearsal_time() == {}  # no record: no sentence (the headline says it is missing)
    (tmp_path / "results" / "perf").mkdir(parents=True)
    (tmp_path / "results" / "perf" / "rehearsal.json").write_text(
        '{"what": "make rehearse", "git_sha": "abcdef0123", "wall_time_s": 630.0, "hardware": {"cpu_count": 2}, '
        '"load_average_start": [1.04, 1, 1], "load_average_end": [1.66, 1, 1]}')
    assert timings.rehearsal_time() == {"rehearsal.time": (
        "10 minutes on 2 cores, measured at commit `abcdef0` (load average 1.0 at its start, 1.7 at its end; "
        "`results/perf/rehearsal.json`)")}


def test_make_models_time_names_its_stages_commit_and_load(tmp_path, monkeypatch):
    from harness.report import build

    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    assert timings.model_time() == {}  # no record: no sentence (the README's teaching block says it is missing)
    assert "no result yet: `model.time`" in build.teaching()
    (tmp_path / "results" / "perf").mkdir(parents=True)
    (tmp_path / "results" / "perf" / "make_model.json").write_text(json.dumps({
        "what": "make model", "git_sha": "abcdef0123", "wall_time_s": 390.0, "hardware": {"cpu_count": 2},
        "stages": {"data": {"built": True, "seconds": 90.0}, "tables": {"built": True, "seconds": 120.0},
                   "model": {"built": True, "seconds": 180.0}},
        "load_average_start": [1.04, 1, 1], "load_average_end": [1.66, 1, 1]}))
    sentence = ("6.5 minutes on 2 cores (data 1.5, tables 2.0, model 3.0), measured at commit `abcdef0` (load average "
                "1.0 at its start, 1.7 at its end; `results/perf/make_model.json`)")
    assert timings.model_time() == {"model.time": sentence}
    assert build.teaching() == f"{build.TEACHING_START}\n`make model` took {sentence}.\n{build.TEACHING_END}"
