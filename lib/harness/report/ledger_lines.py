"""The claims ledger as report lines (``results/claims.csv``, notebook 12): the count per verdict
and per backbone, one line per claim (interval, p against 0 and against the paper's value, Holm's
p, what the seeds detect), and what more seeds would cost. Returns ``{key: sentence}``.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .common import exists, no_result, num, read_json, results, strict

VERDICTS = ("reproduced", "direction only", "direction only, smaller", "not reproduced", "inconclusive",
            "not testable here")
NUMERIC = ("paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "std", "p", "p_vs_paper", "p_holm", "p_tost",
           "p_equiv", "p_equiv_holm", "mde", "n_power", "margin")
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
    """``"5 reproduced; 1 direction only; ..."``: every verdict, in the rule's order."""
    return "; ".join(f"{int((rows['verdict'] == v).sum())} {v}" for v in VERDICTS)


def tally(t: pd.DataFrame) -> str:
    """The paper's sentences, the rows built from them, the verdicts of the counted rows, and the
    rows kept apart.

    >>> t = pd.DataFrame({"id": ["C1", "C2", "C3", "N1"], "claim": ["s", "t", "s", "u"],
    ...                   "source": ["pearl", "pearl", "pearl", "pause"], "apart": ["", "", "same as C1", ""],
    ...                   "verdict": ["not reproduced", "reproduced", "not reproduced", "inconclusive"]})
    >>> tally(t)
    "2 sentences of the paper (and 1 of its neighbours) tested through 3 rows: 1 reproduced; 0 direction only; 0 direction only, smaller; 1 not reproduced; 1 inconclusive; 0 not testable here (1 more row, C3, does not test the paper's claim and is shown apart)"
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


def central(t: pd.DataFrame) -> str:
    """The central claim (C01: PEARL-small over its backbone E5-small, on average) in plain words,
    one clause per backbone row. The lead follows the rows' verdicts: *not reproduced* only when
    every row says so; when none reproduces and some are inconclusive, it says that no stand-in
    reproduces it and what *inconclusive* means, so the lead never contradicts a row.

    >>> t = pd.DataFrame({"id": ["C01", "C01-me5"], "backbone": ["MiniLM", "me5-small"], "paper": [6.1, 6.1],
    ...                   "ours": [0.08, 1.74], "ci_low": [-0.45, 1.41], "ci_high": [0.61, 2.08],
    ...                   "verdict": ["not reproduced", "inconclusive"]})
    >>> central(t)
    "The paper's central claim, that PEARL-small improves its backbone E5-small by 6.1 points on average (C01), is reproduced on no stand-in here (inconclusive: the multiplicity-adjusted tests decide neither for nor against the paper's value): on MiniLM PEARL changes the average by +0.08 points (95 % CI -0.45 to +0.61; not reproduced), on me5-small by +1.74 (95 % CI +1.41 to +2.08; inconclusive)"
    >>> central(t.assign(verdict="not reproduced")).split(": on MiniLM")[0][-22:]
    'is not reproduced here'
    >>> "reproduced on at least one stand-in" in central(t.assign(verdict=["reproduced", "inconclusive"]))
    True
    """
    rows = t[t["id"].str.match(r"^C01(-|$)")]
    first = rows.iloc[0]
    verdicts = set(rows["verdict"])
    lead = ("reproduced on at least one stand-in here" if "reproduced" in verdicts else
            "not reproduced here" if verdicts == {"not reproduced"} else
            "reproduced on no stand-in here (inconclusive: the multiplicity-adjusted tests decide neither for nor "
            "against the paper's value)")
    parts = [f"{'on ' + r.backbone + ' PEARL changes the average by' if i == 0 else 'on ' + r.backbone + ' by'} "
             f"{num(r.ours, '+.2f')}{' points' if i == 0 else ''} (95 % CI {num(r.ci_low, '+.2f')} to "
             f"{num(r.ci_high, '+.2f')}; {r.verdict})" for i, r in enumerate(rows.itertuples())]
    return (f"The paper's central claim, that PEARL-small improves its backbone E5-small by {num(first.paper, 'g')} "
            f"points on average (C01), is {lead}: " + ", ".join(parts))


def reproduced(t: pd.DataFrame) -> str:
    """The counted rows (:func:`counted`) the rule finds reproduced, or in direction only, by id,
    quantity and backbone: what reproduces, for the report's first screen.

    >>> t = pd.DataFrame({"id": ["C22", "C23", "C31"], "backbone": ["MiniLM", "mlm-wiki", "none"],
    ...                   "quantity": ["type silhouette", "gain over the raw LMs", "cost"], "apart": ["", "", "a cost"],
    ...                   "verdict": ["reproduced", "direction only, smaller", "reproduced"]})
    >>> reproduced(t)
    'Of 2 counted rows, reproduced: C22 (type silhouette; MiniLM); direction only, smaller: C23 (gain over the raw LMs; mlm-wiki)'
    """
    rows = counted(t)
    said = []
    for verdict in VERDICTS[:3]:
        hits = rows[rows["verdict"] == verdict]
        if len(hits):
            said.append(f"{verdict}: " + ", ".join(
                f"{r.id} ({r.quantity}{'' if r.backbone == 'none' else '; ' + r.backbone})" for r in hits.itertuples()))
    return f"Of {num(len(rows))} counted rows, " + ("; ".join(said) if said else "none is reproduced, even in direction")


def _pv(p: float) -> str:
    """A p-value as the ledger writes it.

    >>> _pv(0.0004), _pv(0.0812)
    ('p < 0.001', 'p = 0.081')
    """
    return "p < 0.001" if p < 0.001 else f"p = {num(p, '.3f')}"


def line(r) -> str:
    """One claim's line: who says what, ours with its noise model, the verdict and what would decide it."""
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
        if r.p_equiv == r.p_equiv:
            test += f", equivalent to it within ±{num(r.margin, 'g')}: {_pv(r.p_equiv)} (Holm {_pv(r.p_equiv_holm)})"
        noise = (f"95 % CI [{num(r.ci_low, '+.2f')}, {num(r.ci_high, '+.2f')}], {test}, Holm {_pv(r.p_holm)}, "
                 f"detectable {num(r.mde, '.2f')}")
    plan = ""
    if r.verdict == "inconclusive" and r.n_power == r.n_power:  # NaN: no size to reach (a direction)
        plan = "; more than 100 seeds" if r.n_power == float("inf") else f"; {num(r.n_power, '.0f')} seeds"
        plan += " per arm would detect the paper's size"
    return f"{head}, ours {ours} (n = {num(r.n)}; {noise}): **{r.verdict}**{plan}"


def sentences() -> dict[str, str]:
    """``ledger.counts``, ``ledger.by_backbone``, ``ledger.lines`` (a Markdown list), ``ledger.power*``."""
    if not exists("claims.csv"):
        return {}
    from pearl.claims.report import RULE
    from pearl.tabular import render

    t = ledger()
    rows, apart = counted(t), t[~t.index.isin(counted(t).index)]
    out = {"ledger.counts": tally(t), "ledger.central": central(t), "ledger.reproduced": reproduced(t), "ledger.rule": render(RULE, "md"),
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


def power(t: pd.DataFrame) -> dict[str, str]:
    """How many seeds each group of claims uses, what the inconclusive ablation claims would need,
    and what more seeds for Table 3 would cost (notebook 08's stage in the batch's projection)."""
    out = {"ledger.power_seeds": (f"Claims C10 and C11 (Table 2's sets against the untrained backbone) use the "
                                  f"{num(t.loc['C10', 'n'])} seeds notebook 03 trains, C08 and C09 (against the other "
                                  "methods) "
                                  f"the {num(t.loc['C08', 'n'])} of notebook 11")}
    abl = t.loc[[f"C{i}" for i in range(12, 22)]]
    need = abl[abl["verdict"] == "inconclusive"]["n_power"]
    # NaN: the ledger computed no seed count for that claim (nothing of the paper's size to reach)
    finite, inf, none = need[np.isfinite(need)], list(need[need == float("inf")].index), list(need[need.isna()].index)
    text = f"The ablation claims (C12–C21) use {num(abl['n'].max())} seeds per arm"
    if len(finite):
        text += f"; the inconclusive ones would need {num(finite.min(), '.0f')} to {num(finite.max(), '.0f')}"
    if inf:
        text += f", and {', '.join(inf)} more than 100"
    if none:
        text += (f"; for the inconclusive {', '.join(none)} the ledger gives no number of seeds that would decide it "
                 f"(`results/claims.csv` leaves n_power empty)")
    out["ledger.power_ablations"] = text
    if exists("08_ablations.json"):  # its record's own wall time (cells only)
        rec = read_json("08_ablations.json")
        seconds, commit = rec["wall_time_s"], rec["provenance"]["git_sha"]
        models, arms = len(rec["metrics"]["models"]), len(rec["parameters"]["ABLATIONS"]) + 1
        per = seconds / models
        out["ledger.power_cost"] = (f"notebook 08 took {num(seconds / 60, '.0f')} minutes on 2 cores for its {models} "
                                    f"models (at `{commit[:7]}`), so 2 more seeds for its {arms} arms would add "
                                    f"about {num(2 * arms * per / 60, '.0f')} minutes")
    return out


def headline() -> dict[str, str]:
    """The README's verdict line: the paper's sentences, the count per verdict of the rows that test
    them, and the central claim's outcome in plain words (``results/claims.csv``)."""
    if not exists("claims.csv"):
        return {}
    t = ledger()
    return {"headline.verdicts": f"{tally(t)}. {central(t)}"}
