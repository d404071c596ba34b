"""perf/reproduce_walltime.py against a stand-in ``make`` that prints what the Makefile
prints: one sitting, two sittings that add up, and a refused resume after a failed notebook."""
import importlib.util
import json
import os
import stat
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("reproduce_walltime", ROOT / "perf" / "reproduce_walltime.py")
rw = importlib.util.module_from_spec(spec)
spec.loader.exec_module(rw)

FAKE_MAKE = """#!/bin/bash
# prints the Makefile's stage lines for the notebooks it is given; FAIL_AT names one to fail in
for arg in "$@"; do case "$arg" in NOTEBOOKS=*) nbs="${arg#NOTEBOOKS=}";; esac; done
for nb in $nbs; do
  echo "== $nb -p PROFILE cpu"
  if [ "$nb" = "$FAIL_AT" ]; then exit 2; fi
done
echo ".venv/bin/jupyter nbconvert --to html"
"""


@pytest.fixture
def clone(tmp_path, monkeypatch):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "ORDER").write_text("00_a.ipynb\n01_b.ipynb\n02_c.ipynb\n")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "x"],
                   cwd=tmp_path, check=True)
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    (bin_ / "make").write_text(FAKE_MAKE)
    (bin_ / "make").chmod((bin_ / "make").stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _state(clone):
    return json.loads((clone / "results/benchmarks/reproduce_walltime.json").read_text())


def test_one_sitting_times_every_stage(clone):
    assert rw.main([]) == 0
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "one uninterrupted run" in text and "exit status 0" in text
    assert [s["stage"] for s in _state(clone)["stages"]] == [
        "venv build and system packages", "00_a.ipynb", "01_b.ipynb", "02_c.ipynb", "html"]
    assert _state(clone)["complete"]


def test_two_sittings_add_up_and_say_so(clone):
    assert rw.main(["--until", "01"]) == 0
    state = _state(clone)
    assert state["remaining"] == ["02_c.ipynb"] and not state["complete"]
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "not complete: 02_c.ipynb" in text and "exit status 0" in text  # stopped by --until, not failed
    assert rw.main(["--resume"]) == 0
    state = _state(clone)
    assert state["complete"] and [s["sitting"] for s in state["stages"] if s["stage"].endswith(".ipynb")] == [1, 1, 2]
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "2 sittings, each notebook timed once, whole" in text and "exit status 0" in text
    with pytest.raises(SystemExit, match="the run is complete"):
        rw.main(["--resume"])


def test_a_failed_notebook_is_not_timed_and_blocks_resume(clone, monkeypatch):
    monkeypatch.setenv("FAIL_AT", "01_b.ipynb")
    assert rw.main([]) == 2
    state = _state(clone)
    assert [s["stage"] for s in state["stages"]][-1] == "00_a.ipynb"  # 01 failed: its time is not kept
    assert "exit status 2" in (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    with pytest.raises(SystemExit, match="fresh clone"):
        rw.main(["--resume"])


def test_a_sitting_killed_without_warning_blocks_resume(clone, monkeypatch):
    assert rw.main(["--until", "00"]) == 0

    def killed(*_):  # what the record holds when the process dies mid-sitting (SIGKILL runs no cleanup)
        assert _state(clone)["sittings"][-1] == {"notebooks": ["01_b.ipynb", "02_c.ipynb"], "exit_status": None,
                                                 "gflops": [None, None]}
        raise SystemExit(137)

    sitting = rw._sitting
    monkeypatch.setattr(rw, "_sitting", killed)
    with pytest.raises(SystemExit):
        rw.main(["--resume"])
    monkeypatch.setattr(rw, "_sitting", sitting)
    with pytest.raises(SystemExit, match="killed inside a notebook"):
        rw.main(["--resume"])


def test_resume_needs_an_earlier_sitting(clone):
    with pytest.raises(SystemExit, match="run without --resume first"):
        rw.main(["--resume"])


def test_separate_notebooks_are_not_part_of_the_batch(clone):
    (clone / "notebooks" / "SEPARATE").write_text("01_b.ipynb\n")
    assert rw.batch() == ["00_a.ipynb", "02_c.ipynb"]
    assert rw.main([]) == 0
    assert [s["stage"] for s in _state(clone)["stages"]] == [
        "venv build and system packages", "00_a.ipynb", "02_c.ipynb", "html"]


def test_only_times_some_of_the_rest_and_keeps_the_others(clone):
    assert rw.main(["--until", "00"]) == 0
    with pytest.raises(SystemExit, match="with --resume"):
        rw.main(["--only", "02"])
    assert rw.main(["--resume", "--only", "02"]) == 0  # 02 before 01: it reads nothing 01 writes
    state = _state(clone)
    assert state["remaining"] == ["01_b.ipynb"] and not state["complete"]
    assert rw.main(["--resume"]) == 0
    state = _state(clone)
    assert state["complete"] and [s["stage"] for s in state["stages"] if s["stage"].endswith(".ipynb")] == [
        "00_a.ipynb", "02_c.ipynb", "01_b.ipynb"]
    # out of the Makefile's order: on record, and said, since a notebook's time can depend on it
    assert [s.get("ahead_of") for s in state["sittings"]] == [None, ["01_b.ipynb"], None]
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "order: sitting 2 ran 02_c.ipynb ahead of 01_b.ipynb, which the Makefile runs first" in text


def test_only_in_the_makefiles_order_runs_ahead_of_nothing(clone):
    assert rw.main(["--until", "00"]) == 0
    assert rw.main(["--resume", "--only", "01"]) == 0
    assert "ahead_of" not in _state(clone)["sittings"][-1]
    assert "order:" not in (clone / "results/benchmarks/reproduce_walltime.txt").read_text()


def test_the_makefile_and_the_script_agree_on_the_batch():
    out = subprocess.run(["make", "-n", "-s", "reproduce"], cwd=ROOT, capture_output=True, text=True).stdout
    line = next(x for x in out.splitlines() if ".ci/batch.py" in x)
    listed = [w for w in line.split() if w.endswith(".ipynb")]
    assert listed == rw.batch(ROOT) and "11_methods.ipynb" not in listed


def test_projection_takes_each_stage_from_the_newest_record_that_timed_it():
    new = {"commit": "b" * 40, "cpu_count": 2, "stages": [
        {"stage": "venv build and system packages", "seconds": 90.0}, {"stage": "00_a.ipynb", "seconds": 10.0},
        {"stage": "html", "seconds": 5.0}, {"stage": "venv build and system packages", "seconds": 3.0},
        {"stage": "02_c.ipynb", "seconds": 30.0}, {"stage": "html", "seconds": 6.0}]}
    old = {"commit": "a" * 40, "cpu_count": 2, "stages": [
        {"stage": "venv build and system packages", "seconds": 100.0}, {"stage": "00_a.ipynb", "seconds": 12.0},
        {"stage": "01_b.ipynb", "seconds": 20.0}, {"stage": "02_c.ipynb", "seconds": 40.0}]}
    proj = rw.project([new, old], ["00_a.ipynb", "01_b.ipynb", "02_c.ipynb"])
    got = {r["stage"]: (r["seconds"], r["commit"][0]) for r in proj["stages"]}
    # per-sitting stages once, at their longest; 01 only the old record timed
    assert got == {"venv build and system packages": (90.0, "b"), "00_a.ipynb": (10.0, "b"),
                   "01_b.ipynb": (20.0, "a"), "02_c.ipynb": (30.0, "b"), "html": (6.0, "b")}
    assert proj["total_s"] == 156.0 and proj["missing"] == ["site"] and proj["lower_bound"]


def test_a_notebooks_own_record_stands_in_last(tmp_path):
    (tmp_path / "01_b.json").write_text(json.dumps({"wall_time_s": 7.5, "provenance": {"git_sha": "c" * 40}}))
    own = rw.own_records(["00_a.ipynb", "01_b.ipynb"], tmp_path)
    timed = {"commit": "b" * 40, "cpu_count": 2, "stages": [{"stage": "00_a.ipynb", "seconds": 10.0}]}
    rows = rw.project([timed, own], ["00_a.ipynb", "01_b.ipynb"])["stages"]
    assert [(r["stage"], r["seconds"], r["own_record"], r["commit"][0]) for r in rows if r["stage"].endswith(".ipynb")] \
        == [("00_a.ipynb", 10.0, False, "b"), ("01_b.ipynb", 7.5, True, "c")]


def test_the_machines_speed_is_read_at_each_sittings_start_and_end(clone, monkeypatch):
    assert rw.machine_rate() is None  # no venv yet: no reading, and the run goes on without one
    readings = iter([None, 131.4, 128.0, 133.0])  # sitting 1 builds the venv: no start reading
    monkeypatch.setattr(rw, "machine_rate", lambda: next(readings))
    assert rw.main(["--until", "00"]) == 0
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "GFLOPS at start / end of the run: n/a / 131" in text
    assert rw.main(["--resume"]) == 0
    assert [s["gflops"] for s in _state(clone)["sittings"]] == [[None, 131.4], [128.0, 133.0]]
    text = (clone / "results/benchmarks/reproduce_walltime.txt").read_text()
    assert "GFLOPS at start / end of sitting 1: n/a / 131; sitting 2: 128 / 133" in text


def test_a_failed_reading_is_no_reading(tmp_path):
    python = tmp_path / "python"
    python.write_text("#!/bin/sh\necho 'Traceback: no torch' >&2\nexit 1\n")
    python.chmod(0o755)
    assert rw.machine_rate(python) is None


def test_a_stage_the_sampler_went_silent_in_is_a_pause():
    # stage a: samples every 30 s; stage b: one sample, then 400 s of nothing (a suspended machine)
    samples = [(30.0, 1.0), (60.0, 2.0), (90.0, 3.0), (130.0, 2.0)]
    rows = rw.stage_rows([("a", 0.0), ("b", 100.0)], 530.0, samples)
    assert [(r["stage"], r["seconds"], r["max_gap_s"]) for r in rows] == [("a", 100.0, 30.0), ("b", 430.0, 400.0)]
    assert rows[0]["mean_load"] == 2.0 and rows[1]["max_load"] == 2.0
    assert [rw.paused(r) for r in rows] == [False, True]
    state = {"profile": "cpu", "commit": "c" * 40, "cpu_count": 2, "complete": True, "remaining": [],
             "sittings": [{"notebooks": ["a", "b"], "exit_status": 0}], "stages": rows}
    assert "paused: b went 400 s without a load sample" in rw.render(state)
    assert "paused: a" not in rw.render(state)


def test_projection_passes_over_a_paused_stage_to_an_older_record():
    new = {"commit": "b" * 40, "cpu_count": 2, "stages": [{"stage": "00_a.ipynb", "seconds": 900.0, "max_gap_s": 700.0}]}
    old = {"commit": "a" * 40, "cpu_count": 2, "stages": [{"stage": "00_a.ipynb", "seconds": 12.0}]}
    row = next(r for r in rw.project([new, old], ["00_a.ipynb"])["stages"] if r["stage"] == "00_a.ipynb")
    assert (row["seconds"], row["commit"][0]) == (12.0, "a")


def _two_commits(root: Path, notebooks: list[str], changed: str) -> tuple[str, str]:
    """A git repository at ``root`` whose second commit changes notebook ``changed``'s source."""
    def git(*args):
        return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q")
    (root / "notebooks/src").mkdir(parents=True)
    for nb in notebooks:
        (root / f"notebooks/src/{nb}.py").write_text("x = 1\n")
    git("add", ".")
    git("commit", "-q", "-m", "timed")
    first = git("rev-parse", "HEAD")
    (root / f"notebooks/src/{changed}.py").write_text("x = 2\n")
    git("commit", "-q", "-am", "later")
    return first, git("rev-parse", "HEAD")


def test_source_changed_compares_the_notebooks_source_with_the_timed_commit(tmp_path):
    timed, _ = _two_commits(tmp_path, ["00_a", "01_b"], changed="01_b")
    assert rw.source_changed("00_a.ipynb", timed, tmp_path) is False
    assert rw.source_changed("01_b.ipynb", timed, tmp_path) is True
    assert rw.source_changed("html", timed, tmp_path) is None
    assert rw.source_changed("00_a.ipynb", "f" * 40, tmp_path) is None  # a commit this clone lacks


def test_a_speed_ratio_reads_only_notebooks_run_like_for_like(tmp_path):
    old_sha, new_sha = _two_commits(tmp_path, ["00_a", "01_b", "02_c", "03_d", "04_e"], changed="02_c")
    old = {"commit": old_sha, "stages": [{"stage": s, "seconds": t} for s, t in [
        ("venv build and system packages", 100.0), ("00_a.ipynb", 100.0), ("01_b.ipynb", 200.0),
        ("02_c.ipynb", 300.0), ("03_d.ipynb", 30.0), ("04_e.ipynb", 400.0)]]}
    # new: 00 and 01 like for like (ratios 1.5 and 2.0, and 300 s more of 01 paused: not it);
    # 02's source changed, 03 is under a minute in one record, 04 ran before 02 and 03 this time
    new = {"commit": new_sha, "stages": [{"stage": s, "seconds": t} for s, t in [
        ("venv build and system packages", 300.0), ("00_a.ipynb", 150.0), ("01_b.ipynb", 400.0),
        ("04_e.ipynb", 1600.0), ("02_c.ipynb", 900.0), ("03_d.ipynb", 90.0)]]}
    got = rw.speed_ratio(new, old, tmp_path)
    assert got == {"commit": old_sha, "ratio": 1.75, "low": 1.5, "high": 2.0, "stages": ["00_a.ipynb", "01_b.ipynb"]}
    # a sitting that started with another notebook's files on disk (``after``) is not like for like either
    sat = {"commit": new_sha, "sittings": [{"notebooks": ["00_a.ipynb"]}, {"notebooks": ["01_b.ipynb"], "after": ["04_e.ipynb"]}],
           "stages": [{**st, "sitting": 1 if st["stage"] == "00_a.ipynb" else 2} for st in new["stages"]]}
    assert rw.speed_ratio(sat, old, tmp_path)["stages"] == ["00_a.ipynb"]
    table = rw.render({**sat, "profile": "cpu", "cpu_count": 2, "complete": True, "remaining": [],
                       "sittings": [{**x, "exit_status": 0} for x in sat["sittings"]],
                       "stages": [{**x, "mean_load": None, "max_load": None} for x in sat["stages"]]})
    assert "order: sitting 2 started with what 04_e.ipynb had written on disk, though this record times it later" in table
    new["stages"][2]["max_gap_s"] = 600.0  # 01 paused in the new record: 00 alone ties the two
    assert rw.speed_ratio(new, old, tmp_path)["stages"] == ["00_a.ipynb"]
    new["stages"][1]["seconds"] = 50.0  # and 00 now under a minute: nothing ties them
    assert rw.speed_ratio(new, old, tmp_path) is None


def test_a_projection_is_brought_to_each_timings_machine_by_its_ratio():
    proj = {"stages": [{"stage": "00_a.ipynb", "seconds": 600.0, "commit": "b" * 40},
                       {"stage": "01_b.ipynb", "seconds": 1200.0, "commit": "a" * 40}]}
    ratios = [{"commit": "a" * 40, "ratio": 1.5}]
    # on b's machine: 600 + 1200 x 1.5 = 2400 s = 40 min; on a's: 2400 / 1.5 = 1600 s = 26.7 min
    assert rw.on_machines(proj, {"commit": "b" * 40}, ratios) == {"b" * 40: 40.0, "a" * 40: 26.7}
    assert list(rw.on_machines(proj, {"commit": "b" * 40}, ratios)) == ["b" * 40, "a" * 40]  # the newest first
    assert rw.on_machines(proj, {"commit": "b" * 40}, []) == {}  # a's machine unknown: no one-machine total
