"""The claims ledger as a table and a figure: every claim of :mod:`.ledger` with the paper's
number and its like-for-like value, our number (:mod:`.ours`) with its 95 % interval, its
p-values against 0 and against the paper's value, Holm's adjusted p over the ledger, the minimum
detectable effect, the seeds per arm that would give the test 80 % power at the paper's effect
(``n_power``, projected from our std with the test's own standard error) and the verdict
(:mod:`.rule`, read from the adjusted evidence), written to
``results/claims.{csv,md,tex,json}`` and ``figures/claims.{png,pdf}``.

What it leaves out: re-running anything; it reads the committed results files only.
"""
from __future__ import annotations

import math
from collections import Counter

from ..guard import OPEN, Guard
from ..provenance import git_state, write_json
from ..tabular import Table, cell, render, rows
from .. import paths
from . import ledger, ours, rule

COLUMNS = ["id", "section", "claim", "backbone", "paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "std", "n",
           "p", "p_vs_paper", "p_holm", "mde", "verdict", "reason"]
EXTRA = ["apart", "n_power", "quantity", "kind", "direction", "tol", "margin", "p_tost", "p_equiv", "p_equiv_holm",
         "ci_low_adj", "ci_high_adj", "n_ref", "se", "df", "ref_se", "ref_df", "against", "source", "how"]
#: the family Holm's adjustment runs over, as the tables say it
FAMILY = ("every row that tests the paper's claim with a noise model: its test against 0 (TOST within the margin for "
          "a claim of no difference) and, for a claim of an effect, its equivalence test against the paper's value; "
          "one family for the whole ledger (the rows shown apart form a family of their own)")
NONE = {"ours": math.nan, "std": math.nan, "se": math.nan, "df": 0, "n": 0, "n_ref": 0, "p": math.nan, "mde": math.nan,
        "ci_low": math.nan, "ci_high": math.nan, "ref_se": math.nan, "ref_df": math.nan}


def like_for_like(c: ledger.Claim) -> float:
    """The paper's value on the same datasets and averaging as ours (its weighted printed cells), else
    its printed number."""
    from ..benchmark import paper

    if not c.like:
        return c.paper
    return float(sum(w * paper.wide(t).at[m, col] for t, m, col, w in c.like))


def margin(c: ledger.Claim) -> float:
    """The equivalence margin of a claim of an effect or of no difference (:data:`.ledger.MARGINS` by
    its scope); NaN for other kinds."""
    key = ledger.scope(c)
    return ledger.MARGINS[key][0] if key else math.nan


def _p(p: float, eq: str = "") -> str:
    return "< 0.001" if p < 0.001 else cell(p, digits=3, missing="–", before=eq)


def _reason(c: ledger.Claim, s: dict, verdict: str) -> str:
    if verdict == "not testable here":
        return c.untestable
    against = f" (against {s['against']})" if s.get("against") else ""
    like = s["paper_like_for_like"]
    paper = "paper gives a direction only" if c.paper != c.paper else f"paper {c.paper:g}"
    if like == like and (c.paper != c.paper or abs(like - c.paper) > 1e-9):
        paper += f" ({like:.2f} like for like)"
    if s["ci_low"] != s["ci_low"]:
        ours_ = f"{s['ours']:.2f}" if c.kind == "value" else f"{s['ours']:+.2f}"
        return (f"{paper}; ours {ours_}{against}; no noise model (one comparison per side): the verdict says "
                f"what this comparison shows, no more")
    test = (f"TOST within ±{s['margin']:g}: p {_p(s['p_tost'], '= ')}" if c.kind == "no difference" else
            f"p {_p(s['p'], '= ')} against 0" + (f", p {_p(s['p_vs_paper'], '= ')} against the paper's value"
                                                   if s["p_vs_paper"] == s["p_vs_paper"] else ""))
    if s["p_equiv"] == s["p_equiv"]:
        test += (f", equivalent to the paper's value within ±{s['margin']:g}: TOST p {_p(s['p_equiv'], '= ')} "
                 f"(Holm {_p(s['p_equiv_holm'], '= ')})")
    plan = ""
    if verdict == "inconclusive" and s["n_power"] == s["n_power"]:
        plan = (f"; 80 % power at the paper's size needs {s['n_power']:.0f} seeds per arm" if math.isfinite(s["n_power"])
                else "; 80 % power at the paper's size needs more than 100 seeds per arm")
    return (f"{paper}; ours {s['ours']:+.2f}{against}, 95 % CI [{s['ci_low']:+.2f}, {s['ci_high']:+.2f}] "
            f"({s['n']} vs {s['n_ref']} models, {s['df']:.1f} dof), {test}, Holm p {_p(s['p_holm'], '= ')}; "
            f"detectable at 80 % power: {s['mde']:.2f}{plan}")


def n_power(c: ledger.Claim, s: dict) -> float:
    """Seeds per arm for 80 % power at the paper's (like-for-like) effect (:func:`.rule.seeds_for_power`),
    for a claim with a size and seed noise, planned with the test's own standard error: seeds on both
    sides, or seeds against the reference with its own standard error (0 for an exact number)."""
    size = s["paper_like_for_like"]
    if c.kind not in ("effect", "no difference") or size != size or s["p"] != s["p"]:
        return math.nan
    if s["n_ref"] > 1 or s["ref_se"] != s["ref_se"]:  # seeds, or a std borrowed from another recipe's seeds
        return rule.seeds_for_power(s["std"], size)
    return rule.seeds_for_power(s["std"], size, "reference", ref_se=s["ref_se"], ref_df=s["ref_df"])


def _measure(results: ours.Results, c: ledger.Claim) -> tuple[dict, bool]:
    """Our statistics and whether the claim is testable (a measure whose results exist)."""
    if not c.measure:
        return dict(NONE), False
    try:
        return ours.measure(results, c.measure), True
    except (KeyError, FileNotFoundError):
        if c.untestable:  # a measure whose run is not in the results yet
            return dict(NONE), False
        raise


def _tests(c: ledger.Claim, s: dict) -> dict:
    """The row's tests before adjustment: p against the paper's value, TOST against 0 (no
    difference), the equivalence test against the paper's value (an effect)."""
    like, m = s["paper_like_for_like"], s["margin"]
    return {"p_vs_paper": rule.p_value(s["ours"], s["se"], s["df"], like) if c.kind == "effect" else math.nan,
            "p_tost": rule.tost(s["ours"], s["se"], s["df"], m) if c.kind == "no difference" else math.nan,
            "p_equiv": rule.tost(s["ours"], s["se"], s["df"], m, centre=like) if c.kind == "effect" else math.nan}


def adjust(rows: list) -> None:
    """Holm over one family of ``(claim, stats)`` rows, in place: ``p_holm`` (the row's test against 0,
    TOST for no difference), ``p_equiv_holm``, and the simultaneous interval ``ci_*_adj`` (Bonferroni
    at ``1 - α / m`` for the family's ``m`` tests)."""
    main = [s["p_tost"] if c.kind == "no difference" else s["p"] for c, s in rows]
    equiv = [s["p_equiv"] for _, s in rows]
    adjusted = rule.holm(main + equiv)
    m = int(sum(p == p for p in main + equiv))
    for k, (c, s) in enumerate(rows):
        s["p_holm"], s["p_equiv_holm"] = float(adjusted[k]), float(adjusted[len(rows) + k])
        s["ci_low_adj"], s["ci_high_adj"] = rule.interval(s["ours"], s["se"], s["df"], 1 - rule.ALPHA / max(m, 1))
        if c.kind == "all":  # the least favourable part's interval, centred on its own difference
            mid = (s["ci_low"] + s["ci_high"]) / 2
            s["ci_low_adj"], s["ci_high_adj"] = rule.interval(mid, s["se"], s["df"], 1 - rule.ALPHA / max(m, 1))


def build(results: ours.Results | None = None):
    """One row per claim: :data:`COLUMNS` then :data:`EXTRA`; ``p_holm`` over :data:`FAMILY`, the
    verdict (:func:`.rule.verdict`) read from the adjusted evidence."""
    import pandas as pd

    results = results or ours.Results()
    rows = []
    for c in ledger.CLAIMS:
        s, testable = _measure(results, c)
        s = {**s, "testable": testable, "paper_like_for_like": like_for_like(c), "margin": margin(c)}
        s.update(_tests(c, s))
        s["n_power"] = n_power(c, s)
        rows.append((c, s))
    adjust([(c, s) for c, s in rows if not c.apart])
    adjust([(c, s) for c, s in rows if c.apart])
    for c, s in rows:
        s["verdict"] = rule.verdict(s["paper_like_for_like"], s["ours"], s["ci_low_adj"], s["ci_high_adj"],
                                    testable=s["testable"], kind=c.kind, direction=c.direction, tol=c.tol,
                                    p_holm=s["p_holm"], p_equiv=s["p_equiv_holm"], margin=s["margin"])
    out = [{"id": c.id, "section": c.section, "claim": c.quote, "backbone": c.backbone, "paper": c.paper,
            **{k: s[k] for k in COLUMNS[5:-1] if k in s}, "reason": _reason(c, s, s["verdict"]), "apart": c.apart,
            **{k: s[k] for k in ("n_power", "margin", "p_tost", "p_equiv", "p_equiv_holm", "ci_low_adj", "ci_high_adj",
                                 "n_ref", "se", "df", "ref_se", "ref_df")},
            "quantity": c.quantity, "kind": c.kind, "direction": c.direction, "tol": c.tol,
            "against": s.get("against", ""), "source": c.source, "how": c.how} for c, s in rows]
    return pd.DataFrame(out, columns=COLUMNS + EXTRA)


def counted(table):
    """The rows that test the paper's claims (those with no ``apart`` reason)."""
    return table[table["apart"].fillna("") == ""]


def sentences(table) -> int:
    """How many distinct sentences the counted rows quote."""
    return counted(table)["claim"].nunique()


def counts(table) -> dict:
    """``{verdict: number of rows}`` of the rows that test the paper's claims (:func:`counted`), in
    :data:`pearl.claims.rule.VERDICTS` order."""
    found = Counter(counted(table)["verdict"])
    return {v: found.get(v, 0) for v in rule.VERDICTS}


def by_backbone(table) -> dict:
    """``{backbone: {verdict: number of rows}}`` of the counted rows (verdicts in
    :data:`pearl.claims.rule.VERDICTS` order)."""
    rows_ = counted(table)
    return {b: counts(rows_[rows_["backbone"] == b]) for b in dict.fromkeys(rows_["backbone"])}


def reasons(table) -> str:
    """One line per claim: its id, ``[verdict]`` and the reason for it."""
    return "\n".join(f"{r.id} [{r.verdict}] {r.reason}" for r in table.itertuples())


def _paper(r) -> str:
    """The paper's number, its like-for-like value beside it where that differs."""
    like = cell(r.paper_like_for_like, digits=2) if r.paper_like_for_like == r.paper_like_for_like else None
    if r.paper != r.paper:
        return cell("direction " + ("↑" if r.direction > 0 else "↓"), beside=like)
    return cell(r.paper, digits="g", beside=like if abs(r.paper_like_for_like - r.paper) > 1e-9 else None)


def _ci(r) -> str:
    return "–" if r.ci_low != r.ci_low else f"[{cell(r.ci_low, digits=2, sign=True)}, {cell(r.ci_high, digits=2, sign=True)}]"


RULE = rows(["kind", "condition (oriented so the paper's effect is positive; adjusted: Holm over the ledger)",
             "verdict"], [list(r) for r in rule.TABLE])


def markdown(table) -> Table:
    head = []
    tally = ", ".join(f"{v}: {n}" for v, n in counts(table).items())
    per = "; ".join(f"{b}: " + ", ".join(f"{n} {v}" for v, n in c.items() if n) for b, c in by_backbone(table).items())
    body = [[f"{r.id} (apart)" if r.apart else r.id, r.backbone, r.quantity, _paper(r), cell(r.ours, digits=2, missing="–"), _ci(r),
             cell(r.p_tost, digits=3, missing="–", before="TOST ") if r.kind == "no difference" else _p(r.p),
             _p(r.p_vs_paper), _p(r.p_holm), cell(r.mde, digits=2, missing="–"), _seeds(r.n_power), r.verdict]
            for r in table.itertuples()]
    columns = ["id", "backbone", "quantity", "paper (like for like)", "ours", "95 % CI", "p", "p vs paper", "Holm p",
               "mde", "seeds for power", "verdict"]
    note = ("paper: the paper's number (in brackets its value on the same datasets and averaging as ours, from "
            "its printed cells, where that differs); ours: our difference (mean over n seeds) with its 95 % t "
            "interval (Welch's t: between seeds; against the untrained backbone's own spread over its classifier "
            "seeds on Table 2; against an exact number where the backbone is scored once, deterministically); p: "
            "two-sided against 0 (TOST against the margin for a claim of no difference); "
            "p vs paper: against the paper's like-for-like value; Holm p: adjusted over " + FAMILY + "; mde: the "
            "smallest true difference the test detects with 80 % power at α = 0.05; seeds for power: seeds per arm "
            "for that power at the paper's size, projected from our std with the test's own standard error (> 100: "
            "more than 100). Margins: `pearl.claims.ledger.MARGINS`. Rule: `pearl.claims.rule`.")
    margins = "Equivalence margins (`pearl.claims.ledger.MARGINS`, by kind of quantity): " + "; ".join(
        f"{key} ±{m:g}, {why}" for key, (m, why) in ledger.MARGINS.items()) + "."
    claims = [f"- **{r.id}** ({r.verdict}; {r.backbone}). “{r.claim}” {r.reason}." + (f" Ours: {r.how}." if r.how else "")
              for r in table.itertuples()]
    apart = table[table["apart"].fillna("") != ""]
    shown_apart = "; ".join(f"{r.id} ({r.verdict}): {r.apart}" for r in apart.itertuples())
    head += [f"{len(counted(table))} rows from {sentences(table)} sentences. {tally}.",
             f"Per backbone (the encoder ours comes from): {per}.",
             f"Shown apart, out of the tally and of Holm's family: {shown_apart}." if len(apart) else "",
             render(RULE, "md")]
    return rows(columns, body, head="\n\n".join(h for h in head if h), notes=[note, margins, "\n".join(claims)])


def _strict(v):
    """A value strict JSON can hold: NaN (no value) as null, the seeds no test reaches (inf) as "> 100"."""
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else _seeds(v)
    return v


def _seeds(n: float) -> str:
    return "> 100" if math.isinf(n) else cell(n, digits=0, missing="–")


def latex(table) -> Table:
    out = table[["id", "backbone", "paper", "paper_like_for_like", "ours", "ci_low", "ci_high", "p", "p_vs_paper",
                 "p_holm", "verdict"]]
    caption = "The paper's claims against this companion's results (pearl.claims)."
    return Table(out, float_format="%.2f", na_rep="--", caption=caption, label="tab:claims")


def save(table, guard: Guard = OPEN, sources: list | None = None) -> list:
    """``results/claims.{csv,md,tex}`` (by ``guard.table``) and ``claims.json`` (with ``guard.note``).
    ``sources``: every results file the ledger read, with its commit
    (:meth:`pearl.claims.ours.Results.sources`), kept in ``claims.json``."""
    out = guard.table(table, "claims", markdown=markdown(table), latex=latex(table))
    records = [{k: _strict(v) for k, v in r.items()} for r in table.to_dict("records")]
    body = {"counts": counts(table), "by_backbone": by_backbone(table), "holm_family": FAMILY, "claims": records, "provenance": {"git_sha": git_state()["git_sha"]},
            "sources": sources or [], **guard.note}
    return out + [write_json(paths.results_dir("claims.json"), body)]


LABEL_WIDTH = 48  # characters of a claim's label per line in figures/claims.png


def claim_label(claim_id: str, quantity: str, width: int = LABEL_WIDTH) -> str:
    """A claim's row label: its id and quantity, wrapped at word boundaries (never cut mid-word).

    >>> print(claim_label("C22-knn", "type kNN accuracy ×100, PEARL − MiniLM (embedding space)", 30))
    C22-knn type kNN accuracy
    ×100, PEARL − MiniLM
    (embedding space)
    """
    import textwrap

    return "\n".join(textwrap.wrap(f"{claim_id} {quantity}", width, break_long_words=False, break_on_hyphens=False))


def plot(table):
    """Per claim: the paper's like-for-like effect (×) and ours with its 95 % interval (bar), one
    row each, labelled by :func:`claim_label` (rows as tall as their labels' lines need)."""
    import matplotlib.pyplot as plt

    shown = table[table["verdict"] != "not testable here"].iloc[::-1]
    colours = {"reproduced": "C2", "direction only": "C1", "direction only, smaller": "C4", "not reproduced": "C3",
               "inconclusive": "0.5"}
    labels = [claim_label(r.id, r.quantity) for r in shown.itertuples()]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig, ax = plt.subplots(figsize=(8.5, 0.3 * len(shown) + 0.12 * (lines - len(shown)) + 1.4))
    for y, r in enumerate(shown.itertuples()):
        shift = r.paper if r.kind == "value" else 0.0
        mid = (r.ci_low + r.ci_high) / 2 if r.kind == "all" else r.ours  # "all": the least favourable part
        err = [[mid - r.ci_low], [r.ci_high - mid]] if r.ci_low == r.ci_low else None
        ax.errorbar(mid - shift, y, xerr=err, fmt="o", color=colours[r.verdict], capsize=2, ms=4)
        if r.kind == "value":
            ax.plot(0, y, "kx")
        elif r.kind in ("effect", "no difference"):
            ax.plot(r.paper_like_for_like, y, "kx")
        else:
            ax.annotate("→" if r.direction > 0 else "←", (0, y), ha="center", va="center", fontsize=9)
    ax.axvline(0, color="0.7", lw=0.8)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels(labels, fontsize=7)
    ax.set_xscale("symlog", linthresh=2)
    ax.set_xlabel("effect (points; symlog). × paper (like for like), ● ours ± 95 % interval; arrows: direction claimed")
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=v) for v, c in colours.items()]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(0.0, -0.06 - 1.2 / len(shown)), ncol=3)
    ax.set_title("The paper's claims against ours (String Distance, Figure 1: ours − paper)", fontsize=9)
    fig.tight_layout()
    return fig


def redraw(csv_path):
    """:func:`plot` of a saved ledger (``results/claims.csv``), measuring nothing again: the
    figure is a pure rendering of the ledger's columns."""
    import pandas as pd

    return plot(pd.read_csv(csv_path, keep_default_na=True))


if __name__ == "__main__":
    # python -m pearl.claims.report: figures/claims.{png,pdf} drawn again from results/claims.csv
    from ..provenance import save_figure

    print("\n".join(str(p) for p in save_figure(redraw(paths.results_dir("claims.csv")), "claims")))
