"""results/REPORT.md and the README's headline regenerate byte for byte from the results files
(as the notebooks are checked against their sources); the template holds no measured number of
its own; a missing results file shows as *no result yet*; a quoted log that changed shape fails."""
import json
import re
from pathlib import Path

import pytest

from harness.report import build, common, quotes, timings

ROOT = Path(__file__).resolve().parents[3]
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?")
#: numbers the template may write itself: names, the paper's section and table numbers, the rule's constants
NAMES = ("all-MiniLM-L6-v2", "MiniLM-L6", "GloVe 6B 50-d", "WikiText-2", "3-gram", "H100", "YAGO 4", "300-d", "Table 1",
         "Table-1", "Table 2", "Table 3", "Table 4", "Figure 5", "Figure 1", "Figure 4", "Figure A1", "Figure 3", "E5",
         "Tables 1–4", "80 % of the time at α = 0.05", "95 % confidence interval", "95 % interval")


def test_report_and_headline_are_as_generated():
    stale = [p.relative_to(ROOT).as_posix() for p, text in build.outputs().items() if p.read_text() != text]
    assert stale == [], f"{stale} differ from the results files: run `make report` and commit"


def test_the_template_types_no_measured_number():
    text = build.TEMPLATE.read_text()
    text = "\n".join(ln for ln in text.splitlines() if not ln.startswith("|"))  # the verdict rule's table
    text = build.PLACEHOLDER.sub(" ", text)
    text = re.sub(r"`[^`]*`", " ", text)
    text = re.sub(r"\bnotebooks? \d\d(?:\s*[-–]\s*\d\d)?|\bclaims? C\d\d(?:[–-]C\d\d)?|\bC\d\d\b", " ", text, flags=re.I)
    text = re.sub(r"^#+ .*$", " ", text, flags=re.M)
    for name in NAMES:
        text = text.replace(name, " ")
    found = [(ln.strip()[:80], NUMBER.findall(ln)) for ln in text.splitlines() if NUMBER.search(ln)]
    assert found == [], "numbers typed in lib/harness/report/template.md (format them from a results file):\n" + \
        "\n".join(map(str, found))


def test_every_placeholder_of_the_template_has_a_sentence():
    keys = set(build.PLACEHOLDER.findall(build.TEMPLATE.read_text()))
    known = set(build.sentences()) | {"provenance"}
    assert sorted(k for k in keys if not k.startswith("table:") and k not in known) == []
    assert all((ROOT / "results" / f"{k[6:]}.md").is_file() for k in keys if k.startswith("table:"))


def test_a_missing_results_file_shows_as_no_result_yet(tmp_path, monkeypatch):
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    assert "no result yet: `results/table1.md`" in build.render("{{table:table1}}", {})
    assert "no result yet: `study.best`" in build.render("{{study.best}}", {})
    assert timings.batch_time() == {}


def test_the_report_notes_records_newer_than_its_prose(tmp_path, monkeypatch):
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "04_benchmark.json").write_text(json.dumps({"provenance": {"commit": "abcdef0123"}}))
    monkeypatch.setattr(common.paths, "ROOT", tmp_path)
    read = tmp_path / "read.json"
    read.write_text(json.dumps({"04_benchmark.json": "abcdef0"}))
    monkeypatch.setattr(build, "READ_AGAINST", read)
    assert build.staleness() == ""
    read.write_text(json.dumps({"04_benchmark.json": "1234567"}))
    assert "`04_benchmark.json` (1234567 → abcdef0)" in build.staleness()


def test_a_quoted_log_in_another_shape_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(quotes.paths, "ROOT", tmp_path)
    log = tmp_path / "results" / "perf" / "encode_throughput.txt"
    log.parent.mkdir(parents=True)
    log.write_text("max |difference| of vectors        : 1.5e-07\n")
    assert quotes.quote("quote.encode_diff") == "The vectors differ by at most 1.5e-07"
    log.write_text("the vectors agree\n")
    with pytest.raises(ValueError, match="encode_throughput.txt no longer holds"):
        quotes.quote("quote.encode_diff")
