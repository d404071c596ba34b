"""The claims ledger as report lines (``results/claims.csv``, notebook 12): the count per verdict
and per backbone, the central claim in the words of its verdict, one line per claim (interval, p
against 0 and against the paper's value, the family interval its verdict reads, what the seeds
detect), the inconclusive rows ranked by the seeds the rule's plan says would decide them, and what
more seeds would cost. Returns ``{key: sentence}``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from pearl.claims.rule import DECIDED, POSITIVE, TABLE, VERDICTS

from .common import exists, no_result, num, read_json, results, strict

NUMERIC = ("paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "std", "p", "p_vs_paper", "p_adj", "p_tost",
           "p_equiv", "p_equiv_adj", "mde", "n_decide", "margin", "ci_low_adj", "ci_high_adj", "level", "floor",
           "q_ledger", "ref_se")
WHO = {"pearl": "paper", "pause": "PAUSE paper", "phrase_bert": "Phrase-BERT paper"}


def ledger() -> pd.DataFrame:
    """``results/claims.csv``; a row with another number of fields than its header (a cut file) is an error
    naming the file, the line and the fix, never a row of empty cells."""
    import csv

    path = results() / "claims.csv"
    with open(path, encoding="utf8", newline="") as fh:
        rows = csv.reader(fh)
        width = len(next(rows, []))
        for row in rows:
            if len(row) != width:
                raise ValueError(f"{path}:{rows.line_num} has {len(row)} fields where its header has {width}: the file is "
                                 "cut or damaged; rerun notebooks/12_claims.ipynb, or restore the committed copy with "
                                 "`git checkout -- results/claims.csv`")
    return pd.read_csv(path, keep_default_na=False, na_values={c: [""] for c in NUMERIC})


def counted(t: pd.DataFrame) -> pd.DataFrame:
    """The rows that test the paper's claims: those with no ``apart`` reason."""
    return t[t["apart"] == ""] if "apart" in t else t


def count(rows: pd.DataFrame) -> str:
    """``"5 reproduced; 1 direction only; ..."``: every verdict the rows reach, in the rule's order."""
    return "; ".join(f"{n} {v}" for v in VERDICTS if (n := int((rows["verdict"] == v).sum())))


def tally(t: pd.DataFrame) -> str:
    """The paper's sentences, the rows built from them, the verdicts of the counted rows, and the
    rows kept apart.

    >>> t = pd.DataFrame({"id": ["C1", "C2", "C3", "N1"], "claim": ["s", "t", "s", "u"],
    ...                   "source": ["pearl", "pearl", "pearl", "pause"], "apart": ["", "", "same as C1", ""],
    ...                   "verdict": ["not reproduced", "reproduced", "not reproduced", "inconclusive"]})
    >>> tally(t)
    "2 sentences of the paper (and 1 of its neighbours) tested through 3 rows: 1 reproduced; 1 not reproduced; 1 inconclusive (1 more row, C3, does not test the paper's claim and is shown apart)"
    """
    rows = counted(t)
    own = rows[rows["source"] == "pearl"]["claim"].nunique()
    others = rows[rows["source"] != "pearl"]["claim"].nunique()
    apart = t[~t.index.isin(rows.index)]
    text = (f"{num(own)} sentences of the paper (and {num(others)} of its neighbours) tested through "
            f"{num(len(rows))} rows: {count(rows)}")
    if len(apart):
        many = len(apart) > 1
        text += (f" ({num(len(apart))} more row{'s' if many else ''}, {', '.join(apart['id'])}, "
                 f"do{'' if many else 'es'} not test the paper's claim and {'are' if many else 'is'} shown apart)")
    return text


def meaning(kind: str, verdict: str) -> str:
    """What a verdict says, in the rule's own words (:data:`pearl.claims.rule.TABLE`'s condition).

    >>> print(meaning("effect", "not reproduced at this budget"))
    the family interval holds 0 and lies below the paper's value less the margin
    """
    return next(cond for k, cond, v in TABLE if k == kind and v == verdict)


def central(t: pd.DataFrame) -> str:
    """The central claim (C01: PEARL-small over its backbone E5-small, on average): the paper's
    number, then one sentence per backbone row with its estimate, the interval its verdict reads
    and the verdict in the rule's words (:func:`meaning`), so the words follow the data.

    >>> t = pd.DataFrame({"id": ["C01", "C01-me5"], "backbone": ["MiniLM", "me5-small"], "paper": [6.1, 6.1],
    ...                   "paper_like_for_like": [5.46, 5.46], "kind": ["effect", "effect"], "ours": [0.29, 1.91],
    ...                   "ci_low_adj": [-0.44, 1.52], "ci_high_adj": [1.02, 2.31], "level": [0.95, 0.95],
    ...                   "verdict": ["not reproduced at this budget", "direction only, smaller"]})
    >>> print(central(t))
    The paper's central claim (C01): PEARL-small improves its backbone E5-small by 6.1 points on average (5.46 like for like). On MiniLM PEARL moves the average by +0.29 points (95 % interval -0.44 to +1.02): not reproduced at this budget, as the family interval holds 0 and lies below the paper's value less the margin. On me5-small it moves it by +1.91 (95 % interval +1.52 to +2.31): direction only, smaller, as the family interval lies above 0 and below the paper's value less the margin
    """
    rows = t[t["id"].str.match(r"^C01(-|$)")]
    first = rows.iloc[0]
    lead = (f"The paper's central claim (C01): PEARL-small improves its backbone E5-small by {num(first.paper, 'g')} "
            f"points on average ({num(first.paper_like_for_like, '.2f')} like for like)")
    parts = []
    for i, r in enumerate(rows.itertuples()):
        moves = "PEARL moves the average by" if i == 0 else "it moves it by"
        said = r.verdict if r.verdict == "not testable here" else \
            f"{r.verdict}, as {meaning(r.kind, r.verdict)}"
        parts.append(f"On {r.backbone} {moves} {num(r.ours, '+.2f')}{' points' if i == 0 else ''} "
                     f"({num(100 * r.level, '.3g')} % interval {num(r.ci_low_adj, '+.2f')} to "
                     f"{num(r.ci_high_adj, '+.2f')}): {said}")
    return ". ".join([lead, *parts])


def side(verdict: str) -> str:
    """Which way a verdict decides a claim: for the paper (:data:`~pearl.claims.rule.POSITIVE`), against
    it (the other decided verdicts; "not reproduced at this budget" only at this budget, not against the
    paper's own runs), or nothing (inconclusive, below resolution, not testable here).

    >>> side("direction only"), side("reversed"), side("not reproduced at this budget"), side("below resolution")
    ('for the paper', 'against the paper', 'against the paper at this budget', 'nothing')
    """
    if verdict == "not reproduced at this budget":
        return "against the paper at this budget"
    return "for the paper" if verdict in POSITIVE else "against the paper" if verdict in DECIDED else "nothing"


def verdict_table(t: pd.DataFrame) -> str:
    """The counted rows (:func:`counted`) by verdict, in the rule's order, as a Markdown table: how many
    rows reach each verdict, which side it decides (:func:`side`), and their ids. The first screen's
    count of every verdict, one row each instead of one long sentence.

    >>> t = pd.DataFrame({"id": ["C22", "C23", "C31", "C40"], "apart": ["", "", "a cost", ""],
    ...                   "verdict": ["reproduced", "direction only, smaller", "reproduced", "reversed"]})
    >>> print(verdict_table(t))
    | verdict | decides | rows | claims |
    |---|---|---|---|
    | reproduced | for the paper | 1 | C22 |
    | direction only, smaller | for the paper | 1 | C23 |
    | reversed | against the paper | 1 | C40 |
    """
    from pearl.tabular import Table, render

    rows = counted(t)
    frame = pd.DataFrame([{"verdict": v, "decides": side(v),
                           "rows": num(int(hit.sum())), "claims": ", ".join(rows.loc[hit, "id"])}
                          for v in VERDICTS if (hit := rows["verdict"] == v).any()])
    return render(Table(frame, plain=True), "md")


def _pv(p: float) -> str:
    """A p-value as the ledger writes it.

    >>> _pv(0.0004), _pv(0.0812)
    ('p < 0.001', 'p = 0.081')
    """
    return "p < 0.001" if p < 0.001 else f"p = {num(p, '.3f')}"


def line(r) -> str:
    """One claim's line: who says what, ours with its noise model, the family interval its verdict
    reads, the verdict and what would decide it."""
    paper = ("a direction "
             "(" + ("up" if r.direction > 0 else "down") + ")") if r.paper != r.paper else f"{num(r.paper, 'g')}"
    like = r.paper_like_for_like
    if like == like and (r.paper != r.paper or abs(like - r.paper) > 1e-9):
        paper += f" ({num(like, '.2f')} like for like)"
    head = f"**{r.id}** ({r.backbone}) {r.quantity}: {WHO[r.source]} {paper}"
    if r.verdict == "not testable here":
        return f"{head}; not testable here"
    ours = f"{num(r.ours, '.2f')}" if r.kind == "value" else f"{num(r.ours, '+.2f')}"
    if r.ci_low != r.ci_low:
        noise = "no noise model: this one comparison only"
    else:
        test = f"TOST within ±{num(r.margin, 'g')} {_pv(r.p_tost)}" if r.kind == "no difference" else _pv(r.p)
        if r.p_vs_paper == r.p_vs_paper:
            test += f", against the paper's value {_pv(r.p_vs_paper)}"
        noise = (f"95 % CI [{num(r.ci_low, '+.2f')}, {num(r.ci_high, '+.2f')}], {test}; family interval "
                 f"[{num(r.ci_low_adj, '+.2f')}, {num(r.ci_high_adj, '+.2f')}] ({num(100 * r.level, '.3g')} %, "
                 f"{num(r.family_size)} of the sentence's rows), adjusted {_pv(r.p_adj)}, detectable {num(r.mde, '.2f')}")
    plan = ""
    if r.verdict == "inconclusive" and r.n_decide == r.n_decide:  # NaN: nothing the plan can decide
        plan = ("; more than 100 seeds per arm would decide it" if r.n_decide == float("inf") else
                f"; {num(r.n_decide, '.0f')} seeds per arm would decide it")
    return f"{head}, ours {ours} (n = {num(r.n)}; {noise}): **{r.verdict}**{plan}"


def sentences() -> dict[str, str]:
    """``ledger.counts``, ``ledger.by_backbone``, ``ledger.lines`` (a Markdown list), ``ledger.power*``."""
    if not exists("claims.csv"):
        return {}
    from ..claims.report import RULE
    from pearl.tabular import render

    t = ledger()
    rows, apart = counted(t), t[~t.index.isin(counted(t).index)]
    out = {"ledger.counts": tally(t), "ledger.central": central(t),
           "ledger.n_counted": num(len(rows)), "ledger.verdicts": verdict_table(t), "ledger.rule": render(RULE, "md"),
           "ledger.by_backbone": "Per backbone: " + " — ".join(f"{b}: {count(rows[rows['backbone'] == b])}"
                                                               for b in dict.fromkeys(rows["backbone"])),
           "ledger.lines": "\n".join(f"- {line_or_note(r)}" for r in rows.itertuples()),
           "ledger.apart": "\n".join(f"- {line_or_note(r)} — apart: {r.apart}" for r in apart.itertuples())
           or "No row is kept apart"}
    return {**out, **strict(lambda: power(t.set_index("id")), "ledger.power",
                            sources=("claims.csv", "08_ablations.json"))}


def line_or_note(r) -> str:
    """:func:`line`, or the claim's *no result* note when a number its line needs is missing from the ledger."""
    got = strict(lambda: {"line": line(r)}, "line", sources=("claims.csv",))
    return got.get("line") or no_result(f"{r.id}", got["line*"])


def runs_to_decide(r) -> float:
    """The training runs the rule's plan asks of an inconclusive row: the seeds to add to the tested
    arm, and to the reference arm when the plan gives it seeds too (seeds of its own, or single models
    whose std is borrowed: ``ref_se`` empty); a reference scored once needs none.

    >>> float(runs_to_decide(pd.Series({"n_decide": 5.0, "n": 3, "n_ref": 3, "ref_se": 0.2})))
    4.0
    >>> float(runs_to_decide(pd.Series({"n_decide": 9.0, "n": 5, "n_ref": 1, "ref_se": 0.1})))
    4.0
    >>> float(runs_to_decide(pd.Series({"n_decide": 4.0, "n": 1, "n_ref": 1, "ref_se": float("nan")})))
    6.0
    """
    more = max(0.0, r["n_decide"] - r["n"])
    both = r["n_ref"] > 1 or r["ref_se"] != r["ref_se"]  # the plan's two-sample design (harness.claims.report)
    return more + (max(0.0, r["n_decide"] - r["n_ref"]) if both else 0.0)


def ranked(t: pd.DataFrame) -> str:
    """The inconclusive counted rows, fewest runs to decide first (:func:`runs_to_decide`); a row the
    plan cannot decide within 100 seeds reads *needs more than 100 seeds*.

    >>> t = pd.DataFrame({"id": ["A", "B", "C"], "apart": ["", "", ""], "verdict": ["inconclusive"] * 3,
    ...                   "n_decide": [9.0, 3.0, float("inf")], "n": [3, 1, 3], "n_ref": [3, 3, 1],
    ...                   "ref_se": [0.1, 0.1, 0.0]})
    >>> ranked(t)
    'B: 3 seeds per arm, 2 more runs; A: 9 seeds per arm, 12 more runs; C: needs more than 100 seeds per arm'
    """
    rows = counted(t)
    rows = rows[(rows["verdict"] == "inconclusive") & rows["n_decide"].notna()].copy()
    if not len(rows):
        return "No inconclusive row has a plan"
    finite = rows[np.isfinite(rows["n_decide"])].copy()
    finite["runs"] = finite.apply(runs_to_decide, axis=1)
    said = [f"{r.id}: {num(r.n_decide, '.0f')} seeds per arm, {num(r.runs, '.0f')} more runs"
            for r in finite.sort_values(["runs", "id"]).itertuples()]
    said += [f"{i}: needs more than 100 seeds per arm" for i in rows.loc[~np.isfinite(rows["n_decide"]), "id"]]
    return "; ".join(said)


def power(t: pd.DataFrame) -> dict[str, str]:
    """How many seeds each group of claims uses, the inconclusive rows ranked by the runs that would
    decide them (:func:`ranked`), and what more seeds for Table 3 would cost (the measured jobs of
    notebook 08 that trained their model)."""
    out = {"ledger.power_seeds": (f"Claims C10 and C11 (Table 2's sets against the untrained backbone) use the "
                                  f"{num(t.loc['C10', 'n'])} seeds notebook 03 trains, C08 and C09 (against the other "
                                  "methods) "
                                  f"the {num(t.loc['C08', 'n'])} of notebook 11")}
    out["ledger.power_ranked"] = ranked(t.reset_index())
    if exists("08_ablations.json") and exists("perf/experiment_models.txt"):
        # a job that trained its model (one that reused it took no training: notebook 08's own wall time
        # mixes both, so it would understate a new seed's cost)
        from harness.claims.ours import trained_jobs

        jobs = trained_jobs((results() / "perf" / "experiment_models.txt").read_text())
        arms = len(read_json("08_ablations.json")["parameters"]["ABLATIONS"]) + 1
        job = float(jobs["job_s"].mean())
        out["ledger.power_cost"] = (f"a model of notebook 08 took {num(job / 60, '.1f')} minutes to train and score on the "
                                    f"sweep suite ({len(jobs)} jobs, two at a time on 2 cores: "
                                    "`results/perf/experiment_models.txt`), so 2 more seeds for its "
                                    f"{arms} arms would add about {num(2 * arms * job / 2 / 60, '.0f')} minutes")
    return out


def headline() -> dict[str, str]:
    """The README's verdict line: the paper's sentences, the count per verdict of the rows that test
    them, and the central claim's outcome in plain words (``results/claims.csv``)."""
    if not exists("claims.csv"):
        return {}
    t = ledger()
    return {"headline.verdicts": f"{tally(t)}. {central(t)}"}
