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
