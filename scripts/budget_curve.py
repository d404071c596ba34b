"""PEARL's gain against its training budget (:mod:`pearl.experiments.budget`): train, score, fit, project.

Usage::

    .venv/bin/python scripts/budget_curve.py --backbone minilm --budgets 0.25,1,4 --seeds 0,1,2
    .venv/bin/python scripts/budget_curve.py --summarise      # results/budget_curve.{csv,md,tex,json}, the figure
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/budget_curve.py --backbone minilm --budgets 0.25 --size smoke

Each (backbone, budget, seed) trains the cpu recipe at that budget's batch and steps on the
corpus the output root holds (WikiText-2's mined anchors by default; ``--all-phrases`` every
phrase, as the GPU bundle's hard negatives allow) and is scored on the sweep suite like Table
4's backbones; the untrained backbone is scored once. The 1x point is the cpu recipe itself, so
it is notebook 09's Table-4 model of that backbone and seed, reused with its scores (trained
through the runner when missing; same weights as a direct training). One line per model in
``--lines`` (default ``results/budget/<tag>.jsonl``; a rerun skips what it has). ``--summarise``
reads every ``results/budget/*.jsonl`` and ``results/gpu/budget/*.jsonl``, pools each
machine's lines per join (a series' name up to its first ``-``: ``gpu-anchors`` and ``gpu``
make one curve), gives the gain per group and on average per (curve, budget) with its std
over seeds, fits the average gain per series with two curves (a line in log10(views) and the
saturating ``a·v/(v+b)``) and projects both to the paper's 7.6M views, the interval the union of
their 95 % prediction intervals (:func:`pearl.experiments.budget.project_models`). ``--summarise``
trains nothing: it refits the committed lines, so a change to the fit is rerun from them alone. Each
line says its size: a full-size ``--summarise`` refuses a SMOKE line, a run never adds its lines to a
file of the other size, and a point held twice counts once, or stops the fit when the two differ.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import time
from pathlib import Path


#: a line's join by its ``centre``: None is today's composition rule (it centres an anisotropic backbone
#: only); True the recipe before it, always centred at a fixed weight (every line written before the rule
#: says True, or nothing); False the older join, never centred
JOINS = {None: "rule", True: "centred", False: "uncentred"}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backbone", default="minilm")
    ap.add_argument("--budgets", default="0.25,1,4", help="comma-separated multiples of the cpu profile's 4,800 views")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--all-phrases", action="store_true", help="train on every corpus phrase, not only the mined anchors")
    ap.add_argument("--tag", default=None, help="the series' name up to its first '-' and its lines file "
                    "(default cpu-<backbone>: cpu-minilm, cpu-me5, the committed files, so a rerun resumes them)")
    ap.add_argument("--uncentred", action="store_true", help="the old join: the phrase part never centred (TrainConfig.centre=False; by default the composition rule decides)")
    ap.add_argument("--device", default=None)
    ap.add_argument("--size", choices=("sweep", "smoke"), default="sweep")
    ap.add_argument("--summarise", action="store_true")
    args = ap.parse_args()

    from harness.scale import for_script
    from pearl import paths

    for_script(args.size)  # a SMOKE run never writes into the repository
    if args.summarise:
        return summarise(args.size == "smoke")
    # a backbone's cpu lines have one file: a rerun skips the (budget, seed) points it holds, never pools a twin
    args.tag = args.tag or "cpu-" + {"me5-small": "me5"}.get(args.backbone, args.backbone)
    if args.uncentred:
        args.tag += "-uncentred"
    lines = paths.results_dir("budget") / f"{args.tag}.jsonl"
    run(args, lines)


def is_smoke(line: dict) -> bool:
    """Whether a budget line was written by a SMOKE run (its ``size``; lines without one are full size)."""
    return line.get("size") == "smoke"


def training_config(profile: str, backbone: str, seed: int, budget: float, device=None, uncentred: bool = False,
                    all_phrases: bool = False):
    """(TrainConfig, data options) of one budget's model: the profile's recipe (its view composition by
    the rule unless ``uncentred``) at that budget's batch and steps."""
    from pearl.experiments.budget import budget_config
    from pearl.training.profiles import config_for

    # SMOKE: the tiny profile's batch, steps still growing with the budget (every code path)
    over = budget_config(budget) if profile == "cpu" else {"steps": max(2, round(4 * budget))}
    return config_for(profile, backbone=backbone, seed=seed, device=device, centre=False if uncentred else None,
                      **over, **({"anchors_only": False} if all_phrases else {}))


def run(args, lines: Path) -> None:
    from pearl import paths
    from pearl.benchmark import scoring
    from pearl.benchmark.tasks import DATASETS
    from pearl.corpus.phrases import LABELS
    from pearl.experiments.budget import epochs_for
    from pearl.experiments.tables import group_scores
    from pearl.models import load_model
    from pearl.experiments.budget import read_points
    from pearl.provenance import append_jsonl, stamp
    from pearl.training.methods import inputs_for
    from pearl.training.profiles import load_training_data
    from pearl.training.train import train

    import pandas as pd
    from harness.scale import FULL, SMOKE

    scale = SMOKE if args.size == "smoke" else FULL
    profile, size = scale.scaled("cpu"), scale.scaled(args.size)  # pearl's "tiny" in a SMOKE run
    held = read_points(lines) if lines.is_file() else []
    other = [r for r in held if is_smoke(r) != scale.smoke]  # checked before a model is trained or a line written
    if other:
        raise SystemExit(f"{other[0]['_at']} is a {'SMOKE' if is_smoke(other[0]) else 'full-size'} line, and this "
                         f"{'SMOKE' if scale.smoke else 'full-size'} run never adds its lines to that file: "
                         "point $PEARL_OUTPUT at a scratch folder, or pass another --tag")
    done = {(r["backbone"], r["budget"], r["seed"]) for r in held}

    def score(name, enc):
        rows = scoring.run_model(name, enc, DATASETS, size=size)
        groups = group_scores(pd.DataFrame(rows)).iloc[0].to_dict()
        return {"scores": {r["dataset"]: float(r["score"]) for r in rows}, "groups": groups}

    def record(row):
        row = {"series": args.tag, "centre": False if args.uncentred else None, "backbone": args.backbone, "size": args.size, "all_phrases": args.all_phrases,
               **row, **stamp()}
        append_jsonl(lines, row)
        print(json.dumps({k: row[k] for k in row if k != "scores"}), flush=True)

    if (args.backbone, 0, None) not in done:
        record({"budget": 0, "seed": None, "views": 0, **score("untrained", load_model(args.backbone))})
    for budget in map(float, args.budgets.split(",")):
        for seed in map(int, args.seeds.split(",")):
            if (args.backbone, budget, seed) in done:
                continue
            if budget == 1 and profile == "cpu" and not (args.all_phrases or args.uncentred or args.device):
                record(table4_point(args.backbone, seed, score))
                continue
            cfg, data = training_config(profile, args.backbone, seed, budget, args.device, args.uncentred, args.all_phrases)
            corpus, negs, tables = load_training_data(seed=seed, **data, guard=scale.guard)
            corpus, augmenter = inputs_for(cfg, corpus, tables)
            # a budget past 2 passes over the phrases takes more passes, not fewer steps
            cfg = dataclasses.replace(cfg, epochs=epochs_for(cfg.steps, cfg.batch_size, len(corpus), cfg.epochs))
            t0 = time.perf_counter()
            result = train(cfg, corpus, negs, augmenter, labels=list(LABELS), progress=False)
            train_s = time.perf_counter() - t0
            enc = result.model.as_encoder(result.tokenizer, cfg.max_length, name=f"budget {budget} seed {seed}")
            record({"budget": budget, "seed": seed, "views": result.steps * cfg.batch_size, "batch_size": cfg.batch_size,
                    "steps": result.steps, "epochs": cfg.epochs, "phrases": len(corpus), "train_s": round(train_s, 1),
                    "device": str(next(result.model.parameters()).device), **score(f"budget {budget}", enc),
                    "eval_s": round(time.perf_counter() - t0 - train_s, 1)})


def table4_point(backbone: str, seed: int, score) -> dict:
    """The 1x point: the cpu recipe itself, so notebook 09's model of ``backbone`` and ``seed``
    (Table 4's, trained through the runner when it is missing; the same weights as a direct
    training, seed for seed), scored like every point (its scores come from the score store)."""
    from pearl.experiments import backbones
    from pearl.experiments.budget import budget_config
    from pearl.experiments.runner import train_models
    from pearl.models import load_model

    _, recipes = backbones.recipes([backbone], 1.0)
    folder = train_models(list(recipes.values()), [seed], profile="cpu", log=lambda _: None)[recipes[backbone].name][0]
    info = json.loads((folder / "pearl.json").read_text())
    over = budget_config(1)
    t0 = time.perf_counter()
    scored = score("budget 1.0", load_model(str(folder)))
    return {"budget": 1.0, "seed": seed, "views": over["steps"] * over["batch_size"], **over,
            "phrases": info.get("train_phrases"), "train_s": info.get("train_seconds"), "device": "cpu",
            "model": folder.name, **scored, "eval_s": round(time.perf_counter() - t0, 1)}


#: phrase views of the gpu profile's run (418 steps x batch 512 over WikiText-2's phrases, 2 epochs)
GPU_PROFILE_VIEWS = 418 * 512


def summarise(smoke: bool) -> None:
    import numpy as np
    import pandas as pd

    from pearl import paths
    from pearl.benchmark.tasks import GROUPS
    from pearl.experiments.budget import PAPER_VIEWS, fit_models, one_per_point, project_models, read_points
    from harness.committed import gpu_points
    from harness.outputs import save_figure, save_table
    from harness.record import Run
    from pearl.tabular import Table, render

    files = sorted(paths.results_dir("budget").glob("*.jsonl")) + sorted(paths.results_dir("gpu", "budget").glob("*.jsonl"))
    rows = one_per_point([r for f in files for r in read_points(f)])
    tiny = [r for r in rows if is_smoke(r)]
    if tiny and not smoke:  # a full-size fit never pools a SMOKE point
        raise SystemExit(f"{tiny[0]['_at']} is a SMOKE line (size smoke: tiny, not a result), and a full-size "
                         "--summarise never pools one: delete it (a SMOKE run belongs in a scratch $PEARL_OUTPUT), "
                         "or summarise that root with --size smoke")
    for r in rows:  # one curve per machine, join and backbone: a series' budgets and its variants' pool together
        r["series"] = f"{r['series'].split('-')[0]}, {JOINS[r.get('centre', True)]}"
    cols = [*GROUPS, "average"]
    points, table, fits = [], [], {}
    for (series, backbone), sub in pd.DataFrame(rows).groupby(["series", "backbone"], sort=False):
        base = sub[sub["budget"] == 0]
        if base.empty:
            continue
        original = base.iloc[-1]["groups"]
        trained = sub[sub["budget"] > 0]
        if trained.empty:  # the untrained backbone scored, no budget trained yet
            continue
        for r in trained.to_dict("records"):
            points.append({"series": series, "backbone": backbone, "budget": r["budget"], "views": r["views"],
                           "seed": r["seed"], **{c: r["groups"][c] - original[c] for c in cols}})
        pts = pd.DataFrame([p for p in points if p["series"] == series and p["backbone"] == backbone])
        for budget, g in pts.groupby("budget"):
            meta = trained[trained["budget"] == budget].iloc[0]
            table.append({"series": series, "backbone": backbone, "budget": budget, "views": int(meta["views"]),
                          "phrases": int(meta["phrases"]),
                          "batch": int(meta["batch_size"]), "steps": int(meta["steps"]), "seeds": len(g),
                          **{f"gain {c}": float(g[c].mean()) for c in cols},
                          "std average": float(g["average"].std(ddof=1)) if len(g) > 1 else np.nan})
        if pts["views"].nunique() >= 2 and len(pts) >= 3:
            both = fit_models(pts["views"], pts["average"])
            fits[f"{series}/{backbone}"] = {"fit": both["log-linear"], "saturating": both["saturating"],
                                            "paper_budget": project_models(both, PAPER_VIEWS)}
    frame = pd.DataFrame(table)
    label = "SMOKE: " if smoke else ""
    proj = "\n".join(f"- {k}: {fit_words(v)}" for k, v in fits.items())
    shown = frame.round(3).astype(object).where(frame.notna(), "–")  # a std of one seed is a dash, never "nan"
    md = Table(shown, head=f"# {label}PEARL's gain against its budget (sweep suite; gain = trained - untrained, "
               "per group and on average)", notes=["## Fit and projection", proj or "- too few points to fit"])
    save_table(frame, "budget_curve", markdown=md, smoke=smoke)
    # the gpu profile's one run (notebook 03 on a lent H100: batch 512, the old uncentred join, Table 1's exact
    # suite, not the sweep): a check on the curves from another protocol, drawn apart, never fitted
    gpu_profile = [{**p, "views": GPU_PROFILE_VIEWS, "label": p["label"] + ", uncentred"}
                   for p in gpu_points(paths.results_dir("gpu", "table1_gpu_profile_seed0.json"))]
    save_figure(plot(pd.DataFrame(points), fits, gpu_profile), "budget_curve", smoke=smoke)
    Run("budget_curve", dict(SMOKE=smoke)).save(metrics={k: v["paper_budget"]["gain"] for k, v in fits.items()},
                                               fits=fits, points=points, gpu_profile=gpu_profile)
    print(render(md, "md"))


def fit_words(v: dict) -> str:
    """One series' two curves and their projection to the paper's budget, in words (the table's notes).

    A curve that could not be fitted, or that the points do not identify, is named with the reason;
    the interval is the union of the usable curves' (:func:`pearl.experiments.budget.project_models`)."""
    from pearl.experiments.budget import PAPER_VIEWS, about

    from pearl.tabular import cell

    def n(x, digits=2, sign=True):  # a number of the notes; a NaN one says so, never "+nan"
        return cell(x, digits=digits, sign=sign, missing="no number")

    line, sat, pb = v["fit"], v["saturating"], v["paper_budget"]
    lin_p = pb["models"]["log-linear"]
    words = (f"log-linear: {n(line['slope'])} per tenfold budget (se {n(line['se_slope'], sign=False)}), RSS "
             f"{n(line['rss'], 3, False)}, {n(lin_p['gain'])} at the paper's {PAPER_VIEWS:,} views (95 % prediction interval "
             f"{n(lin_p['pi_low'])} to {n(lin_p['pi_high'])}); ")
    if "failed" in sat:
        words += f"saturating a·v/(v+b): not fitted ({sat['failed']}); "
    elif "unidentified" in sat:
        words += (f"saturating a·v/(v+b): not identified by these points ({sat['unidentified']}: they lie on the "
                  "curve's straight start, where any ceiling fits), so the interval is the line's alone; ")
    else:
        sat_p = pb["models"]["saturating"]
        words += (f"saturating a·v/(v+b): a {n(sat['a'])}, b {n(sat['b'], ',.0f', False)} views, RSS "
                  f"{n(sat['rss'], 3, False)}, {n(sat_p['gain'])} ({n(sat_p['pi_low'])} to {n(sat_p['pi_high'])}); AIC weights "
                  + ", ".join(f"{m} {n(w, sign=False)}" for m, w in pb["weights"].items()) + "; ")
    span = "both curves' intervals together" if len(pb["models"]) > 1 else "the projection's interval, the line's"
    return (words + f"{span} {n(pb['pi_low'])} to {n(pb['pi_high'])}: the projection "
            f"extrapolates {about(pb['extrapolation'])} beyond the largest budget trained, where no point checks either curve")


def plot(points, fits, gpu_profile=()):
    """Six panels against log(views): the average gain (each seed, the log-linear fit as a line and
    the saturating one dashed, the union of their 95 % prediction intervals to the paper's budget,
    the gpu-profile run as a star) and each group's mean gain."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from pearl.benchmark.tasks import GROUPS
    from pearl.experiments.budget import PAPER_VIEWS, project_models

    fig, axes = plt.subplots(2, 3, figsize=(12, 6.6))
    ax = axes[0, 0]
    curves = list(points.groupby(["series", "backbone"], sort=False))
    for i, ((series, backbone), g) in enumerate(curves):
        color = f"C{i}"
        ax.scatter(g["views"], g["average"], s=14, color=color, alpha=0.6, label=f"{backbone} ({series}), each seed")
        key = f"{series}/{backbone}"
        if key in fits:  # each curve, and the union of their intervals (the projection's)
            xs = np.geomspace(g["views"].min(), PAPER_VIEWS, 50)
            pr = [project_models({"log-linear": fits[key]["fit"], "saturating": fits[key]["saturating"]}, x) for x in xs]
            for model, style in (("log-linear", "-"), ("saturating", "--")):
                if model in pr[0]["models"]:
                    ax.plot(xs, [p["models"][model]["gain"] for p in pr], style, color=color)
            ax.fill_between(xs, [p["pi_low"] for p in pr], [p["pi_high"] for p in pr], color=color, alpha=0.12)
        for group, sub_ax in zip(GROUPS, axes.flat[1:]):
            mean = g.groupby("views")[group].mean()
            sub_ax.plot(mean.index, mean.values, "o-", ms=3, color=color, label=f"{backbone} ({series})")
    for p in gpu_profile:
        ax.scatter([p["views"]], [p["average"]], marker="*", s=90, color="black", label=p["label"], zorder=3)
    ax.axvline(PAPER_VIEWS, color="grey", ls=":", lw=1)
    ax.text(PAPER_VIEWS, ax.get_ylim()[1], "paper's budget ", ha="right", va="top", fontsize=7, color="grey")
    ax.set_title("average of the five groups", fontsize=9)
    ax.set_ylabel("gain over the untrained backbone", fontsize=8)
    for group, sub_ax in zip(GROUPS, axes.flat[1:]):
        sub_ax.set_title(group, fontsize=9)
    for a in axes.flat:
        a.axhline(0, color="black", lw=0.6)
        a.set_xscale("log")
        a.tick_params(labelsize=7)
    for a in axes[1]:
        a.set_xlabel("phrase views in training (steps x batch)", fontsize=8)
    fig.legend(*ax.get_legend_handles_labels(), loc="lower center", ncol=2, fontsize=7, frameon=False)
    fig.tight_layout(rect=(0, 0.03 + 0.025 * len(curves), 1, 1))
    return fig


if __name__ == "__main__":
    main()
