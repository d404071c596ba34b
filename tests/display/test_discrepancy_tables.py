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


def test_the_study_figure_redraws_from_its_record_and_says_when_its_recipe_is_superseded(tmp_path):
    """figures/discrepancy.png showed the study run before the centred join without saying so;
    it is drawn again from the committed record, titled with that run's commit and the warning."""
    import json
    import subprocess
    from pathlib import Path

    import matplotlib
    import pytest

    matplotlib.use("Agg")
    from pearl.display import discrepancy as show

    root = Path(__file__).resolve().parents[2]
    record = json.loads((root / "results" / "discrepancy.json").read_text())
    commit = record["provenance"]["commit"][:7]
    if show.predates_recipe(commit, root) is None:
        pytest.skip(f"this checkout's git does not hold commit {commit} (a shallow clone?)")
    fig = show.redraw(root / "results" / "discrepancy.json")
    title = fig.axes[0].get_title()
    assert f"run at commit {commit}" in title and "superseded recipe" in title
    assert show.predates_recipe(show.RECIPE_SINCE) is False and show.predates_recipe("0" * 40) is None
    record["provenance"]["commit"] = show.RECIPE_SINCE  # a run on today's recipe carries no warning
    (tmp_path / "r.json").write_text(json.dumps(record))
    assert "superseded" not in show.redraw(tmp_path / "r.json").axes[0].get_title()
    # a run after the centred join but before the rule (the rule's parent) trained a superseded recipe too:
    # the figure reads the commit the report's tables are read against
    parent = subprocess.run(["git", "rev-parse", show.RECIPE_SINCE + "~1"], cwd=root, capture_output=True, text=True)
    record["provenance"]["commit"] = parent.stdout.strip()
    (tmp_path / "r.json").write_text(json.dumps(record))
    assert "superseded recipe, before today's view composition rule" in show.redraw(tmp_path / "r.json").axes[0].get_title()
    (tmp_path / "bad.json").write_text(json.dumps({"metrics": {}}))
    with pytest.raises(ValueError, match=r"bad\.json is not a discrepancy study's record .*results/13_discrepancy\.json"):
        show.redraw(tmp_path / "bad.json")
