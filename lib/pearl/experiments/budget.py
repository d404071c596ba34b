"""PEARL's gain against its training budget, and a projection to the paper's budget.

A budget is a multiple of the cpu profile's 4,800 phrase views (150 steps x batch 32). The
batch grows with the square root of the budget, rounded to a power of two between 16 and 512
(the paper's batch), and the steps make up the rest: ``0.25x`` is 75 x 16, ``1x`` 150 x 32,
``10x`` 375 x 128 (the discrepancy study's 10x), ``100x`` 1,875 x 256. The learning rate stays
the profile's.

:func:`fit` regresses the average gain on ``log10(views)`` (one point per trained seed, ordinary
least squares) and :func:`project` gives the fitted gain at another budget with its 95 %
prediction interval for one new model (scipy's t quantile). A straight line in log(views) is the
simplest curve that can rise without bound. :func:`fit_saturating` fits the other simple shape,
a curve that levels off, ``a * v / (v + b)`` in views ``v`` (zero gain at zero views, a ceiling
``a`` reached half-way at ``b`` views; scipy's ``curve_fit``), and :func:`project_saturating`
projects it with the delta method's interval. The two can fit the points about equally well and
still part far beyond them, so :func:`project_models` lets the interval carry the choice of
curve: its interval is the *union* of the two curves' prediction intervals, not an average of them
weighted by AIC. The AIC weights (also given, with the weighted gain as a midpoint) say which
curve fits the budgets trained; nothing in those points says which one holds a hundredfold beyond
them, where the projection is read, so a weighted interval would let a small difference in fit
decide a large difference in extrapolation. A saturating fit can converge and still say nothing:
when its half-way point ``b`` lies beyond every budget trained, or its standard error is as large as
``b``, the points only see the curve's straight start ``(a / b) v`` and any ceiling fits them, so
:func:`unidentified` says why it is *not identified* and the projection leaves it out (its interval would
be the ceiling's, arbitrarily wide, not the data's). :func:`about` words the extrapolation's factor.

The points come from JSON-lines files, one model a line (``scripts/budget_curve.py`` writes them):
:func:`read_points` reads one, naming the file and line of a line cut by a kill, and :func:`one_per_point`
keeps one line per (series, join, backbone, budget, seed): a line repeated as it was is counted once,
two that disagree stop the fit naming both, never counted twice.

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


def _fit_quality(resid: np.ndarray, params: int = 2) -> dict:
    """The residual sum of squares and the least-squares AIC, ``n ln(RSS / n) + 2 k`` (the
    noise variance, common to both curves, left out)."""
    rss = float(resid @ resid)
    return {"rss": rss, "aic": len(resid) * math.log(max(rss, 1e-300) / len(resid)) + 2 * params}


def fit(views: Sequence[float], gains: Sequence[float]) -> dict:
    """OLS of ``gains`` on ``log10(views)``: intercept, slope (gain per tenfold budget), their
    standard errors, the residual std, RSS and AIC, and the points' log-views (kept for :func:`project`).

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
            "se_slope": float(np.sqrt(cov[1, 1])), "resid_std": s, "dof": dof, "n": len(x), **_fit_quality(resid),
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
    half = float(stats.t.ppf(0.5 + level / 2, f["dof"]) * f["resid_std"] * math.sqrt(
        1 + 1 / f["n"] + (x - f["x_mean"]) ** 2 / f["sxx"]))
    return {"views": views, "gain": yhat, "pi_low": yhat - half, "pi_high": yhat + half, "level": level,
            "extrapolation": views / f["views_max"] if views > f["views_max"] else 1.0}


def fit_saturating(views: Sequence[float], gains: Sequence[float]) -> dict:
    """Least squares of ``gains`` on ``a * v / (v + b)`` (scipy's ``curve_fit``, ``b > 0``): ``a``
    (the ceiling), ``b`` (the views at half of it), their covariance and standard errors, the
    residual std, RSS and AIC. A ``ValueError`` when the fit does not converge or leaves a
    parameter undetermined (infinite variance): the points do not pin the curve down.

    >>> f = fit_saturating([1, 2, 4, 8], [1.0, 4 / 3, 1.6, 16 / 9]); round(f["a"], 6), round(f["b"], 6)
    (2.0, 1.0)
    """
    from scipy.optimize import curve_fit

    v, y = np.asarray(views, float), np.asarray(gains, float)
    if len(v) < 3 or np.ptp(v) == 0:
        raise ValueError("a fit needs at least 3 points over at least 2 budgets")
    try:
        (a, b), cov = curve_fit(_saturating, v, y, p0=(2 * y.max() if y.max() > 0 else 1.0, float(np.median(v))),
                                bounds=((-np.inf, 1e-12), (np.inf, np.inf)), maxfev=20_000)
    except RuntimeError as err:
        raise ValueError(f"the saturating curve did not converge on these points: {err}") from err
    if not np.all(np.isfinite(cov)):
        raise ValueError("the saturating curve's parameters are undetermined on these points (infinite variance)")
    resid = y - _saturating(v, a, b)
    dof = len(v) - 2
    return {"a": float(a), "b": float(b), "se_a": float(np.sqrt(cov[0, 0])), "se_b": float(np.sqrt(cov[1, 1])),
            "cov": cov.tolist(), "resid_std": float(np.sqrt(resid @ resid / dof)) if dof > 0 else math.nan,
            "dof": dof, "n": len(v), **_fit_quality(resid), "views_min": float(v.min()), "views_max": float(v.max())}


def _saturating(v, a, b):
    return a * v / (v + b)


def project_saturating(f: dict, views: float, level: float = 0.95) -> dict:
    """The saturating curve's gain at ``views`` and its ``level`` prediction interval for one new
    model: ``yhat -+ t * sqrt(s^2 + g' C g)``, ``g`` the curve's gradient in ``(a, b)`` and ``C``
    their covariance (the delta method).

    >>> f = {"a": 2.0, "b": 1.0, "cov": [[0.0, 0.0], [0.0, 0.0]], "resid_std": 0.0, "dof": 2, "views_max": 8.0}
    >>> p = project_saturating(f, 3.0); p["gain"], p["pi_low"], p["extrapolation"]
    (1.5, 1.5, 1.0)
    """
    from scipy import stats

    a, b = f["a"], f["b"]
    grad = np.array([views / (views + b), -a * views / (views + b) ** 2])
    var = f["resid_std"] ** 2 + float(grad @ np.asarray(f["cov"]) @ grad)
    yhat = float(_saturating(views, a, b))
    half = float(stats.t.ppf(0.5 + level / 2, f["dof"]) * math.sqrt(var))
    return {"views": views, "gain": yhat, "pi_low": yhat - half, "pi_high": yhat + half, "level": level,
            "extrapolation": views / f["views_max"] if views > f["views_max"] else 1.0}


def unidentified(f: dict) -> str | None:
    """Why a converged saturating fit does not pin its curve down, or ``None`` when it does: its
    half-way point ``b`` beyond the largest budget trained, or ``b``'s standard error at least ``b``
    (its one-sigma interval reaches zero views). Either way the points lie on the curve's straight
    start, where only ``a / b`` is seen.

    >>> unidentified({"a": 2.0, "b": 400.0, "se_b": 140.0, "views_max": 19200.0}) is None
    True
    >>> unidentified({"a": 434.0, "b": 3.9e7, "se_b": 6e11, "views_max": 19200.0})
    'b = 39,000,000 views lies beyond the largest budget trained (19,200 views)'
    """
    if f["b"] > f["views_max"]:
        return f"b = {f['b']:,.0f} views lies beyond the largest budget trained ({f['views_max']:,.0f} views)"
    if not f["se_b"] < f["b"]:
        return f"b = {f['b']:,.0f} views has a standard error of {f['se_b']:,.0f}, as large as b itself"
    return None


def fit_models(views: Sequence[float], gains: Sequence[float]) -> dict:
    """Both curves on the same points: ``{"log-linear": fit, "saturating": fit}``; a curve that
    cannot be fitted gives ``{"failed": why}`` in its place, and a saturating fit that converged
    but is :func:`unidentified` keeps its parameters with ``"unidentified": why``."""
    out = {"log-linear": fit(views, gains)}
    try:
        out["saturating"] = fit_saturating(views, gains)
    except ValueError as err:
        out["saturating"] = {"failed": str(err)}
    else:
        why = unidentified(out["saturating"])
        if why:
            out["saturating"]["unidentified"] = why
    return out


def usable(f: dict) -> bool:
    """Whether a curve of :func:`fit_models` enters the projection: fitted, and identified."""
    return "failed" not in f and "unidentified" not in f


#: each curve's projection
PROJECTORS = {"log-linear": project, "saturating": project_saturating}


def project_models(fits: dict, views: float, level: float = 0.95) -> dict:
    """Every :func:`usable` curve of :func:`fit_models` projected to ``views``, and the projection
    that carries the choice of curve: ``pi_low``/``pi_high`` the union of their ``level`` prediction
    intervals, ``gain`` their AIC-weighted mean (a midpoint, not an estimate either curve makes),
    ``weights`` the AIC weights, ``models`` each curve's own projection (module docstring).

    >>> f = {"log-linear": fit([10, 100, 1000, 10000], [1, 2, 2, 3]), "saturating": {"failed": "no"}}
    >>> p = project_models(f, 1e5); round(p["gain"], 2), p["weights"], p["pi_high"] == p["models"]["log-linear"]["pi_high"]
    (3.5, {'log-linear': 1.0}, True)
    """
    fitted = {name: f for name, f in fits.items() if usable(f)}
    models = {name: PROJECTORS[name](f, views, level) for name, f in fitted.items()}
    best = min(f["aic"] for f in fitted.values())
    raw = {name: math.exp(-(f["aic"] - best) / 2) for name, f in fitted.items()}
    weights = {name: w / sum(raw.values()) for name, w in raw.items()}
    return {"views": views, "gain": sum(weights[m] * p["gain"] for m, p in models.items()),
            "pi_low": min(p["pi_low"] for p in models.values()), "pi_high": max(p["pi_high"] for p in models.values()),
            "level": level, "extrapolation": max(p["extrapolation"] for p in models.values()),
            "weights": weights, "models": models}


def about(factor: float) -> str:
    """A factor in words, to two significant figures: how far a projection reaches.

    >>> about(395.83), about(158.3), about(15.8), about(1.0)
    ('about 400x', 'about 160x', 'about 16x', 'about 1x')
    """
    return f"about {float(f'{factor:.2g}'):g}x"


#: what makes two lines the same point of a curve
POINT = ("series", "centre", "backbone", "all_phrases", "budget", "seed")


def read_points(path) -> list[dict]:
    """The lines of the points file ``path``, each a dict with ``"_at"`` (``file:line``); a line that
    is not a JSON object (cut by a kill) raises ``ValueError`` naming it and the fix."""
    import json
    from pathlib import Path

    rows = []
    for n, line in enumerate(Path(path).read_text(encoding="utf8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as err:
            row, why = None, str(err)
        else:
            why = "not a JSON object"
        if not isinstance(row, dict):
            raise ValueError(f"{path}:{n} is not one budget point ({why}; a line cut by a kill?): delete that line, "
                             "and a rerun of scripts/budget_curve.py trains its point again")
        rows.append({**row, "_at": f"{path}:{n}"})
    return rows


def one_per_point(rows: list[dict]) -> list[dict]:
    """``rows`` with each point (:data:`POINT`) once: a line repeated with the same content is kept once;
    two lines of one point that differ raise ``ValueError`` naming both and the fix."""
    kept: dict[tuple, dict] = {}
    for row in rows:
        key = tuple(repr(row.get(k)) for k in POINT)
        first = kept.setdefault(key, row)
        if first is not row and {k: v for k, v in first.items() if k != "_at"} != {k: v for k, v in row.items() if k != "_at"}:
            raise ValueError(f"{first['_at']} and {row['_at']} are the same budget point "
                             f"({', '.join(f'{k} {row.get(k)}' for k in POINT)}) with other numbers: delete the one "
                             "that should not count")
    return list(kept.values())
