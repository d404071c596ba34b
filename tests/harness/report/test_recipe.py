"""Which recipe a record's models were trained on, read from git's ancestry (harness.report.recipe)."""
import subprocess

import pytest

from harness.report import recipe
from pearl import paths
from pearl.provenance import is_before


def _head() -> str:
    out = subprocess.run(["git", "rev-parse", "HEAD"], cwd=paths.ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    return out.stdout.strip()


def test_ancestry_reads_before_and_after_the_recipe():
    head = _head()
    if is_before(recipe.RECIPE_SINCE, recipe.RECIPE_SINCE) is None:
        pytest.skip(f"this clone does not hold {recipe.RECIPE_SINCE} (a shallow clone)")
    assert is_before(head, recipe.RECIPE_SINCE) is False  # HEAD descends from the recipe's commit
    assert is_before(recipe.RECIPE_SINCE, recipe.RECIPE_SINCE) is False  # the commit itself is on the recipe
    assert is_before(recipe.RECIPE_SINCE + "~1", recipe.RECIPE_SINCE) is True  # its parent is not
    assert is_before("0" * 40, recipe.RECIPE_SINCE) is None and is_before("", recipe.RECIPE_SINCE) is None
    assert recipe.today(head) == "yes" and recipe.today(recipe.RECIPE_SINCE + "~1") == "no" and recipe.today("") == "?"


def test_every_record_named_gets_a_sentence_from_its_commit():
    said = recipe.sentences()
    for key, name in recipe.RECORDS.items():
        if (paths.ROOT / "results" / name).is_file():
            start = "series on today's recipe: " if key == "budget" else "trained at commit `"
            assert said[f"recipe.{key}"].startswith(start), (key, said[f"recipe.{key}"])


def test_the_budget_curve_says_each_series_join_not_its_summarys_commit():
    """Its summary refits the committed lines at any commit, so a refit at today's commit must not call an
    older series today's: each series' join says it."""
    points = [{"series": "cpu, centred", "backbone": "minilm", "budget": 1}, {"series": "cpu, rule", "backbone": "me5-small"},
              {"series": "cpu, centred", "backbone": "minilm", "budget": 4}]
    assert recipe.budget_note(points) == "series on today's recipe: me5-small (cpu); before it: minilm (cpu, centred)"
    assert recipe.budget_note(points[:1]) == "series on today's recipe: none; before it: minilm (cpu, centred)"
