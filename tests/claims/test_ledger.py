"""The claims as data against their sources, and the committed ledger against the rule: every
quote is verbatim in its paper, every paper number comes from the paper's text or its printed
cells, and every verdict in ``results/claims.csv`` follows from the rule."""
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from pearl.benchmark import paper
from pearl.claims import ledger, report, rule

ROOT = Path(__file__).resolve().parents[2]
SOURCES = {"pearl": "pearl_eacl2024_hal.md", "pause": "pause_2023.txt", "phrase_bert": "phrase_bert_2021.txt"}


def _papers_folder():
    import os

    places = [Path(os.environ["PEARL_DATA"]).parent / "papers"] if os.environ.get("PEARL_DATA") else []
    places += [ROOT.parent / "shared" / "papers", ROOT.parent.parent / "shared" / "papers"]
    return next((p for p in places if (p / SOURCES["pearl"]).is_file()), None)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("*", "")).strip()


def test_at_least_twenty_claims_with_unique_ids_and_known_kinds():
    assert len(ledger.CLAIMS) >= 20 and len(ledger.by_id()) == len(ledger.CLAIMS)
    for c in ledger.CLAIMS:
        assert c.kind in ("effect", "no difference", "direction", "value") and c.source in SOURCES
        assert bool(c.measure) != bool(c.untestable), f"{c.id}: a measure or a reason it is not testable, not both"
        assert (c.kind == "direction") == math.isnan(c.paper) == (c.direction != 0)


def test_quotes_are_verbatim_in_their_sources():
    folder = _papers_folder()
    if folder is None:
        pytest.skip("the papers' texts (../shared/papers) are not beside the data folder or the checkout")
    texts = {k: _flat((folder / v).read_text()) for k, v in SOURCES.items()}
    missing = [c.id for c in ledger.CLAIMS if _flat(c.quote) not in texts[c.source]]
    assert missing == []


def test_paper_numbers_come_from_the_sentence_or_the_printed_cells():
    for c in ledger.CLAIMS:
        if math.isnan(c.paper):
            continue
        if c.cells:
            values = [paper.wide(t).at[m, col] for t, m, col in c.cells]
            expected = values[0] - (values[1] if len(values) > 1 else 0.0)
            assert c.paper == pytest.approx(round(expected, 1)), c.id
        elif c.arrows:
            row = paper.arrows(c.arrows[0]).loc[c.arrows[1]].drop("average")
            assert c.paper == sum(a == "↓" for a in row) - sum(a == "↑" for a in row), c.id
        else:
            numbers = {abs(float(x)) for x in re.findall(r"\d+(?:\.\d+)?", c.quote)}
            assert abs(c.paper) in numbers, f"{c.id}: {c.paper} is not in its sentence"


def test_the_committed_ledger_follows_the_rule():
    table = pd.read_csv(ROOT / "results" / "claims.csv")
    assert list(table.columns[:11]) == report.COLUMNS and len(table) >= 20
    assert "smoke" not in table.columns
    for r in table.itertuples():
        testable = r.id not in {c.id for c in ledger.CLAIMS if c.untestable}
        again = rule.verdict(r.paper, r.ours, r.p, r.mde, testable=testable, kind=r.kind,
                             direction=int(r.direction), tol=r.tol)
        assert again == r.verdict, r.id
        claim = ledger.by_id()[r.id]
        assert (r.paper == claim.paper) or (math.isnan(r.paper) and math.isnan(claim.paper)), r.id
        assert claim.quote == r.claim


def test_the_committed_ledger_is_what_the_committed_results_give():
    committed = pd.read_csv(ROOT / "results" / "claims.csv")
    fresh = report.build()
    stale = "results/claims.* are stale: the results files changed; run notebooks/12_claims.ipynb"
    assert list(committed["id"]) == list(fresh["id"]), stale
    assert list(committed["verdict"]) == list(fresh["verdict"]), stale
    assert committed["ours"].fillna(0).to_numpy() == pytest.approx(fresh["ours"].fillna(0).to_numpy(), rel=1e-9), stale
