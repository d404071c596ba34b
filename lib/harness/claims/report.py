"""The claims ledger as a table and a figure: every claim of :mod:`.ledger` with the paper's
number and its like-for-like value, our number (:mod:`.ours`) with its 95 % interval, its
p-values against 0 and against the paper's value, its sentence's family and the family interval
the verdict reads (:mod:`pearl.claims.rule`), the p-values that agree with that interval, a ledger-wide
false-discovery q beside them, the minimum detectable effect, the seeds per arm that the rule's
own plan says would decide the row (``n_decide``) and the verdict, written to
``results/claims.{csv,md,tex,json}`` and ``figures/claims.{png,pdf}``.

What it leaves out: re-running anything; it reads the committed results files only.
"""
from __future__ import annotations

import math
from collections import Counter

from pearl.guard import OPEN, Guard
from pearl.provenance import git_state, write_json
from pearl.tabular import Table, cell, render, rows
from pearl import paths
from pearl.claims import rule

from . import ledger, ours

COLUMNS = ["id", "section", "family", "claim", "backbone", "paper", "paper_like_for_like", "ours", "ci_low", "ci_high",
           "std", "n", "p", "p_vs_paper", "p_adj", "mde", "verdict", "reason"]
EXTRA = ["apart", "n_decide", "quantity", "kind", "direction", "tol", "margin", "family_size", "level", "ci_low_adj",
         "ci_high_adj", "floor", "p_tost", "p_equiv", "p_equiv_adj", "q_ledger", "n_ref", "se", "df", "ref_se", "ref_df",
         "against", "source", "how"]
#: the family a verdict is read in, as the tables say it
FAMILY = ("one family per sentence of the paper: the rows that test it, on every stand-in and every metric; each row's "
          "verdict reads the family interval, each bound a one-sided test at 0.05 / m for the family's m rows with a "
          "noise model (the 90 % interval of TOST when m = 1), so a row of another sentence never moves it; rows shown "
          "apart are families of their own")
NONE = {"ours": math.nan, "std": math.nan, "se": math.nan, "df": 0, "n": 0, "n_ref": 0, "p": math.nan, "mde": math.nan,
        "ci_low": math.nan, "ci_high": math.nan, "ref_se": math.nan, "ref_df": math.nan}


def like_for_like(c: ledger.Claim) -> float:
    """The paper's value on the same datasets and averaging as ours (its weighted printed cells), else
    its printed number."""
    from pearl.benchmark import paper

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
            f"p {_p(s['p'], '= ')} against 0")
    if s["p_vs_paper"] == s["p_vs_paper"]:
        test += f", p {_p(s['p_vs_paper'], '= ')} against the paper's value"
    family = (f"family interval [{s['ci_low_adj']:+.2f}, {s['ci_high_adj']:+.2f}] ({100 * s['level']:.1f} %, "
              f"{s['family_size']} row{'s' if s['family_size'] > 1 else ''} of this sentence)")
    why = {"below resolution": (f"; the margin ±{s['margin']:g} is at least the paper's size" if c.kind == "effect"
                                and s["margin"] >= abs(like) else
                                f"; the reference's own noise keeps ±{s['floor']:.2f} however many seeds, the margin "
                                f"is ±{s['margin']:g}"),
           "reproduced, barely moved": (f"; within ±{s['margin']:g}, and the paper's own printed difference {like:g} "
                                        "is excluded too: the arms differ less here than in the paper")}.get(verdict, "")
    plan = ""
    if verdict == "inconclusive" and s["n_decide"] == s["n_decide"]:
        plan = (f"; the rule's plan: {s['n_decide']:.0f} seeds per arm decide it" if math.isfinite(s["n_decide"])
                else "; the rule's plan: more than 100 seeds per arm")
    return (f"{paper}; ours {s['ours']:+.2f}{against}, 95 % CI [{s['ci_low']:+.2f}, {s['ci_high']:+.2f}] "
            f"({s['n']} vs {s['n_ref']} models, {s['df']:.1f} dof), {test}; {family}, adjusted p {_p(s['p_adj'], '= ')}"
            f"{why}; detectable at 80 % power: {s['mde']:.2f}{plan}")


def _sign(c: ledger.Claim, s: dict) -> float:
    """The side the claim expects (+1: above 0): the paper's sign, or the claimed direction."""
    return float(c.direction) if c.kind in ("direction", "all") else float(math.copysign(1, s["paper_like_for_like"]))


def _centre(c: ledger.Claim, s: dict) -> float:
    """The difference the interval is centred on (kind ``all``: its least favourable part's)."""
    return (s["ci_low"] + s["ci_high"]) / 2 if c.kind == "all" else s["ours"]


def n_decide(c: ledger.Claim, s: dict) -> float:
    """Seeds per arm with which the rule decides the row at our estimate and spread
    (:func:`pearl.claims.rule.seeds_to_decide` at the family's level), planned with the test's own standard
    error: seeds on both sides (or a std borrowed from another recipe's seeds), or seeds against
    the reference with its own standard error (0 for an exact number). NaN where there is nothing to
    decide (no noise model, below resolution)."""
    if c.kind not in ("effect", "no difference", "direction", "all") or s["se"] != s["se"] or \
            s["verdict"] == "below resolution":
        return math.nan
    x = _centre(c, s) * (1.0 if c.kind == "no difference" else _sign(c, s))
    two = s["n_ref"] > 1 or s["ref_se"] != s["ref_se"]
    return rule.seeds_to_decide(c.kind, x, s["std"], s["family_size"], s["paper_like_for_like"], s["margin"],
                                "two-sample" if two else "reference", ref_se=0.0 if two else s["ref_se"],
                                ref_df=s["ref_df"])


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
    """The row's tests before the family: p against the paper's value (two-sided), TOST against 0 (no
    difference), the equivalence test against the paper's value (an effect), and the one-sided p of
    its claim (against 0 on the claimed side; TOST for no difference)."""
    like, m = s["paper_like_for_like"], s["margin"]
    one = (rule.tost(s["ours"], s["se"], s["df"], m) if c.kind == "no difference" else
           rule.one_sided(_centre(c, s), s["se"], s["df"], 0.0, _sign(c, s)) if c.kind != "value" else math.nan)
    return {"p_vs_paper": rule.p_value(s["ours"], s["se"], s["df"], like) if c.kind in ("effect", "no difference")
            else math.nan,
            "p_tost": rule.tost(s["ours"], s["se"], s["df"], m) if c.kind == "no difference" else math.nan,
            "p_equiv": rule.tost(s["ours"], s["se"], s["df"], m, centre=like) if c.kind == "effect" else math.nan,
            "p_one": one}


def adjust(rows: list) -> None:
    """The family of ``(claim, stats)`` rows (one sentence's), in place: ``family_size`` (its rows
    with a noise model), the family interval ``ci_*_adj`` at ``level`` (:func:`pearl.claims.rule.family_interval`),
    the reference's noise ``floor``, and the p-values that agree with that interval (``p_adj``,
    ``p_equiv_adj``)."""
    m = max(1, sum(s["se"] == s["se"] and s["se"] > 0 for _, s in rows))
    for c, s in rows:
        s["family_size"], s["level"] = m, 1 - 2 * rule.ALPHA / m
        s["ci_low_adj"], s["ci_high_adj"] = rule.family_interval(_centre(c, s), s["se"], s["df"], m)
        # only a reference that is one model keeps its noise as seeds are added (seeds on both sides shrink both)
        s["floor"] = rule.floor(s["ref_se"], s["ref_df"], m) if s["n_ref"] <= 1 else 0.0
        s["p_adj"], s["p_equiv_adj"] = rule.adjusted(s["p_one"], m), rule.adjusted(s["p_equiv"], m)


def build(results: ours.Results | None = None, claims=None):
    """One row per claim of ``claims`` (default :data:`.ledger.CLAIMS`): :data:`COLUMNS` then
    :data:`EXTRA`; each verdict (:func:`pearl.claims.rule.verdict`) read from its family's interval alone."""
    import pandas as pd

    results = results or ours.Results()
    rows = []
    for c in (ledger.CLAIMS if claims is None else claims):
        s, testable = _measure(results, c)
        s = {**s, "testable": testable, "paper_like_for_like": like_for_like(c), "margin": margin(c),
             "family": ledger.family(c)}
        s.update(_tests(c, s))
        rows.append((c, s))
    for name in dict.fromkeys(s["family"] for _, s in rows):
        adjust([(c, s) for c, s in rows if s["family"] == name])
    q = rule.false_discovery([math.nan if c.apart else s["p_one"] for c, s in rows])
    for (c, s), qv in zip(rows, q):
        s["q_ledger"] = float(qv)
        s["verdict"] = rule.verdict(s["paper_like_for_like"], s["ours"], s["ci_low_adj"], s["ci_high_adj"],
                                    testable=s["testable"], kind=c.kind, direction=c.direction, tol=c.tol,
                                    margin=s["margin"], floor=s["floor"])
        s["n_decide"] = n_decide(c, s)
    own = ("paper_like_for_like", "ours", "ci_low", "ci_high", "std", "n", "p", "p_vs_paper", "p_adj", "mde",
           "verdict", "n_decide", "margin", "family_size", "level", "ci_low_adj", "ci_high_adj", "floor", "p_tost",
           "p_equiv", "p_equiv_adj", "q_ledger", "n_ref", "se", "df", "ref_se", "ref_df")
    out = [{"id": c.id, "section": c.section, "family": s["family"], "claim": c.quote, "backbone": c.backbone,
            "paper": c.paper, **{k: s[k] for k in own}, "reason": _reason(c, s, s["verdict"]), "apart": c.apart,
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


def _ci(r, which: str = "") -> str:
    lo, hi = getattr(r, "ci_low" + which), getattr(r, "ci_high" + which)
    return "–" if lo != lo else f"[{cell(lo, digits=2, sign=True)}, {cell(hi, digits=2, sign=True)}]"


RULE = rows(["kind", "condition (oriented so the paper's effect is positive; the family interval: one sentence's rows, "
             "each bound one-sided at 0.05 / m)",
             "verdict"], [list(r) for r in rule.TABLE])


def markdown(table) -> Table:
    head = []
    tally = ", ".join(f"{v}: {n}" for v, n in counts(table).items())
    per = "; ".join(f"{b}: " + ", ".join(f"{n} {v}" for v, n in c.items() if n) for b, c in by_backbone(table).items())
    body = [[f"{r.id} (apart)" if r.apart else r.id, r.backbone, r.quantity, _paper(r), cell(r.ours, digits=2, missing="–"), _ci(r),
             _ci(r, "_adj"), cell(r.family_size, digits=0, missing="–") if r.ci_low_adj == r.ci_low_adj else "–",
             cell(r.p_tost, digits=3, missing="–", before="TOST ") if r.kind == "no difference" else _p(r.p),
             _p(r.p_vs_paper), _p(r.p_adj), _p(r.q_ledger), cell(r.mde, digits=2, missing="–"),
             _seeds(r.n_decide) if r.verdict == "inconclusive" else "–", r.verdict]
            for r in table.itertuples()]
    columns = ["id", "backbone", "quantity", "paper (like for like)", "ours", "95 % CI", "family interval", "m", "p",
               "p vs paper", "adjusted p", "ledger q", "mde", "seeds to decide", "verdict"]
    note = ("paper: the paper's number (in brackets its value on the same datasets and averaging as ours, from "
            "its printed cells, where that differs); ours: our difference (mean over n seeds) with its 95 % t "
            "interval (Welch's t: between seeds; against the untrained backbone's own spread over its classifier "
            "seeds on Table 2; against an exact number where the backbone is scored once, deterministically); p: "
            "two-sided against 0 (TOST against the margin for a claim of no difference); "
            "p vs paper: two-sided against the paper's like-for-like value; family interval: the interval the "
            "verdict reads, " + FAMILY + "; m: the family's rows with a noise model; adjusted p: the one-sided p of "
            "the claim (against 0 on the claimed side; TOST for no difference) times m, under 0.05 exactly when the "
            "family interval excludes 0 (lies within the margin); ledger q: Benjamini–Hochberg over the whole "
            "ledger's one-sided p, shown beside, never read by a verdict; mde: the smallest true difference the "
            "95 % test detects with 80 % power; seeds to decide (inconclusive rows): seeds per arm with which the "
            "rule decides the row with 80 % probability at our estimate and spread (`rule.seeds_to_decide`; > 100: "
            "more than 100). Margins: `harness.claims.ledger.MARGINS`. Rule: `pearl.claims.rule`.")
    margins = "Equivalence margins (`harness.claims.ledger.MARGINS`, by kind of quantity): " + "; ".join(
        f"{key} ±{m:g}, {why}" for key, (m, why) in ledger.MARGINS.items()) + "."
    claims = [f"- **{r.id}** ({r.verdict}; {r.backbone}). “{r.claim}” {r.reason}." + (f" Ours: {r.how}." if r.how else "")
              for r in table.itertuples()]
    apart = table[table["apart"].fillna("") != ""]
    shown_apart = "; ".join(f"{r.id} ({r.verdict}): {r.apart}" for r in apart.itertuples())
    head += [f"{len(counted(table))} rows from {sentences(table)} sentences. {tally}.",
             f"Per backbone (the encoder ours comes from): {per}.",
             f"Shown apart, out of the tally and each a family of its own: {shown_apart}." if len(apart) else "",
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
    out = table[["id", "backbone", "paper", "paper_like_for_like", "ours", "ci_low_adj", "ci_high_adj", "family_size",
                 "p_vs_paper", "p_adj", "verdict"]]
    caption = "The paper's claims against this companion's results (pearl.claims)."
    return Table(out, float_format="%.2f", na_rep="--", caption=caption, label="tab:claims")


def save(table, guard: Guard = OPEN, sources: list | None = None) -> list:
    """``results/claims.{csv,md,tex}`` (by ``guard.table``) and ``claims.json`` (with ``guard.note``).
    ``sources``: every results file the ledger read, with its commit
    (:meth:`harness.claims.ours.Results.sources`), kept in ``claims.json``."""
    out = guard.table(table, "claims", markdown=markdown(table), latex=latex(table))
    records = [{k: _strict(v) for k, v in r.items()} for r in table.to_dict("records")]
    body = {"counts": counts(table), "by_backbone": by_backbone(table), "families": FAMILY, "claims": records, "provenance": {"git_sha": git_state()["git_sha"]},
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
    """Per claim: the paper's like-for-like effect (×) and ours with the family interval its verdict
    reads (bar), one row each, labelled by :func:`claim_label` (rows as tall as their labels' lines need)."""
    import matplotlib.pyplot as plt

    shown = table[table["verdict"] != "not testable here"].iloc[::-1]
    colours = {"reproduced": "C2", "reproduced, barely moved": "C8", "direction only": "C1",
               "direction only, smaller": "C4", "not reproduced at this budget": "C9", "reversed": "C3",
               "not reproduced": "C6", "below resolution": "C5", "inconclusive": "0.5"}
    colours = {v: c for v, c in colours.items() if v in set(shown["verdict"])}
    labels = [claim_label(r.id, r.quantity) for r in shown.itertuples()]
    lines = sum(label.count("\n") + 1 for label in labels)
    fig, ax = plt.subplots(figsize=(8.5, 0.3 * len(shown) + 0.12 * (lines - len(shown)) + 1.4))
    for y, r in enumerate(shown.itertuples()):
        shift = r.paper if r.kind == "value" else 0.0
        mid = (r.ci_low + r.ci_high) / 2 if r.kind == "all" else r.ours  # "all": the least favourable part
        err = [[mid - r.ci_low_adj], [r.ci_high_adj - mid]] if r.ci_low_adj == r.ci_low_adj else None
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
    ax.set_xlabel("effect (points; symlog). × paper (like for like), ● ours, bar: the family interval the verdict reads; arrows: direction claimed")
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
    # python -m harness.claims.report: figures/claims.{png,pdf} drawn again from results/claims.csv
    from pearl.provenance import save_figure

    print("\n".join(str(p) for p in save_figure(redraw(paths.results_dir("claims.csv")), "claims")))
