"""The claims as data against their sources, and the committed ledger against the rule: every
quote is verbatim in its paper, every paper number comes from the paper's text or its printed
cells (and its like-for-like value from the same cells), each claim about E5-small has a row on
both offline stand-ins, and every verdict in ``results/claims.csv`` follows from the rule."""
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from pearl.benchmark import paper
from harness.claims import ledger, report
from pearl.claims import rule

ROOT = Path(__file__).resolve().parents[3]
SOURCES = {"pearl": "pearl_eacl2024_hal.md", "pause": "pause_2023.txt", "phrase_bert": "phrase_bert_2021.txt"}


def _papers_folder():
    import os

    places = [Path(os.environ["PEARL_DATA"]).parent / "papers"] if os.environ.get("PEARL_DATA") else []
    places += [ROOT.parent / "shared" / "papers", ROOT.parent.parent / "shared" / "papers"]
    return next((p for p in places if (p / SOURCES["pearl"]).is_file()), None)


WORDS = {"zero": 0.0, "three": 3.0, "six": 6.0}  # numbers a quote spells out


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text.replace("*", "")).strip()


def test_at_least_33_claims_with_unique_ids_and_known_kinds():
    assert len(ledger.CLAIMS) >= 33 and len(ledger.by_id()) == len(ledger.CLAIMS)
    for c in ledger.CLAIMS:
        assert c.kind in rule.KINDS and c.source in SOURCES
        # a measure or a reason it is not testable; both only for a run not yet in the results
        assert bool(c.measure) or bool(c.untestable), c.id
        assert not (c.measure and c.untestable) or c.untestable.startswith("not run here"), c.id
        assert (c.kind == "direction") == math.isnan(c.paper), c.id
        assert (c.direction != 0) == (c.kind in ("direction", "all")), c.id


def test_each_claim_about_e5_small_has_a_minilm_and_a_me5_small_row():
    about = {}
    for c in ledger.CLAIMS:
        if "E5-small" in c.quantity:
            about.setdefault((c.quote, c.quantity), set()).add(c.backbone)
    assert len(about) >= 5
    assert all({"MiniLM", "me5-small"} <= b for b in about.values()), about


def test_like_for_like_values_are_the_five_group_means_of_the_printed_cells():
    t1, t3 = paper.wide(1), paper.wide(3)
    # - entity type on Table 3's five group columns: (-0.3 + 0.8 - 1.5 - 9.2 + 0.3) / 5
    assert report.like_for_like(ledger.by_id()["C12"]) == pytest.approx(-1.98)
    groups = [g for g in t3.columns if g != "average"]
    assert report.like_for_like(ledger.by_id()["C21"]) == pytest.approx(
        (t3.loc["PEARL-small", groups] - t3.loc["- Hard Negatives", groups]).mean())
    # PEARL-small - E5-small on Table 1: each group the mean of its datasets, then the five groups
    row = lambda m: [t1.at[m, c] for c in ("PPDB", "PPDB filtered", "Turney", "BIRD", "YAGO", "UMLS", "CoNLL",  # noqa: E731
                                           "BC5CDR", "AutoFJ")]
    a, b = row("PEARL-small"), row("E5-small")
    by_group = lambda r: [(r[0] + r[1]) / 2, (r[2] + r[3]) / 2, (r[4] + r[5]) / 2, (r[6] + r[7]) / 2, r[8]]  # noqa: E731
    expected = sum(x - y for x, y in zip(by_group(a), by_group(b))) / 5
    assert report.like_for_like(ledger.by_id()["C01"]) == pytest.approx(expected)
    assert report.like_for_like(ledger.by_id()["C13"]) == ledger.by_id()["C13"].paper  # no like: the printed one


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
            numbers |= {v for w, v in WORDS.items() if re.search(rf"\b{w}\b", c.quote)}
            from_like = bool(c.like) and c.paper == pytest.approx(round(report.like_for_like(c), 1))
            assert abs(c.paper) in numbers or from_like, f"{c.id}: {c.paper} is not in its sentence nor its cells"


def test_the_committed_ledger_follows_the_rule():
    """Every verdict in results/claims.csv re-derived from its own columns by the rule, every family
    interval recomputed from its row's se, dof and family size, and every testable claim with a
    noise model has an interval."""
    table = pd.read_csv(ROOT / "results" / "claims.csv")
    assert list(table.columns[:len(report.COLUMNS)]) == report.COLUMNS and len(table) >= 33
    assert {"ci_low", "ci_high", "p_vs_paper", "p_adj", "family", "paper_like_for_like", "backbone"} <= set(table.columns)
    assert "smoke" not in table.columns
    for r in table.itertuples():
        testable = not math.isnan(r.ours)
        again = rule.verdict(r.paper_like_for_like, r.ours, r.ci_low_adj, r.ci_high_adj, testable=testable,
                             kind=r.kind, direction=int(r.direction), tol=r.tol, margin=r.margin, floor=r.floor)
        assert again == r.verdict, r.id
        if testable and not math.isnan(r.se):
            assert r.ci_low <= r.ours <= r.ci_high or r.kind == "all", r.id
            centre = (r.ci_low + r.ci_high) / 2
            assert (r.ci_low_adj, r.ci_high_adj) == pytest.approx(rule.family_interval(centre, r.se, r.df, r.family_size))
        claim = ledger.by_id()[r.id]
        assert (r.paper == claim.paper) or (math.isnan(r.paper) and math.isnan(claim.paper)), r.id
        assert claim.quote == r.claim and r.family == ledger.family(claim)


def test_a_verdict_agrees_with_its_own_interval():
    """No verdict on the paper's side with a family interval that holds 0 (the old C10), and the
    adjusted p under α exactly where that interval excludes 0."""
    table = pd.read_csv(ROOT / "results" / "claims.csv")
    noisy = table[table["ci_low_adj"].notna() & table["kind"].isin(["effect", "direction", "all"])]
    for r in noisy.itertuples():
        sign = r.direction if r.kind in ("direction", "all") else math.copysign(1, r.paper_like_for_like)
        low = min(sign * r.ci_low_adj, sign * r.ci_high_adj)
        if r.verdict in rule.POSITIVE:
            assert low > 0, r.id
        if r.verdict != "below resolution":
            assert (r.p_adj < rule.ALPHA) == (low > 0), r.id


def test_one_family_per_sentence_named_by_it():
    """The family column names each row's sentence, one family per sentence (rows shown apart each a
    family of their own), and the family size counts its rows with a noise model."""
    table = report.build()
    for name, rows in table.groupby("family"):
        assert rows["claim"].nunique() == 1, name
        assert name.strip("“").split("…")[0].rstrip("”") in rows["claim"].iloc[0], name
        noisy = int(rows["se"].gt(0).sum())
        assert (rows["family_size"] == max(noisy, 1)).all(), name
    counted = table[table["apart"] == ""]
    assert counted["family"].nunique() == counted["claim"].nunique()
    assert table.loc[table["id"] == "C31", "family"].item().endswith("(apart: C31)")


def test_margins_are_data_with_a_reason_and_never_the_papers_gap():
    """Every claim of an effect or of no difference with a measure has a scope in MARGINS, whose
    margin is set there with its reason; report.margin reads it from there, not from the paper."""
    for key, (m, why) in ledger.MARGINS.items():
        assert m > 0 and len(why) > 40, key
    for c in ledger.CLAIMS:
        if c.measure and c.kind in ("effect", "no difference"):
            assert ledger.scope(c) in ledger.MARGINS, c.id
            assert report.margin(c) == ledger.MARGINS[ledger.scope(c)][0], c.id
    by = ledger.by_id()
    assert ledger.scope(by["C09"]) == "short text" and report.margin(by["C09"]) != abs(by["C09"].paper)
    assert (ledger.scope(by["C13"]), ledger.scope(by["C01"]), ledger.scope(by["C31"])) == ("group", "average", "time")


def test_rows_that_do_not_test_the_papers_claim_are_apart_and_out_of_the_tally():
    table = report.build()
    apart = set(table.loc[table["apart"] != "", "id"])
    assert apart == {"C23-enc", "C31"}
    assert sum(report.counts(table).values()) == len(table) - len(apart)
    # a row apart is no part of its sentence's family: C23's family counts C23 alone
    assert table.loc[table["id"] == "C23", "family_size"].item() == 1
    assert report.sentences(table) == report.counted(table)["claim"].nunique() < len(report.counted(table))


def test_the_committed_ledger_is_what_the_committed_results_give():
    committed = pd.read_csv(ROOT / "results" / "claims.csv")
    fresh = report.build()
    stale = "results/claims.* are stale: the results files changed; run notebooks/12_claims.ipynb"
    assert list(committed["id"]) == list(fresh["id"]), stale
    assert list(committed["verdict"]) == list(fresh["verdict"]), stale
    assert committed["ci_low"].fillna(0).to_numpy() == pytest.approx(fresh["ci_low"].fillna(0).to_numpy(), rel=1e-9), stale
    assert committed["ours"].fillna(0).to_numpy() == pytest.approx(fresh["ours"].fillna(0).to_numpy(), rel=1e-9), stale
