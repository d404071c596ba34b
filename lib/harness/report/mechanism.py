"""Sentences of the two views' check and the budget curve: the centred recipe's clustering over
seeds against the untrained backbone (``results/views_mechanism.json``, ``make views``), today's
composition rule across the character weights (``results/composition.json``, ``make composition``) and each
budget series' two fits (a line in log(views), a saturating curve) and their projection to the
paper's budget (``results/budget_curve.json``, ``make budget``). Returns ``{key: sentence}`` (see :mod:`harness.report.timings`); a key is absent while its
results file is.
"""
from __future__ import annotations

from .common import exists, num, read_json, strict


def _interval(r: dict) -> str:
    if r["seeds"] < 2:
        return "one seed: no interval"
    return (f"difference {num(r['difference'], '+.1f')}, 95 % interval {num(r['ci_low'], '+.1f')} to "
            f"{num(r['ci_high'], '+.1f')}")


def views() -> dict[str, str]:
    """``views.seeds``: per backbone, corpus and set, the exported embedding's NMI over seeds."""
    if not exists("views_mechanism.json"):
        return {}
    rows = read_json("views_mechanism.json").get("seeds") or []
    if not rows:
        return {}
    parts = [f"{r['backbone']} on {r['set'].upper()} ({r['corpus']}, {num(r['seeds'])} "
             f"seed{'s' if r['seeds'] != 1 else ''}): "
             f"{num(r['mean'], '.1f')}" + (f" ± {num(r['std'], '.1f')}" if r["seeds"] > 1 else "")
             + f" against {num(r['untrained'], '.1f')} untrained ({_interval(r)})" for r in rows]
    return {"views.seeds": "; ".join(parts)}


def composition() -> dict[str, str]:
    """``composition.rule``: per backbone and moment, the rule's BC5CDR NMI minus the untrained backbone's
    over every character weight swept, the rows below it, and the evaluator's own noise beside them."""
    if not exists("composition.json"):
        return {}
    rows = [r for r in read_json("composition.json")["rows"] if r["rule"]]
    if not rows:
        return {}
    parts = []
    for backbone in dict.fromkeys(r["backbone"] for r in rows):
        spans = []
        for moment in dict.fromkeys(r["moment"] for r in rows if r["backbone"] == backbone):
            d = [r["bc5cdr - untrained"] for r in rows if (r["backbone"], r["moment"]) == (backbone, moment)]
            span = num(min(d), '+.2f') + ("" if min(d) == max(d) else f" to {num(max(d), '+.2f')}")
            spans.append(f"{span} {'at ' if moment == 'step 0' else ''}{moment}")
        parts.append(f"{backbone} {' and '.join(spans)}")
    weights = sorted({r["weight"] for r in rows})
    below = [r for r in rows if r["bc5cdr - untrained"] < 0]
    for r in rows:
        num(r["bc5cdr nmi_std"])  # a row without its noise makes the sentence *no result*
    noise = max(r["bc5cdr nmi_std"] for r in rows)
    return {"composition.rule": (
        f"under the rule, at every character weight from {num(weights[0], 'g')} to {num(weights[-1], 'g')}, BC5CDR "
        f"NMI minus the untrained backbone's (test mentions, seed 0): {'; '.join(parts)}; "
        + (f"{num(len(below))} of {num(len(rows))} rows below the untrained score, by at most "
           f"{num(-min(r['bc5cdr - untrained'] for r in below), '.2f')}" if below else
           f"none of {num(len(rows))} rows below the untrained score")
        + f" (the evaluator's own noise on a row: a bootstrap std of at most {num(noise, '.2f')})")}


def budget() -> dict[str, str]:
    """``budget.series`` (which budgets each series trained) and ``budget.fits`` (slope and projection)."""
    if not exists("budget_curve.json"):
        return {}
    rec = read_json("budget_curve.json")
    points = rec.get("points") or []
    series: dict[str, set] = {}
    for p in points:
        series.setdefault(f"{p['backbone']} ({p['series']})", set()).add(p["budget"])
    out = {"budget.series": "; ".join(f"{k}: {len(v)} budget{'s' if len(v) != 1 else ''} ("
                                      + ", ".join(num(b, "g") + "x" for b in sorted(v)) + ")"
                                      for k, v in series.items())}
    fits = rec.get("fits") or {}
    if fits:
        out["budget.fits"] = "; ".join(f"{k.split('/')[1]} ({k.split('/')[0]}): {_fit(v)}" for k, v in fits.items())
    return out


def _projected(p: dict) -> str:
    return f"{num(p['gain'], '+.2f')} ({num(p['pi_low'], '+.2f')} to {num(p['pi_high'], '+.2f')})"


def _fit(v: dict) -> str:
    """One series: the line's slope, each curve's projection to the paper's budget with its 95 %
    prediction interval, the union of the two, and how far that extrapolates."""
    from pearl.experiments.budget import about

    pb = v["paper_budget"]
    models = pb["models"]
    sat = v["saturating"]
    if "saturating" in models:
        saturating = f"the saturating curve a·v/(v+b) {_projected(models['saturating'])}"
    elif "unidentified" in sat:  # converged, but the points only see its straight start: the line alone
        saturating = (f"the saturating curve a·v/(v+b) is not identified by these points ({sat['unidentified']}), "
                      "so it is left out")
    else:
        saturating = f"the saturating curve could not be fitted ({sat['failed']})"
    num(pb["extrapolation"])  # a missing factor is *no result*, as every number of the sentence
    span = (f"together {num(pb['pi_low'], '+.2f')} to {num(pb['pi_high'], '+.2f')} (95 % prediction intervals)"
            if len(models) > 1 else "the line's 95 % prediction interval alone")
    return (f"{num(v['fit']['slope'], '+.2f')} per tenfold budget (se {num(v['fit']['se_slope'], '.2f')}) on "
            f"log(views); at the paper's budget the line gives {_projected(models['log-linear'])} and {saturating}, "
            f"{span}, an extrapolation {about(pb['extrapolation'])} beyond the largest budget trained")


def sentences() -> dict[str, str]:
    """All three; those of a record that lacks a number are *no result* (:func:`strict`)."""
    return {**strict(views, "views.", sources=("views_mechanism.json",)),
            **strict(composition, "composition.", sources=("composition.json",)),
            **strict(budget, "budget.", sources=("budget_curve.json",))}
