"""The ledger's lines of reasons, one per claim."""
import pandas as pd
from pearl.claims import report


def test_reasons_give_one_line_per_claim():
    ledger = pd.DataFrame({"id": ["a1", "b2"], "verdict": ["holds", "fails"], "reason": ["p = 0.01", "below"]})
    assert report.reasons(ledger) == "a1 [holds] p = 0.01\nb2 [fails] below"
