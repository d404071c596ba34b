"""results/REPORT.md and the README's headline regenerate byte for byte from the results files
(as the notebooks are checked against their sources); the template holds no measured number of
its own nor any word that reads one number against another outside a generated slot; a missing
results file shows as *no result yet*; a quoted log that changed shape fails."""
import re
from pathlib import Path

import pytest

from harness.report import build, common, quotes, timings

ROOT = Path(__file__).resolve().parents[3]
NUMBER = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?")
#: numbers the template may write itself: names, the paper's section and table numbers, the rule's constants
NAMES = ("all-MiniLM-L6-v2", "MiniLM-L6", "GloVe 6B 50-d", "WikiText-2", "3-gram", "H100", "YAGO 4", "300-d", "Table 1",
         "Table-1", "Table 2", "Table 3", "Table 4", "Figure 5", "Figure 1", "Figure 4", "Figure A1", "Figure 3", "E5",
         "Tables 1–4", "80 % of the time at α = 0.05", "95 % confidence interval", "95 % interval",
         "the 90 % interval of TOST", "80 % probability")


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


@pytest.mark.parametrize("text, found", [
    ("SimCSE ties PEARL on the average and on short text.", [(1, "ties")]),  # the sentence
    ("PEARL is above its backbone on three sets,\nbut not beyond the seed noise.", [(1, "above"), (2, "beyond the seed noise")]),
    ("Every backbone gains Beyond Its Noise", [(1, "gains"), (1, "Beyond Its Noise")]),
    ("{{methods.versus}}. {{ledger.central}}.", []),  # a generated slot may say what the test found
    ("{{study.best}} holds", [(1, "holds")]),  # next to a slot is still hand prose
    ("Welch's t over the seeds; the margin is data (`MARGINS`).", []),  # a method, not a reading
    ("the threshold of the holdout set", []),  # whole words only
    ("Notebook 11's table predates the rule; not rebuilt since.", [(1, "predates"), (1, "not rebuilt")]),
    ("Its models were {{recipe.methods}}.", []),  # which recipe a run trained is generated from its commit
    # the phrasings the report's sentences use, issue #80's among them
    ("and it gains about as\n  little as the cpu profile.", [(1, "gains"), (1, "as little as")]),
    ("on PPDB\nboth differences are within noise.", [(2, "within noise")]),
    ("the gain rises by a point and the share drops", [(1, "rises"), (1, "drops")]),
    ("a phrase wrapped over a line: beyond the\nseed noise", [(1, "beyond the seed noise")]),
    ("the verdict *below resolution* and *Not reproduced\nat this budget* are terms", []),  # the rule's names
    ("the gain {{x}} below {{y}}", [(1, "below")]),
])
def test_the_comparison_checker_finds_reading_words_outside_slots(text, found):
    assert build.comparison_words(text) == found


def test_every_page_of_the_report_is_held_to_the_comparison_check():
    """Every page under results/report/ is written from a part of the template, and no part holds a
    comparison phrase outside a generated slot."""
    parts = build.parts(build.TEMPLATE.read_text())
    assert {p.name for p in (ROOT / "results" / "report").glob("*.md")} == {Path(p).name for p, _, _ in parts[1:]}
    for path, _, text in parts:
        assert build.comparison_words(text) == [], path


def test_the_first_screen_is_the_table_the_figure_and_short_sentences():
    """The first screen (to the glossary): the gain table per backbone and budget with the GPU seeds on
    today's recipe, the budget figure, C01 in the words of its verdicts, every verdict as a table row, and
    no sentence over 60 words as a reader counts them: a sentence ends at a full stop, not at a colon."""
    import pandas as pd

    text = build.report()
    screen = text[text.index("## What we found"):text.index("## Glossary")]
    assert "| backbone | budget | gain (95 % interval) |" in screen and "gpu profile" in screen
    assert "![The gain against the training budget](../figures/budget_curve.png)" in screen
    assert "| verdict | decides | rows | claims |" in screen
    rows = pd.read_csv(ROOT / "results" / "claims.csv").set_index("id")
    for cid in ("C01", "C01-me5"):
        assert f"{rows.loc[cid, 'verdict']}, as " in screen, cid
    prose = [ln for ln in screen.splitlines() if not ln.startswith(("|", "#", "!"))]
    sentences = [s for para in re.split(r"\n\s*\n|\n(?=- )", "\n".join(prose))
                 for s in re.split(r"(?<=[.!?])\s+(?=[A-Z*\[])", " ".join(para.split())) if s]
    long = [(len(s.split()), s[:80]) for s in sentences if len(s.split()) > 60]
    assert not long, long


def test_the_template_reads_no_number_against_another_outside_a_generated_slot():
    """Hand prose explains methods and reasons; a sentence that says more, less, holds, beats, ties
    or beyond the noise comes from a {{key}} generated by the tables' test."""
    found = build.comparison_words(build.TEMPLATE.read_text())
    assert found == [], f"comparison words in lib/harness/report/template.md outside a {{{{key}}}} slot: {found}"


def test_the_report_has_no_staleness_banner():
    """The prose reads no number, so nothing on the page can go stale against a new run."""
    assert "newer than the prose" not in build.report() and not hasattr(build, "staleness")


def test_a_quoted_log_in_another_shape_fails(tmp_path, monkeypatch):
    monkeypatch.setattr(quotes.paths, "ROOT", tmp_path)
    log = tmp_path / "results" / "perf" / "encode_throughput.txt"
    log.parent.mkdir(parents=True)
    log.write_text("max |difference| of vectors        : 1.5e-07\n")
    assert quotes.quote("quote.encode_diff") == "The vectors differ by at most 1.5e-07"
    log.write_text("the vectors agree\n")
    with pytest.raises(ValueError, match="encode_throughput.txt no longer holds"):
        quotes.quote("quote.encode_diff")


def test_the_front_page_is_at_most_6000_words():
    """Findings first: REPORT.md is the front page; provenance, the long tables and the study have pages of their own."""
    words = len(build.report().split())
    assert words <= 6000, f"results/REPORT.md is {words} words: move a section to a page of its own (<!-- page: -->)"


def test_the_first_screen_gives_each_backbones_gain_beside_the_papers():
    """The first 40 lines state the central claim's gain on every backbone of the ledger (C01's rows) and the paper's."""
    import pandas as pd

    rows = pd.read_csv(ROOT / "results" / "claims.csv").query("id.str.match('^C01(-|$)')", engine="python")
    screen = "\n".join(build.report().splitlines()[:40])
    assert "## What we found" in screen
    assert f"by {common.num(rows['paper'].iloc[0], 'g')} points" in screen
    for r in rows.itertuples():
        assert f"{r.backbone} " in screen and common.num(r.ours, "+.2f") in screen, r.id


def test_every_page_exists_and_the_front_page_links_it():
    pages = build.pages()
    assert set(pages) >= {"REPORT.md", "report/provenance.md", "report/tables.md", "report/study.md"}
    for path in pages:
        assert (ROOT / "results" / path).is_file(), f"results/{path} is missing: run `make report`"
        if path != "REPORT.md":
            assert f"]({path})" in pages["REPORT.md"], f"REPORT.md does not link {path}"
            assert "](../REPORT.md)" in pages[path], f"{path} does not link back to REPORT.md"


def test_no_page_shows_nan():
    assert [p for p, text in build.pages().items() if re.search(r"\bnan\b", text, re.I)] == []


@pytest.mark.parametrize("term", ["TOST", "Family", "Like for like", "MDE", "Views", "Centred join", "`cpu`", "`gpu`",
                                  "SMOKE", "rehearsal"])
def test_the_glossary_explains_the_terms(term):
    text = build.report()
    glossary = text[text.index("## Glossary"):].split("\n## ")[0]
    assert term in glossary


def test_links_are_relative_to_each_pages_folder():
    """A page of report/ reaches the figures, STANDINS.md and the front page from its own folder."""
    for path, text in build.pages().items():
        for target in re.findall(r"\]\(([^)#:\s]+)\)", text):  # every relative link (a URL has a colon)
            assert (ROOT / "results" / path).parent.joinpath(target).resolve().exists(), (path, target)


def test_the_readme_headline_says_simcse_as_the_first_screen_does():
    """The README's headline and the report's first screen say SimCSE against PEARL in the same words."""
    simcse = build.sentences()["methods.simcse"]
    assert simcse in build.headline() and simcse in "\n".join(build.report().splitlines()[:40])
