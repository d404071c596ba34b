"""pearl.display.discrepancy: the study's factor and per-dataset tables (named apart from tests/experiments/test_discrepancy.py: the test folders are not packages)."""
import pandas as pd

from pearl.display import discrepancy as show
from pearl.experiments import discrepancy as d
from pearl.tabular import render


def test_factor_table_lists_every_pair_behind_a_mean():
    # backbone helps on WikiText-2 (+2) and hurts on Wikipedia (-4): the mean (-1) hides it, the pairs show it
    rows = [{"backbone": b, "corpus": c, "budget": "cpu", "seed": s, "model": f"{b}{c}{s}", "average": v + s}
            for b, c, v in [("minilm", "wikitext2", 0.0), ("me5-small", "wikitext2", 2.0),
                            ("minilm", "wikipedia-1x", 5.0), ("me5-small", "wikipedia-1x", 1.0)] for s in (0, 1)]
    pairs, pooled = d.factors(pd.DataFrame(rows))
    text = render(show.factors_markdown(pooled, pairs), "md")
    backbone = next(line for line in text.splitlines() if line.startswith("| backbone "))
    assert [c.strip() for c in backbone.split("|")[1:-1]] == ["backbone", "minilm", "me5-small", "2", "-1.00", "3.00"]
    assert "The 4 pairs" in text
    assert "cpu, wikitext2" in text or "wikitext2, cpu" in text
    assert "+2.00" in text and "-4.00" in text


def test_dataset_table_gives_backbone_scores_then_gains():
    frame = pd.DataFrame([
        {"backbone": "me5-small", "corpus": "wikitext2", "budget": "cpu", "dataset": "conll", "seeds": 3,
         "backbone_score": 37.13, "pearl": 40.83, "gain": 3.7},
        {"backbone": "me5-small", "corpus": "wikitext2", "budget": "cpu", "dataset": "bc5cdr", "seeds": 3,
         "backbone_score": 54.86, "pearl": 3.55, "gain": -51.31}])
    text = render(show.datasets_markdown(frame), "md")
    head, gains = text.split("PEARL − its untrained backbone")
    assert "37.1" in head and "54.9" in head and "-51.3" not in head
    assert "+3.7" in gains and "-51.3" in gains
    assert gains.index("conll") < gains.index("bc5cdr")  # the datasets keep their order
