"""The ledger's lines of reasons, one per claim."""
import pandas as pd
from harness.claims import report


def test_reasons_give_one_line_per_claim():
    ledger = pd.DataFrame({"id": ["a1", "b2"], "verdict": ["holds", "fails"], "reason": ["p = 0.01", "below"]})
    assert report.reasons(ledger) == "a1 [holds] p = 0.01\nb2 [fails] below"


def test_saved_json_is_strict_with_unreachable_power(tmp_path, monkeypatch):
    """A claim no number of seeds would detect (n_decide inf) and one with no value (NaN) still
    give strict JSON: "> 100" as the tables print it, and null."""
    import json
    import math

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    table = report.build()
    table.loc[0, "n_decide"], table.loc[1, "n_decide"] = math.inf, math.nan
    report.save(table)
    body = json.loads((tmp_path / "results" / "claims.json").read_text(), parse_constant=lambda c: 1 / 0)
    assert [c["n_decide"] for c in body["claims"][:2]] == ["> 100", None]


def test_claims_json_keeps_the_file_commit_and_scale_of_every_source(tmp_path, monkeypatch):
    import json

    from harness.scale import FULL
    from harness.claims import ours

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    results = ours.Results(guard=FULL.guard)
    table = report.build(results)
    report.save(table, guard=FULL.guard, sources=results.sources())
    body = json.loads((tmp_path / "results" / "claims.json").read_text())
    files = [s["file"] for s in body["sources"]]
    assert "results/08_ablations.json" in files and "results/table1.csv" in files and files == sorted(files)
    assert all(s["scale"] == "full" and set(s) == {"file", "commit", "scale", "commit_from"} for s in body["sources"])
    assert all(s["commit"] for s in body["sources"] if s["file"].endswith(".json"))


def test_claim_labels_wrap_at_word_boundaries_and_keep_every_word():
    """figures/claims.png cut its labels at 56 characters, mid-word; each label now holds the whole
    quantity, broken only between words. Drawn again from the committed ledger (results/claims.csv)."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    csv = Path(__file__).resolve().parents[3] / "results" / "claims.csv"
    ledger = pd.read_csv(csv)
    fig = report.redraw(csv)
    shown = ledger[ledger["verdict"] != "not testable here"].iloc[::-1]
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    plt.close(fig)
    assert [label.replace("\n", " ") for label in labels] == [f"{r.id} {r.quantity}" for r in shown.itertuples()]
    assert all(len(line) <= report.LABEL_WIDTH for label in labels for line in label.split("\n"))
    assert any("\n" in label for label in labels), "a long quantity goes on two lines"
