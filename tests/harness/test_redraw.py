"""harness.redraw: a committed figure drawn again from its record."""
from harness import redraw


def test_the_study_figure_redraws_from_its_record_and_says_when_its_recipe_is_superseded(tmp_path):
    """figures/discrepancy.png showed the study run before the centred join without saying so;
    it is drawn again from the committed record, titled with that run's commit and the warning."""
    import json
    import subprocess
    from pathlib import Path

    import matplotlib
    import pytest

    matplotlib.use("Agg")

    root = Path(__file__).resolve().parents[2]
    record = json.loads((root / "results" / "discrepancy.json").read_text())
    commit = record["provenance"]["commit"][:7]
    if redraw.predates_recipe(commit, root) is None:
        pytest.skip(f"this checkout's git does not hold commit {commit} (a shallow clone?)")
    fig = redraw.discrepancy(root / "results" / "discrepancy.json")
    title = fig.axes[0].get_title()
    assert f"run at commit {commit}" in title and "superseded recipe" in title
    assert redraw.predates_recipe(redraw.RECIPE_SINCE) is False and redraw.predates_recipe("0" * 40) is None
    record["provenance"]["commit"] = redraw.RECIPE_SINCE  # a run on today's recipe carries no warning
    (tmp_path / "r.json").write_text(json.dumps(record))
    assert "superseded" not in redraw.discrepancy(tmp_path / "r.json").axes[0].get_title()
    # a run after the centred join but before the rule (the rule's parent) trained a superseded recipe too:
    # the figure reads the commit the report's tables are read against
    parent = subprocess.run(["git", "rev-parse", redraw.RECIPE_SINCE + "~1"], cwd=root, capture_output=True, text=True)
    record["provenance"]["commit"] = parent.stdout.strip()
    (tmp_path / "r.json").write_text(json.dumps(record))
    assert "superseded recipe, before today's view composition rule" in redraw.discrepancy(tmp_path / "r.json").axes[0].get_title()
    (tmp_path / "bad.json").write_text(json.dumps({"metrics": {}}))
    with pytest.raises(ValueError, match=r"bad\.json is not a discrepancy study's record .*results/13_discrepancy\.json"):
        redraw.discrepancy(tmp_path / "bad.json")
