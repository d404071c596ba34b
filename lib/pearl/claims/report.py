"""The claims ledger as a table and a figure: every claim of :mod:`.ledger` with our number
(:mod:`.ours`), its test, the minimum detectable effect, the seeds per arm that would give the
test 80 % power at the paper's effect (``n_power``, projected from our std) and the verdict
(:mod:`.rule`), written
to ``results/claims.{csv,md,tex,json}`` and ``figures/claims.{png,pdf}``.

What it leaves out: re-running anything; it reads the committed results files only.
"""
from __future__ import annotations

import math
from collections import Counter

from ..provenance import git_state, save_table, write_json
from .. import paths
from . import ledger, ours, rule

COLUMNS = ["id", "section", "claim", "paper", "ours", "std", "n", "p", "mde", "verdict", "reason"]
EXTRA = ["n_power", "quantity", "kind", "direction", "tol", "n_ref", "se", "df", "against", "source", "how"]


def _reason(c: ledger.Claim, s: dict, verdict: str) -> str:
    if verdict == "not testable here":
        return c.untestable
    against = f" (against {s['against']})" if s.get("against") else ""
    if math.isnan(s["p"]):
        size = "" if math.isnan(c.paper) else f"; paper {c.paper:g}"
        return f"no seed noise to test against{against}: ours {s['ours']:+.2f}{size}"
    paper = "paper gives a direction only" if math.isnan(c.paper) else f"paper {c.paper:g}"
    plan = ""
    if verdict == "underpowered" and not math.isnan(s["n_power"]):
        plan = (f"; 80 % power at the paper's size needs {s['n_power']:.0f} seeds per arm" if math.isfinite(s["n_power"])
                else "; 80 % power at the paper's size needs more than 100 seeds per arm")
    return (f"{paper}; ours {s['ours']:+.2f}{against}, p = {s['p']:.3f}, "
            f"detectable at 80 % power: {s['mde']:.2f} ({s['n']} vs {s['n_ref']} models){plan}")


def n_power(c: ledger.Claim, s: dict) -> float:
    """Seeds per arm for 80 % power at the paper's effect (:func:`.rule.seeds_for_power`), for a claim
    with a size and seed noise: one-sample when our seeds face one deterministic model, else two-sample."""
    if c.kind not in ("effect", "no difference") or math.isnan(c.paper) or math.isnan(s["p"]):
        return math.nan
    design = "one-sample" if s["n_ref"] == 1 and s["n"] > 1 and s["df"] == s["n"] - 1 else "two-sample"
    return rule.seeds_for_power(s["std"], c.paper, design)


def build(results: ours.Results | None = None):
    """One row per claim: :data:`COLUMNS` then :data:`EXTRA`."""
    import pandas as pd

    results = results or ours.Results()
    rows = []
    for c in ledger.CLAIMS:
        s = ours.measure(results, c.measure) if c.measure else \
            {"ours": math.nan, "std": math.nan, "se": math.nan, "df": 0, "n": 0, "n_ref": 0, "p": math.nan, "mde": math.nan}
        verdict = rule.verdict(c.paper, s["ours"], s["p"], s["mde"], testable=bool(c.measure), kind=c.kind,
                               direction=c.direction, tol=c.tol)
        s = {**s, "n_power": n_power(c, s)}
        rows.append({"id": c.id, "section": c.section, "claim": c.quote, "paper": c.paper, "ours": s["ours"],
                     "std": s["std"], "n": s["n"], "p": s["p"], "mde": s["mde"], "verdict": verdict,
                     "reason": _reason(c, s, verdict), "n_power": s["n_power"], "quantity": c.quantity, "kind": c.kind,
                     "direction": c.direction, "tol": c.tol, "n_ref": s["n_ref"], "se": s["se"], "df": s["df"],
                     "against": s.get("against", ""), "source": c.source, "how": c.how})
    return pd.DataFrame(rows, columns=COLUMNS + EXTRA)


def counts(table) -> dict:
    """``{verdict: number of claims}`` in :data:`pearl.claims.rule.VERDICTS` order."""
    found = Counter(table["verdict"])
    return {v: found.get(v, 0) for v in rule.VERDICTS}


def reasons(table) -> str:
    """One line per claim: its id, ``[verdict]`` and the reason for it."""
    return "\n".join(f"{r.id} [{r.verdict}] {r.reason}" for r in table.itertuples())


def _num(x, fmt: str = "{:.2f}") -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else fmt.format(x)


def markdown(table, smoke: bool = False) -> str:
    head = "**SMOKE run: the notebook ran at SMOKE size; the numbers below come from the committed results.**\n\n" \
        if smoke else ""
    tally = ", ".join(f"{v}: {n}" for v, n in counts(table).items())
    lines = [f"{len(table)} claims. {tally}.", "",
             "| id | section | quantity | paper | ours | std | n | p | mde | seeds for power | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in table.itertuples():
        paper = ("direction " + ("↑" if r.direction > 0 else "↓")) if math.isnan(r.paper) else f"{r.paper:g}"
        lines.append(f"| {r.id} | {r.section} | {r.quantity} | {paper} | {_num(r.ours)} | {_num(r.std)} | {r.n} | "
                     f"{'<0.001' if r.p < 0.001 else _num(r.p, '{:.3f}')} | {_num(r.mde)} | {_seeds(r.n_power)} | {r.verdict} |")
    lines += ["", "paper: the paper's number (or the direction it claims); ours: our difference (mean over n seeds); "
              "std: the seed std it is read against; p: two-sided t-test; mde: the smallest true difference that "
              "test detects with 80 % power at α = 0.05; seeds for power: the seeds per arm at which that test "
              "would detect the paper's size with 80 % power, projected from our std (> 100: more than 100). "
              "Rule: `pearl.claims.rule`.", ""]
    lines += [f"- **{r.id}** ({r.verdict}). “{r.claim}” {r.reason}." + (f" Ours: {r.how}." if r.how else "")
              for r in table.itertuples()]
    return head + "\n".join(lines)


def _strict(v):
    """A value strict JSON can hold: NaN (no value) as null, the seeds no test reaches (inf) as "> 100"."""
    if isinstance(v, float) and not math.isfinite(v):
        return None if math.isnan(v) else _seeds(v)
    return v


def _seeds(n: float) -> str:
    return "–" if n != n else ("> 100" if math.isinf(n) else f"{n:.0f}")


def latex(table, smoke: bool = False) -> str:
    out = table[["id", "quantity", "paper", "ours", "std", "n", "p", "mde", "n_power", "verdict"]]
    caption = ("SMOKE run (numbers from the committed results): " if smoke else "") + \
        "The paper's claims against this companion's results (pearl.claims)."
    return out.to_latex(index=False, float_format="%.2f", na_rep="--", caption=caption, label="tab:claims", escape=True)


def save(table, smoke: bool = False) -> list:
    """``results/claims.{csv,md,tex,json}`` (written atomically by :mod:`pearl.provenance`); SMOKE in a
    SMOKE process (:func:`pearl.paths.smoke`) whatever ``smoke`` says."""
    smoke = smoke or paths.smoke()
    out = save_table(table, "claims", markdown=markdown(table, smoke), latex=latex(table, smoke), smoke=smoke)
    records = [{k: _strict(v) for k, v in r.items()} for r in table.to_dict("records")]
    body = {"counts": counts(table), "claims": records, "provenance": {"git_sha": git_state()["git_sha"]},
            **({"SMOKE": "smoke-size run"} if smoke else {})}
    return out + [write_json(paths.results_dir("claims.json"), body)]


def plot(table):
    """Per claim: the paper's effect (×) and ours with its 95 % t interval (bar), one row each."""
    import matplotlib.pyplot as plt
    from scipy import stats

    shown = table[table["verdict"] != "not testable here"].iloc[::-1]
    colours = {"reproduced": "C2", "direction only": "C1", "not reproduced": "C3", "underpowered": "0.5"}
    fig, ax = plt.subplots(figsize=(7.5, 0.32 * len(shown) + 1.4))
    for y, r in enumerate(shown.itertuples()):
        half = stats.t.ppf(0.975, r.df) * r.se if r.df > 0 and r.se == r.se else 0.0
        ours_ = r.ours - (r.paper if r.kind == "value" else 0.0)
        ax.errorbar(ours_, y, xerr=half, fmt="o", color=colours[r.verdict], capsize=2, ms=4)
        if r.kind == "value":
            ax.plot(0, y, "kx")
        elif not math.isnan(r.paper):
            ax.plot(r.paper, y, "kx")
        else:
            ax.annotate("→" if r.direction > 0 else "←", (0, y), ha="center", va="center", fontsize=9)
    ax.axvline(0, color="0.7", lw=0.8)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([f"{r.id} {r.quantity[:58]}" for r in shown.itertuples()], fontsize=7)
    ax.set_xscale("symlog", linthresh=2)
    ax.set_xlabel("effect (points; symlog). × paper, ● ours ± 95 % t interval; arrows: direction claimed")
    handles = [plt.Line2D([], [], marker="o", ls="", color=c, label=v) for v, c in colours.items()]
    ax.legend(handles=handles, fontsize=7, loc="lower right")
    ax.set_title("The paper's claims against ours (String Distance: ours − paper)", fontsize=9)
    fig.tight_layout()
    return fig
