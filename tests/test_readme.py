"""The README is a manual: short, no measured number outside its generated headline block
(harness.report.build writes it from the results files), links that resolve, and it talks to a
reader, not to the team's tracker."""
import re
from pathlib import Path

from harness.report.build import HEADLINE_END, HEADLINE_START, TEACHING_END, TEACHING_START

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
#: a decimal number (66.4, 0.05, 1,025.5) or a percentage: what a measurement looks like
DECIMAL = re.compile(r"(?<![\w.§])\d[\d,]*\.\d+|\d+(?:\.\d+)? ?%")


def hand_written(text: str) -> str:
    """``text`` without its generated blocks, fenced code, code spans and section signs' numbers."""
    for first, last in ((HEADLINE_START, HEADLINE_END), (TEACHING_START, TEACHING_END)):
        start, end = text.index(first), text.index(last) + len(last)
        text = text[:start] + text[end:]
    text = re.sub(r"^```.*?^```", " ", text, flags=re.M | re.S)
    text = re.sub(r"\b\d+\.\d+\.\d+\.\d+\b", " ", text)  # addresses (127.0.0.1), not measurements
    return re.sub(r"§[\d.–-]+", " ", text)  # the paper's section numbers


def decimals(text: str) -> list[str]:
    """
    >>> decimals("PEARL gains 1.2 points (§5.1, `python 3.11`), 40 % of them")
    ['1.2', '40 %']
    """
    return DECIMAL.findall(re.sub(r"`[^`\n]*`", " ", text))


def test_the_readme_is_short():
    assert len(README.read_text().splitlines()) <= 300


def test_no_decimal_number_outside_the_generated_block():
    found = decimals(hand_written(README.read_text()))
    assert found == [], f"hand-copied numbers in the README (put them in results/ and the report): {found}"


def test_the_checker_catches_a_hand_copied_number(tmp_path):
    text = README.read_text().replace("## Quick start", "PEARL gains 1.2 points.\n\n## Quick start")
    assert decimals(hand_written(text)) == ["1.2"]


def test_links_resolve():
    text = README.read_text()
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", text):
        assert (ROOT / target).exists(), target
    for needed in ("results/REPORT.md", "STANDINS.md", "RELIABILITY.md", "CONTRIBUTING.md"):
        assert f"]({needed})" in text, needed


def test_no_tracker_talk():
    text = README.read_text(encoding="utf8")
    for word in (r"\bissue\b", r"\bgoal\b", r"\bquiet\b", r"asks for", "≤"):
        assert not re.search(word, text, re.I), f"README says {word!r}: tracker words a reader never saw"


def test_the_two_commands_and_the_quick_start():
    text = README.read_text()
    setup = text.split("## Set up and run", 1)[1].split("\n## ", 1)[0]
    assert "make reproduce" in setup and "make test" in setup
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    for needed in ("make lab", "make explorer", "make site", "PEARL companion", "04, 05 or 06 alone"):
        assert needed in quick


def test_the_readme_says_how_to_build_the_environment_alone():
    """`make setup` is named, and is a target of the Makefile (the README promises no number for it)."""
    makefile = (ROOT / "Makefile").read_text()
    assert "`make setup`" in README.read_text() and re.search(r"^setup:", makefile, flags=re.M)


def test_the_teaching_path_comes_first_with_its_generated_time():
    """The first section is setup, make model, make explorer, in that order, then make model's time
    from its record (generated: harness.report.build.teaching)."""
    text = README.read_text()
    first = text.split("\n## ", 2)[1]
    assert first.startswith("First steps")
    commands = [first.index(f"make {c}") for c in ("setup", "model", "explorer")]
    assert commands == sorted(commands) and first.index(TEACHING_START) > commands[-1]
    assert first.index(TEACHING_START) < first.index(TEACHING_END)
