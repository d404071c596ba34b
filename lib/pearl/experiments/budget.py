"""PEARL's gain against its training budget, and a projection to the paper's budget.

A budget is a multiple of the cpu profile's 4,800 phrase views (150 steps x batch 32). The
batch grows with the square root of the budget, rounded to a power of two between 16 and 512
(the paper's batch), and the steps make up the rest: ``0.25x`` is 75 x 16, ``1x`` 150 x 32,
``10x`` 375 x 128 (the discrepancy study's 10x), ``100x`` 1,875 x 256. The learning rate stays
the profile's.

:func:`fit` regresses the average gain on ``log10(views)`` (one point per trained seed, ordinary
least squares) and :func:`project` gives the fitted gain at another budget with its 95 %
prediction interval for one new model (scipy's t quantile). A straight line in log(views) is the
simplest curve that can rise without bound; nothing guarantees it holds two orders of magnitude
beyond the data, which the interval does not cover: the report says so beside the number.

What it leaves out: training and scoring (:mod:`pearl.experiments.runner` and
``scripts/budget_curve.py`` do them).
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

#: the cpu profile's phrase views (150 steps x batch 32)
CPU_VIEWS = 150 * 32
#: the paper's budget: 2 epochs over 3.8M phrases (§4.2)
PAPER_VIEWS = 2 * 3_800_000


def batch_for(budget: float) -> int:
    """The batch of a budget: ``32 * sqrt(budget)`` rounded to a power of two, within [16, 512].

    >>> [batch_for(b) for b in (0.25, 1, 4, 10, 20, 100, 1000)]
    [16, 32, 64, 128, 128, 256, 512]
    """
    if not budget > 0:
        raise ValueError(f"budget must be > 0 (a multiple of the cpu profile's {CPU_VIEWS} views), got {budget}")
    return int(min(512, max(16, 2 ** round(math.log2(32 * math.sqrt(budget))))))


def budget_config(budget: float) -> dict:
    """TrainConfig overrides of a budget: ``batch_size`` and ``steps`` (views = their product).

    >>> budget_config(1), budget_config(10)
    ({'batch_size': 32, 'steps': 150}, {'batch_size': 128, 'steps': 375})
    """
    batch = batch_for(budget)
    return {"batch_size": batch, "steps": max(1, round(budget * CPU_VIEWS / batch))}


def epochs_for(steps: int, batch_size: int, phrases: int, at_least: int = 2) -> int:
    """The passes over ``phrases`` that ``steps`` batches need (the trainer stops after its epochs,
    whichever comes first), and never fewer than the recipe's ``at_least``.

    >>> epochs_for(150, 32, 9281), epochs_for(300, 64, 9281)  # 145 batches a pass at batch 64
    (2, 3)
    """
    per_epoch = phrases // batch_size
    if per_epoch < 1:
        raise ValueError(f"{phrases} phrases make no batch of {batch_size}: lower the budget or train on more phrases")
    return max(at_least, math.ceil(steps / per_epoch))


def fit(views: Sequence[float], gains: Sequence[float]) -> dict:
    """OLS of ``gains`` on ``log10(views)``: intercept, slope (gain per tenfold budget), their
    standard errors, the residual std and the points' log-views (kept for :func:`project`).

    >>> f = fit([10, 100, 1000], [1.0, 2.0, 3.0]); round(f["slope"], 6), round(f["intercept"], 6)
    (1.0, 0.0)
    """
    x, y = np.log10(np.asarray(views, float)), np.asarray(gains, float)
    if len(x) < 3 or np.ptp(x) == 0:
        raise ValueError("a fit needs at least 3 points over at least 2 budgets")
    design = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    resid = y - design @ coef
    dof = len(x) - 2
    s = float(np.sqrt(resid @ resid / dof)) if dof > 0 else math.nan
    cov = s ** 2 * np.linalg.inv(design.T @ design)
    return {"intercept": float(coef[0]), "slope": float(coef[1]), "se_intercept": float(np.sqrt(cov[0, 0])),
            "se_slope": float(np.sqrt(cov[1, 1])), "resid_std": s, "dof": dof, "n": len(x),
            "x_mean": float(x.mean()), "sxx": float(((x - x.mean()) ** 2).sum()),
            "views_min": float(10 ** x.min()), "views_max": float(10 ** x.max())}


def project(f: dict, views: float, level: float = 0.95) -> dict:
    """The fitted gain at ``views`` and its ``level`` prediction interval for one new model:
    ``yhat -+ t * s * sqrt(1 + 1/n + (x - xbar)^2 / Sxx)``.

    >>> p = project(fit([10, 100, 1000, 10000], [1.0, 2.1, 2.9, 4.0]), 1e5); round(p["gain"], 2)
    4.95
    """
    from scipy import stats

    x = math.log10(views)
    yhat = f["intercept"] + f["slope"] * x
    half = stats.t.ppf(0.5 + level / 2, f["dof"]) * f["resid_std"] * math.sqrt(
        1 + 1 / f["n"] + (x - f["x_mean"]) ** 2 / f["sxx"])
    return {"views": views, "gain": yhat, "pi_low": yhat - half, "pi_high": yhat + half, "level": level,
            "extrapolation": views / f["views_max"] if views > f["views_max"] else 1.0}
