"""Tables of the experiments: seeds pooled per recipe, differences against a reference recipe,
and whether each difference exceeds the seed noise.

- :func:`group_frame`: one row per trained model, the five task groups and their average
  (the columns of the paper's Tables 3 and 4), with the recipe it belongs to;
- :func:`short_text_frame`, :func:`add_short_text`: the mean of Table 2's four short-text sets, per
  model or as one more column;
- :func:`compare`: per recipe and column, mean ± std over seeds, the difference against the
  reference recipe, Welch's t over seeds (:func:`pearl.claims.rule.two_sample`, the ledger's own
  test, so a star here and a claim's p agree) and an arrow (↑ / ↓) that is starred when p < 0.05;
- :func:`difference`: one recipe against another per column, with Welch's 95 % interval (the batch layouts' measurement);
- :func:`wide_markdown`: the paper's layout, one row per recipe (with the paper's rows: :mod:`pearl.experiments.paper_beside`).

What it leaves out: training (:mod:`pearl.experiments.runner`) and scoring (:func:`pearl.benchmark.scoring.run_models`).

>>> import pandas as pd
>>> g = pd.DataFrame({"recipe": ["full"] * 3 + ["-x"] * 3, "average": [60, 61, 62, 55, 56, 57.0]})
>>> row = compare(g, "full", columns=["average"]).query("recipe == '-x'").iloc[0]
>>> float(row["delta"]), row["arrow"], round(float(row["p"]), 4)  # Welch: t = 5 / sqrt(1/3 + 1/3) = 6.12, 4 dof
(-5.0, '↓*', 0.0036)
"""
from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from ..benchmark.tasks import GROUPS
from ..claims import rule
from ..tabular import Table, cell

COLUMNS = [*GROUPS, "average"]
#: the Table-2 column of :func:`add_short_text`
SHORT_TEXT = "short-text average"
ALPHA = 0.05


def group_scores(df):
    """Mean score per model and task group (the paper's Table 3 columns) plus their average."""
    import pandas as pd

    sub = df[df["dataset"] != "average"]
    out = {}
    for model, g in sub.groupby("model", sort=False):
        s = g.set_index("dataset")["score"]
        row = {grp: float(np.mean([s.get(d, math.nan) for d in names])) for grp, names in GROUPS.items()}
        row["average"] = float(np.mean(list(row.values())))
        out[model] = row
    return pd.DataFrame.from_dict(out, orient="index")


def group_frame(scores):
    """One row per model of :func:`pearl.benchmark.scoring.run_models`' grouped rows (or their
    frame): recipe (its ``group``), model, the five group means and their average."""
    import pandas as pd

    rows = []
    for (recipe, model), sub in pd.DataFrame(scores).groupby(["group", "model"], sort=False):
        g = group_scores(sub).iloc[0].to_dict()
        rows.append({"recipe": recipe, "model": model, **g})
    return pd.DataFrame(rows)


def short_text_frame(short):
    """One row per model: its recipe (``group``), the model and :data:`SHORT_TEXT`, the mean accuracy
    over the four short-text sets of :func:`pearl.benchmark.scoring.run_models`' grouped rows of
    ``SUITES["table2"]`` (``short``); a ``ValueError`` when models were scored on different sets."""
    import pandas as pd

    mean = pd.DataFrame(short).groupby(["group", "model"], sort=False)["score"].agg(["mean", "count"]).reset_index()
    if (mean["count"] != mean["count"].max()).any():
        raise ValueError("every model needs the same short-text sets; some are missing: " +
                         ", ".join(mean.loc[mean["count"] != mean["count"].max(), "model"]))
    return mean.rename(columns={"group": "recipe", "mean": SHORT_TEXT}).drop(columns="count")


def add_short_text(groups, short):
    """``groups`` with the column :data:`SHORT_TEXT` of :func:`short_text_frame` (``short``)."""
    out = groups.merge(short_text_frame(short), on=["recipe", "model"], how="left")
    if out[SHORT_TEXT].isna().any():
        raise ValueError("no short-text scores for: " + ", ".join(out.loc[out[SHORT_TEXT].isna(), "model"]))
    return out


def compare(groups, reference: str, columns: Sequence[str] = COLUMNS):
    """Tidy comparison of every recipe with ``reference`` (see the module docstring)."""
    import pandas as pd

    if reference not in set(groups["recipe"]):
        raise ValueError(f"reference recipe {reference!r} has no scores; recipes: {sorted(set(groups['recipe']))}")
    ref = groups[groups["recipe"] == reference]
    out = []
    for recipe, sub in groups.groupby("recipe", sort=False):
        for col in columns:
            x, r = sub[col].to_numpy(float), ref[col].to_numpy(float)
            row = {"recipe": recipe, "column": col, "mean": x.mean(), "std": x.std(ddof=1) if len(x) > 1 else math.nan,
                   "n": len(x), "delta": math.nan, "p": math.nan, "arrow": ""}
            if recipe != reference:
                row["delta"] = round(float(x.mean() - r.mean()), 10)
                if len(x) > 1 and len(r) > 1 and (x.std() + r.std()) > 0:
                    row["p"] = rule.two_sample(x, r)["p"]
                row["arrow"] = ("↑" if row["delta"] > 0 else "↓" if row["delta"] < 0 else "=") + \
                    ("*" if row["p"] < ALPHA else "")
            out.append(row)
    return pd.DataFrame(out)


def wide(comparison, labels: dict | None = None):
    """One row per recipe, one cell ``mean ± std arrow`` per column (in :func:`compare`'s order)."""
    columns = list(dict.fromkeys(comparison["column"]))
    cells = comparison.assign(cell=[cell(r["mean"], r["std"], arrow=r["arrow"]) for r in comparison.to_dict("records")])
    table = cells.pivot(index="recipe", columns="column", values="cell").reindex(columns=list(columns))
    table = table.reindex(list(dict.fromkeys(comparison["recipe"])))
    table.index = [(labels or {}).get(r, r) for r in table.index]
    table.columns = [{"average": "Average", SHORT_TEXT: "Short text (Table 2)"}.get(c, c) for c in table.columns]
    return table.rename_axis("recipe").reset_index()


def wide_markdown(comparison, labels: dict | None = None, header: str = "") -> Table:
    """:func:`wide` as a table spec, ``header`` above it and the legend under it."""
    legend = (f"mean ± std over seeds; ↑ / ↓ against the reference row, * when Welch's t over seeds gives "
              f"p < {ALPHA} (the ledger's test, `pearl.claims.rule`; unadjusted for the table's many cells).")
    return Table(wide(comparison, labels), head=header, notes=[legend])


def beyond_noise(comparison, column: str = "average") -> dict:
    """``{recipe: (delta, p)}`` of the recipes whose ``column`` differs from the reference with p < ALPHA."""
    sub = comparison[(comparison["column"] == column) & (comparison["p"] < ALPHA)]
    return {r.recipe: (float(r.delta), float(r.p)) for r in sub.itertuples()}


def seed_std(groups, column: str = "average") -> float:
    """Pooled within-recipe std over seeds: the noise level a difference is read against."""
    var = [(len(g) - 1) * g[column].var(ddof=1) for _, g in groups.groupby("recipe") if len(g) > 1]
    dof = sum(len(g) - 1 for _, g in groups.groupby("recipe") if len(g) > 1)
    return float(np.sqrt(sum(var) / dof)) if dof else math.nan


def ablation_summary(comparison, groups, reference: str = "") -> dict:
    """Notebook 08's reading of Table 3 (:func:`compare` against ``reference``, the full recipe):
    the pooled seed std of the average (:func:`seed_std`), the recipes beyond the noise
    (:func:`beyond_noise`), and how many ablations lower the average, in all and with p <
    :data:`ALPHA` (the paper's claim that each part helps predicts all of them)."""
    average = comparison[(comparison["column"] == "average") & (comparison["recipe"] != reference)]
    lower = average["delta"] < 0
    return {"seed_std_average": seed_std(groups), "beyond_noise": beyond_noise(comparison),
            "lower_average": int(lower.sum()), "ablations": len(average),
            "lower_average_beyond_noise": int((lower & (average["p"] < ALPHA)).sum())}


def difference(groups, arm: str, base: str, columns: Sequence[str] = COLUMNS):
    """Per column, ``arm`` against ``base`` over their seeds (two recipes of :func:`group_frame`):
    each one's mean and std, the difference of the means, Welch's 95 % interval and p
    (:func:`pearl.claims.rule.two_sample`, the ledger's test); ``beyond_noise`` when the interval leaves out 0.

    >>> import pandas as pd
    >>> g = pd.DataFrame({"recipe": ["new"] * 3 + ["old"] * 3, "average": [60, 61, 62, 55, 56, 57.0]})
    >>> r = difference(g, "new", "old", columns=["average"]).iloc[0]  # se = sqrt(1/3 + 1/3), 4 dof, t = 2.776
    >>> float(r["difference"]), round(float(r["ci_low"]), 3), round(float(r["ci_high"]), 3), bool(r["beyond_noise"])
    (5.0, 2.733, 7.267, True)
    """
    import pandas as pd

    rows = []
    for col in columns:
        x, y = (groups.loc[groups["recipe"] == r, col].to_numpy(float) for r in (arm, base))
        test = rule.two_sample(x, y)
        rows.append({"column": col, "arm_mean": x.mean(), "arm_std": x.std(ddof=1), "base_mean": y.mean(),
                     "base_std": y.std(ddof=1), "difference": test["ours"], "ci_low": test["ci_low"],
                     "ci_high": test["ci_high"], "p": test["p"], "beyond_noise": bool(test["ci_low"] > 0 or test["ci_high"] < 0)})
    return pd.DataFrame(rows)


def gain_per_group(after, originals, columns: Sequence[str] = COLUMNS):
    """Per recipe (a backbone), the mean over seeds of ``after`` less the original's score, per
    task group and average: where each backbone gains (notebook 09)."""
    return after.groupby("recipe")[list(columns)].mean().sub(originals.set_index("recipe")[list(columns)])


def gains(groups, originals, column: str = "average", control=None):
    """Table 4: per backbone, the original encoder's score, + PEARL's mean ± std over seeds,
    the gain and Welch's t of the seeds against the original score, an exact number (deterministic on
    the seeded sweep suite: :func:`pearl.claims.rule.one_sample`, the ledger's test).

    ``groups``: :func:`group_frame` of the trained models (``recipe`` = backbone);
    ``originals``: the same of the untrained backbones; ``control`` (optional): the same of a
    second method on some backbones (SimCSE on the raw LMs), whose mean, std, gain and p join
    those rows as ``control``, ``control_std``, ``control_n``, ``control_gain``, ``control_p``
    (NaN elsewhere)."""
    import pandas as pd

    def arm(x, base):  # mean, std, n, gain, p of seeds x against a score measured once
        p = _one_sample_p(x, base)
        return x.mean(), x.std(ddof=1) if len(x) > 1 else math.nan, len(x), x.mean() - base, p

    rows = []
    for backbone, sub in groups.groupby("recipe", sort=False):
        base = float(originals.loc[originals["recipe"] == backbone, column].mean())
        mean, std, n, gain, p = arm(sub[column].to_numpy(float), base)
        row = {"backbone": backbone, "original": base, "pearl": mean, "pearl_std": std, "n": n, "gain": gain, "p": p,
               "beyond_noise": bool(p < ALPHA)}
        other = control[control["recipe"] == backbone][column].to_numpy(float) if control is not None else []
        row.update(zip(("control", "control_std", "control_n", "control_gain", "control_p"),
                       arm(other, base) if len(other) else (math.nan, math.nan, 0, math.nan, math.nan)))
        rows.append(row)
    return pd.DataFrame(rows)


def _one_sample_p(x, base: float) -> float:
    """p of seeds ``x`` against the exact number ``base`` (:func:`pearl.claims.rule.one_sample`; NaN for
    one seed or no spread)."""
    return rule.one_sample(x, base)["p"] if len(x) > 1 and x.std() > 0 else math.nan
