"""Which training recipe a table's models were trained on, read from its record's commit.

The report's tables are rebuilt in sittings, so for a while some read models of an earlier
recipe. A sentence that says so is generated here from git's ancestry (:data:`RECIPE_SINCE`), so
it stops saying it the moment the table is rebuilt, instead of a hand-written note that drifts.
"""
from __future__ import annotations

from pearl.provenance import is_before

from .common import exists, read_json

#: the commit of this repository that made :mod:`pearl.training.composition`'s rule the recipe
#: (centre only an anisotropic backbone, cap the character part's share of the variance at
#: ``max_char_share`` = 0.01, the development splits' choice): a model trained before it was trained
#: on a join that module no longer gives, whatever its settings say; a record at or after it trained
#: today's recipe
RECIPE_SINCE = "3d12d40"

#: ``recipe.<key>``: the record whose commit says which recipe the table's models were trained on
RECORDS = {"table4": "09_backbones.json", "methods": "11_methods.json", "study": "13_discrepancy.json",
           "study_design": "discrepancy.json",
           "short_text_arms": "14_short_text_arms.json", "budget": "budget_curve.json"}


def note(commit: str | None, before) -> str:
    """The sentence for a record at ``commit``; ``before(commit)`` is :func:`is_before` against
    :data:`RECIPE_SINCE` (True, False, or None when git cannot tell).

    >>> note("d89ea54aaaa", lambda c: True)
    "trained at commit `d89ea54`, before today's recipe, the view composition rule of commit `3d12d40`, and not rebuilt since"
    >>> note("4af007caaaa", lambda c: False)
    "trained at commit `4af007c`, on today's recipe"
    >>> note("", lambda c: None)
    'trained at a commit its record does not name'
    >>> note("0123456", lambda c: None)
    'trained at commit `0123456`, which this clone of the repository does not hold'
    """
    if not commit:
        return "trained at a commit its record does not name"
    short, verdict = commit[:7], before(commit)
    if verdict is None:
        return f"trained at commit `{short}`, which this clone of the repository does not hold"
    if verdict:
        return (f"trained at commit `{short}`, before today's recipe, the view composition rule of commit "
                f"`{RECIPE_SINCE}`, and not rebuilt since")
    return f"trained at commit `{short}`, on today's recipe"


def today(commit: str | None) -> str:
    """The provenance table's cell: ``yes`` for a record on today's recipe, ``no`` for one before
    it, ``?`` where git cannot tell."""
    verdict = is_before(commit or "", RECIPE_SINCE)
    return {True: "no", False: "yes"}.get(verdict, "?")


def budget_note(points: list[dict]) -> str:
    """The budget curve's sentence: its summary only refits the lines, so its record's commit says
    nothing of the models; each series says its own join instead (``scripts/budget_curve.py``'s
    ``JOINS``: "rule" is today's recipe, "centred" and "uncentred" the joins before it).

    >>> budget_note([{"series": "cpu, rule", "backbone": "me5-small"}, {"series": "cpu, centred", "backbone": "minilm"},
    ...              {"series": "cpu, rule", "backbone": "me5-small"}, {"series": "gpu, uncentred", "backbone": "minilm"}])
    "series on today's recipe: me5-small (cpu); before it: minilm (cpu, centred), minilm (gpu, uncentred)"
    >>> budget_note([{"series": "cpu, rule", "backbone": "minilm"}])
    "series on today's recipe: minilm (cpu); none before it"
    """
    series = dict.fromkeys((p["backbone"], *p["series"].split(", ", 1)) for p in points)
    today_ = [f"{b} ({machine})" for b, machine, join in series if join == "rule"]
    older = [f"{b} ({machine}, {join})" for b, machine, join in series if join != "rule"]
    return (f"series on today's recipe: {', '.join(today_) or 'none'}; "
            + (f"before it: {', '.join(older)}" if older else "none before it"))


def sentences() -> dict[str, str]:
    """``recipe.<key>`` for each record of :data:`RECORDS` the results folder holds (the budget curve's
    by its series, :func:`budget_note`)."""
    out = {}
    for key, name in RECORDS.items():
        if key == "budget" and exists(name):
            out["recipe.budget"] = budget_note(read_json(name)["points"])
        elif exists(name):
            commit = (read_json(name).get("provenance") or {}).get("commit") or ""
            out[f"recipe.{key}"] = note(commit, lambda c: is_before(c, RECIPE_SINCE))
    return out
