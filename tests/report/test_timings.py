"""The batch run's time from its records (pearl.report.timings)."""
import json

from pearl.report import common, timings

_WALLTIME = """make reproduce PROFILE=cpu, 2 sittings, each notebook timed once, whole, from a fresh clone, commit abcdef0123456789
on 2 CPU cores; exit status 0; 1-minute load average sampled every 30 s

stage                                  seconds   elapsed min  mean load  max load
venv build and system packages              96           1.6       0.82      0.90   (sitting 1)
00_template.ipynb                           12           1.8        nan       nan   (sitting 1)
html                                         6           1.9        nan       nan   (sitting 1)
venv build and system packages               6           2.0        nan       nan   (sitting 2)
01_data_building.ipynb                     120           4.0       1.30      1.44   (sitting 2)
html                                         6           4.1        nan       nan   (sitting 2)
{tail}
total: 4.1 minutes (246 s)
"""


def test_the_reproduce_time_sums_each_stage_over_the_sittings(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    table = tmp_path / "results" / "benchmarks" / "reproduce_walltime.txt"
    table.write_text(_WALLTIME.format(tail=""))
    # venv 96 + 6 s = 1.7 min, HTML 6 + 6 s = 0.2 min, and the HTML comes last
    assert timings.reproduce_time() == {"reproduce.whole": (
        "a `make reproduce PROFILE=cpu` from a fresh clone, timed in 2 sittings, each notebook timed once, whole, "
        "took 4 minutes on 2 cores at commit `abcdef0` (minutes per stage: venv build 1.7, 00 0.2, 01 2.0, HTML 0.2)")}
    table.with_suffix(".json").write_text('{"sittings": [{"gflops": [null, 131.4]}, {"gflops": [128.0, 240.2]}]}')
    assert timings.reproduce_time()["reproduce.whole"].endswith(
        "HTML 0.2); the machine sustained 128–240 GFLOPS (fp32 matmul, every core) at its sittings' starts and ends")
    table.with_suffix(".json").write_text(json.dumps({"sittings": [
        {"notebooks": ["00_template.ipynb"]}, {"notebooks": ["13_discrepancy.ipynb"], "ahead_of": ["08_ablations.ipynb"]}],
        "notes": ["Re-timed by hand."]}))
    assert timings.reproduce_time()["reproduce.whole"].endswith(
        "HTML 0.2); out of the Makefile's order: sitting 2 ran 13 ahead of 08. By hand: Re-timed by hand.")
    table.write_text(_WALLTIME.format(tail="\nnot complete: 02_c.ipynb still to run (--resume)\n"))
    assert timings.reproduce_time() == {}  # an unfinished run is no answer to "how long"
    table.write_text(_WALLTIME.format(tail="").replace("exit status 0", "exit status 2"))
    assert timings.reproduce_time() == {}
    table.write_text(_WALLTIME.format(tail="\npaused: 01_data_building.ipynb went 900 s without a load sample\n"))
    assert timings.reproduce_time() == {}  # the clock ran on while the run did not


def test_a_run_of_the_batch_as_it_is_now_is_the_headlines_measured_time(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    (tmp_path / "results" / "benchmarks" / "reproduce_walltime.txt").write_text(_WALLTIME.format(tail=""))
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ORDER").write_text("00_template.ipynb 01_data_building.ipynb 11_methods.ipynb\n")
    (tmp_path / "notebooks" / "SEPARATE").write_text("11_methods.ipynb\n")
    assert timings.reproduce_time()["reproduce.measured"] == (
        "4 minutes on 2 cores, measured: one run from a fresh clone in 2 sittings, each notebook timed once, whole, "
        "at commit `abcdef0` (`results/benchmarks/reproduce_walltime.txt`)")
    (tmp_path / "results" / "benchmarks" / "reproduce_projection.json").write_text(json.dumps({"stages": [
        {"stage": "01_data_building.ipynb", "commit": "abcdef0123456789", "source_changed": True},
        {"stage": "00_template.ipynb", "commit": "abcdef0123456789", "source_changed": False}]}))
    assert timings.reproduce_time()["reproduce.measured"].endswith(
        "(`results/benchmarks/reproduce_walltime.txt`); notebook 01 changed since it was timed (the source differs "
        "from the timed commit's), so its time is of an earlier version")
    (tmp_path / "results" / "benchmarks" / "reproduce_walltime.json").write_text('{"sittings": [], "notes": ["x"]}')
    assert timings.reproduce_time()["reproduce.measured"] == (
        "4 minutes on 2 cores, measured: one run from a fresh clone in 2 sittings, each notebook timed once, whole, "
        "at commit `abcdef0` (`results/benchmarks/reproduce_walltime.txt`); a note in the record says what was done "
        "to it by hand, and why; notebook 01 changed since it was timed (the source differs from the timed commit's), "
        "so its time is of an earlier version")
    (tmp_path / "notebooks" / "SEPARATE").write_text("")  # the batch now has a notebook the run did not time
    assert "reproduce.measured" not in timings.reproduce_time()


def test_the_rehearsal_time_names_its_commit_and_load(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    assert timings.rehearsal_time() == {}  # no record: no sentence (the headline says it is missing)
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    (tmp_path / "results" / "benchmarks" / "rehearsal.json").write_text(
        '{"what": "make rehearse", "git_sha": "abcdef0123", "wall_time_s": 630.0, "hardware": {"cpu_count": 2}, '
        '"load_average_start": [1.04, 1, 1], "load_average_end": [1.66, 1, 1]}')
    assert timings.rehearsal_time() == {"rehearsal.time": (
        "10 minutes on 2 cores, measured at commit `abcdef0` (load average 1.0 at its start, 1.7 at its end; "
        "`results/benchmarks/rehearsal.json`)")}


def test_the_projection_says_which_notebooks_changed_since_their_timing(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    proj = tmp_path / "results" / "benchmarks" / "reproduce_projection.json"
    stages = [{"stage": "00_template.ipynb", "seconds": 12.0, "commit": "a" * 40},
              {"stage": "08_ablations.ipynb", "seconds": 3600.0, "commit": "a" * 40},
              {"stage": "09_backbones.ipynb", "seconds": 1200.0, "commit": "b" * 40}]
    body = {"stages": stages, "total_min": 80.2, "lower_bound": False, "cpu_count": [2]}
    proj.write_text(json.dumps({**body, "changed_since_timed": []}))
    assert timings.reproduce_projection()["reproduce.projection"] == (
        "projected at 80 minutes on 2 cores from the latest timing of each of its stages (minutes per stage "
        "at `aaaaaaa`: 00 0.2, 08 60.0; at `bbbbbbb`: 09 20.0)")
    proj.write_text(json.dumps({**body, "changed_since_timed": ["08_ablations.ipynb", "09_backbones.ipynb"]}))
    assert timings.reproduce_projection()["reproduce.projection"].endswith(
        "09 20.0); notebooks 08 and 09 changed since they were timed (the source differs from the timed commit's), "
        "so their times are of an earlier version")
    proj.write_text(json.dumps({**body, "changed_since_timed": ["09_backbones.ipynb"]}))
    assert timings.reproduce_projection()["reproduce.projection"].endswith(
        "; notebook 09 changed since it was timed (the source differs from the timed commit's), so its time is of "
        "an earlier version")
    ratio = {"commit": "a" * 40, "ratio": 1.5, "low": 1.25, "high": 1.75, "stages": ["00_template.ipynb", "08_ablations.ipynb"]}
    proj.write_text(json.dumps({**body, "changed_since_timed": [], "speed_ratios": [ratio],
                                "total_min_on": {"b" * 40: 100.0, "a" * 40: 66.7}}))
    assert timings.reproduce_projection()["reproduce.projection"].endswith(
        "09 20.0). Timings from machines of different speed are tied by a ratio: "
        "`bbbbbbb`'s run took 1.50 times `aaaaaaa`'s on the same work (1.25–1.75 over notebooks 00, 08: same source, "
        "same notebooks before them). Brought to each machine by its ratio, the sum is 100 minutes on the machine of "
        "the `bbbbbbb` timing, 67 minutes on the machine of the `aaaaaaa` timing")
    assert timings.reproduce_projection()["reproduce.on_machines"] == (
        "; brought to the machine of the `aaaaaaa` timing by the two timings' ratio on the same work (1.50, 1.25–1.75), "
        "it projects at 67 minutes (`results/benchmarks/reproduce_projection.json`)")


def test_a_timing_still_in_sittings_is_said_as_under_way(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    (tmp_path / "results" / "benchmarks").mkdir(parents=True)
    assert timings.reproduce_under_way() == {"reproduce.under_way": ""}  # none: the sentence is left out
    state = {"commit": "e" * 40, "cpu_count": 2, "complete": False, "remaining": ["08_x.ipynb", "09_y.ipynb"],
             "sittings": [{"exit_status": 0, "gflops": [None, 139.4]}],
             "stages": [{"stage": "venv build and system packages", "seconds": 180.0},
                        {"stage": "00_a.ipynb", "seconds": 60.0}, {"stage": "07_b.ipynb", "seconds": 120.0}]}
    record = tmp_path / "results" / "benchmarks" / "reproduce_walltime.json"
    record.write_text(json.dumps(state))
    assert timings.reproduce_under_way()["reproduce.under_way"] == (
        " A timing of the batch at commit `eeeeeee` is under way in sittings (`results/benchmarks/reproduce_walltime.txt`): "
        "notebooks 00, 07 and their stages took 6.0 minutes on 2 cores, the machine sustaining 139 GFLOPS; "
        "08, 09 are still to run.")
    record.write_text(json.dumps({**state, "remaining": ["09_y.ipynb"]}))
    assert timings.reproduce_under_way()["reproduce.under_way"].endswith("; 09 is still to run.")
    record.write_text(json.dumps({**state, "sittings": [{"exit_status": 2}]}))  # a failed sitting is no timing
    assert timings.reproduce_under_way() == {"reproduce.under_way": ""}
    record.write_text(json.dumps({**state, "sittings": [{"exit_status": 0}, {"exit_status": None}]}))  # killed
    assert timings.reproduce_under_way() == {"reproduce.under_way": ""}
    record.write_text(json.dumps({**state, "complete": True}))  # a complete one is the "last whole run"
    assert timings.reproduce_under_way() == {"reproduce.under_way": ""}
