"""The paper's numbers in the library against the paper's own text: every cell of Tables 1-4
as printed in the HAL copy (``pearl_eacl2024_hal.md``), the chosen Figure-5 settings, and the
recorded slips re-derived from the printed rows."""
import os
import re
from pathlib import Path

import pytest

from pearl.benchmark import paper

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = {1: ["PPDB", "PPDB filtered", "Turney", "BIRD", "YAGO", "UMLS", "CoNLL", "BC5CDR", "AutoFJ", "Avg"],
           2: ["Twitter-S", "Twitter-L", "ATIS-S", "ATIS-L", "Avg"],
           3: ["paraphrase classification", "phrase similarity", "entity retrieval", "entity clustering",
               "fuzzy join", "average"],
           4: ["BERT", "RoBERTa", "ALBERT", "SpanBERT", "LUKE"]}
CELL = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(?:\\pm\s*(\d+(?:\.\d+)?))?\s*([↑↓])?$")


def paper_text() -> str | None:
    """The HAL copy of the paper: beside the data folder ($PEARL_DATA/../papers) or the checkout."""
    places = [Path(os.environ["PEARL_DATA"]).parent / "papers"] if os.environ.get("PEARL_DATA") else []
    places += [ROOT.parent / "shared" / "papers", ROOT.parent.parent / "shared" / "papers"]
    for folder in places:
        if (folder / "pearl_eacl2024_hal.md").is_file():
            return (folder / "pearl_eacl2024_hal.md").read_text()
    return None


def markdown_tables(text: str) -> list[list[list[str]]]:
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif current:
            tables.append(current)
            current = []
    return tables


def parse_cell(text: str):
    """``'<u>69.2</u> \\pm 0.7 ↓'`` -> (69.2, 0.7, '↓'); ``'-'`` -> None."""
    text = text.replace("<u>", "").replace("</u>", "").strip()
    if text in ("-", ""):
        return None
    m = CELL.match(text)
    assert m, f"unreadable cell {text!r}"
    return float(m.group(1)), float(m.group(2)) if m.group(2) else None, m.group(3) or ""


def printed(n: int, text: str) -> dict:
    """{(model, column): (value, std, arrow)} of the paper's Table n."""
    def is_table(header):
        return {1: "Size" in header and "Fuzzy Join" in header, 2: "Sentiment Analysis" in header,
                3: "Size" not in header and "Fuzzy Join" in header, 4: "RoBERTa" in header}[n]

    match = [t for t in markdown_tables(text) if is_table(t[0])]
    assert len(match) == 1, f"Table {n} not found once in the paper's Markdown"
    rows = match[0][3:] if n in (1, 2) else match[0][2:]
    out = {}
    for row in rows:
        model = re.sub(r"\s*\(\d{4}a?\)$", "", row[0])
        for column, text_ in zip(COLUMNS[n], row[2:] if n in (1, 2) else row[1:]):
            if (value := parse_cell(text_)) is not None:
                out[(model, column)] = value
    return out


@pytest.fixture(scope="module")
def text():
    found = paper_text()
    if found is None:
        pytest.skip("the paper's text (pearl_eacl2024_hal.md) is not beside the data folder or the checkout: "
                    "nothing to compare the transcription with")
    return found


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_cell_is_the_papers(text, n):
    ours = {(r.model, r.column): (r.value, None if r.std != r.std else r.std, r.arrow)
            for r in paper.table(n).itertuples()}
    theirs = printed(n, text)
    assert set(ours) == set(theirs), f"cells only ours: {set(ours) - set(theirs)}; only the paper's: {set(theirs) - set(ours)}"
    differ = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert differ == {}


def test_figure5_settings_are_the_texts(text):
    assert "learning rate of $3e-5$ and using 2 hard negatives" in text
    assert paper.figure5() == {"lr": 3e-5, "hard_negatives": 2.0}


def test_shapes_and_labels():
    assert len(paper.wide(1)) == 10 and paper.cell(1, "String Distance", "AutoFJ") == "64.7"
    assert paper.cell(1, "String Distance", "PPDB") == "–"
    assert paper.cell(1, "PEARL-small", "PPDB filtered") == "69.2 ± 0.7"
    released = paper.wide("released")
    assert released.loc["PEARL-small", "Avg"] == 62.5 and paper.wide(1).loc["PEARL-small", "Avg"] == 63.1


def test_recorded_slips_follow_from_the_rows():
    """Every Table-1 average the paper prints off its row's mean by more than rounding is recorded."""
    t1, means = paper.wide(1), paper.row_means(1)
    off = {m for m in means.index if abs(round(means[m], 1) - t1.at[m, "Avg"]) > 0.15}
    slips = paper.slips()
    recorded = {q.removesuffix(" Avg") for w, q in zip(slips["where"], slips["quantity"]) if w == "Table 1"}
    assert off == recorded == {"Phrase-BERT", "UCTopic", "E5-base"}
    for q, printed_, rows in zip(slips["quantity"], slips["printed"], slips["from_rows"]):
        if q.endswith(" Avg"):
            model = q.removesuffix(" Avg")
            assert (float(printed_), float(rows)) == (t1.at[model, "Avg"], round(means[model], 1))
    base = slips.set_index("where").loc["§5.1"]
    assert float(base["from_rows"]) == round(round(means["PEARL-base"], 1) - round(means["E5-base"], 1), 1) == 3.1
    assert float(base["printed"]) == round(t1.at["PEARL-base", "Avg"] - t1.at["E5-base", "Avg"], 1) == 3.7
    t2 = paper.wide(2)
    assert (paper.row_means(2).round(1) - t2["Avg"]).abs().max() < 0.15  # Table 2's averages add up
    t4 = paper.wide(4)
    assert ((t4.loc["+ PEARL"] - t4.loc["Original"]).round(1) == t4.loc["Δ"]).all()
