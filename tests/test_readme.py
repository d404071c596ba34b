"""The README's results section quotes results/ faithfully (.ci/readme_numbers.py), and talks to
a reader, not to the team's tracker."""
import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _tool():
    spec = importlib.util.spec_from_file_location("readme_numbers", ROOT / ".ci" / "readme_numbers.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


def test_every_number_in_the_results_section_matches_its_results_file():
    assert _tool().check() == []


def test_the_checker_catches_a_changed_number(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf8")
    bad = tmp_path / "README.md"
    # one fixed number and one that changes with every explorer run
    bad.write_text(re.sub(r"Median update latency is [\d.]+ ms", "Median update latency is 40 ms",
                          readme.replace("0.670 for GloVe", "0.671 for GloVe")))
    problems = _tool().check(bad)
    assert any("0.670 for GloVe" in p for p in problems) and any("40" in p for p in problems)


def test_no_tracker_talk():
    text = (ROOT / "README.md").read_text(encoding="utf8")
    for word in (r"\bissue\b", r"\bgoal\b", r"\bquiet\b", r"asks for", "≤"):
        assert not re.search(word, text, re.I), f"README says {word!r}: tracker words a reader never saw"


def test_quick_start_names_the_commands_and_the_kernel():
    quick = (ROOT / "README.md").read_text(encoding="utf8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for needed in ("make lab", "make explorer", "make reproduce", "PEARL companion", "04, 05 or 06 alone"):
        assert needed in quick


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
    tool = _tool()
    monkeypatch.setattr(tool, "R", tmp_path)
    (tmp_path / "benchmarks").mkdir()
    table = tmp_path / "benchmarks" / "reproduce_walltime.txt"
    table.write_text(_WALLTIME.format(tail=""))
    # venv 96 + 6 s = 1.7 min, HTML 6 + 6 s = 0.2 min, and the HTML comes last
    assert tool.reproduce_time() == (
        "a `make reproduce PROFILE=cpu` from a fresh clone, timed in 2 sittings, each notebook timed once, whole, "
        "took 4 minutes on 2 cores at commit `abcdef0` (minutes per stage: venv build 1.7, 00 0.2, 01 2.0, HTML 0.2)")
    table.write_text(_WALLTIME.format(tail="\nnot complete: 02_c.ipynb still to run (--resume)\n"))
    assert tool.reproduce_time() is None  # an unfinished run is no answer to "how long"
    table.write_text(_WALLTIME.format(tail="").replace("exit status 0", "exit status 2"))
    assert tool.reproduce_time() is None
