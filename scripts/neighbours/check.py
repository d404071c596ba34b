"""Phrase-BERT and PAUSE below the untrained backbone: budget, learning rate or objective?

Usage (from the repository root)::

    PYTHONPATH=lib .venv/bin/python scripts/neighbours/check.py     # trains what is missing, scores, writes
    PYTHONPATH=lib .venv/bin/python scripts/neighbours/check.py --only pause-steps150 pause-pu-only

Trains (or reuses, :func:`pearl.experiments.runner.train_models`: same recipe, same folder) one
seed of each run below on the cpu profile (MiniLM, batch 32, the methods' own defaults of
:data:`pearl.training.objectives.OBJECTIVES`), scores it and the untrained backbone on the
sweep suite (:func:`pearl.benchmark.scoring.run_models`, as notebook 11), and writes
``results/neighbours_check.{csv,md,tex,json}``: one row per run with its steps, learning rate,
seeds, the five group scores, their average and the difference from the untrained backbone.

- ``steps150``: the cpu profile itself (notebook 11's recipe, seed 0, in a folder of its own),
  scored with today's scoring code beside the others;
- ``steps600`` (budget): asks for 4x the profile's 150 steps; the trainer stops at its two
  epochs first on the cpu profile's phrases that have a positive, so the ``steps`` column gives
  the steps run, read from the run's log;
- ``lr2e-5`` (Phrase-BERT) and ``lr7p5e-5`` (PAUSE), 150 steps: the learning rates of the
  authors' training code (the text copies of the papers do not give one: Phrase-BERT's number
  is lost in extraction; its script calls sentence-transformers' ``fit`` at its default 2e-5,
  PAUSE's ``train_nli.py`` defaults to ``--train_lr 7.5e-05``);
- ``pu-only`` (PAUSE): the paper's loss for a binary task with positive labels only, the PU
  risk alone (``PauseSettings.pu_only``), 150 steps.

Notebook 11's rows (150 steps, lr 3e-5, seeds 0-2, mean over the seeds, with its own untrained
backbone) are copied from ``results/methods.csv`` for reference: they were scored by the
scoring code of that run (its PPDB probe scores the backbone's paraphrase classification a
little differently from today's), so each row's difference is taken from the backbone scored with it.
What it leaves out: short-text classification (Table 2), more seeds.
"""
from __future__ import annotations

import argparse

NAME = "neighbours_check"
LABELS = {"phrase_bert": "Phrase-BERT", "pause": "PAUSE"}


def recipes(profile: str) -> dict:
    """``{key: (method, what differs, Recipe)}`` of the runs trained here, scaled to ``profile``."""
    from pearl.experiments.runner import Recipe
    from pearl.training.profiles import PROFILES

    steps = PROFILES[profile]["steps"]
    long, out = 4 * steps, {}
    for m in LABELS:  # the profile's own recipe, in a folder of its own: notebook 11's folders are not touched
        out[f"{m}-steps{steps}"] = (m, "cpu profile", Recipe(name=f"steps{steps}", method=m, config={"steps": steps}))
    for m in LABELS:  # asks for 4x the steps; the trainer stops at its 2 epochs if those come first
        out[f"{m}-steps{long}"] = (m, "longer run", Recipe(name=f"steps{long}", method=m, config={"steps": long}))
    out["phrase_bert-lr2e-5"] = ("phrase_bert", "lr of the authors' code",
                                 Recipe(name="lr2e-5", method="phrase_bert", config={"lr": 2e-5}))
    out["pause-lr7p5e-5"] = ("pause", "lr of the authors' code",
                             Recipe(name="lr7p5e-5", method="pause", config={"lr": 7.5e-5}))
    out["pause-pu-only"] = ("pause", "PU risk alone (paper's binary form)",
                            Recipe(name="pu-only", method="pause", config={"pu_only": True}))
    return out


def profile_rows(columns) -> list[dict]:
    """Notebook 11's rows (mean over its seeds) of the backbone, Phrase-BERT and PAUSE, each with
    ``vs backbone`` against notebook 11's backbone."""
    import pandas as pd

    from pearl import paths

    m = pd.read_csv(paths.results_dir("methods.csv"))
    nb = __import__("json").loads(paths.results_dir("11_methods.json").read_text())
    base = m[m.recipe == "backbone"].set_index("column")
    out = [{"method": "untrained backbone (all-MiniLM-L6-v2)", "run": "no training (notebook 11)", "steps": 0,
            "lr": None, "seeds": "", **{c: float(base.loc[c, "mean"]) for c in columns}, "vs backbone": 0.0,
            "source": "results/methods.csv"}]
    for method in LABELS:
        sub = m[m.recipe == method].set_index("column")
        out.append({"method": LABELS[method], "run": "cpu profile (notebook 11)", "steps": nb_steps(nb),
                    "lr": 3e-5, "seeds": ",".join(map(str, nb["parameters"]["SEEDS"])),
                    **{c: float(sub.loc[c, "mean"]) for c in columns},
                    "vs backbone": float(sub.loc["average", "mean"] - base.loc["average", "mean"]),
                    "source": "results/methods.csv"})
    return out


def nb_steps(nb: dict) -> int:
    from pearl.training.profiles import PROFILES

    return PROFILES[nb["parameters"]["PROFILE"]]["steps"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workers", type=int, default=1, help="one-thread processes training / scoring side by side")
    parser.add_argument("--only", nargs="*", help="train and score these runs alone (keys of recipes(): "
                        "e.g. pause-steps600 pause-pu-only); the record lists the ones left out")
    args = parser.parse_args()

    import pandas as pd

    from pearl.experiments import tables
    from pearl.benchmark.scoring import run_models
    from pearl.experiments.runner import run_summary, train_models
    from harness.outputs import save_table
    from harness.record import Run
    from pearl.tabular import render
    from pearl.training.profiles import PROFILES

    profile, size = "cpu", "sweep"  # no smoke size: it would need notebooks 01-02's smoke corpus
    runs = recipes(profile)
    left_out = sorted(set(runs) - set(args.only)) if args.only else []
    if args.only and set(args.only) - set(runs):
        parser.error(f"unknown runs {sorted(set(args.only) - set(runs))}; choose from {sorted(runs)}")
    runs = {k: v for k, v in runs.items() if k not in left_out}
    run = Run(NAME, dict(SMOKE=False, profile=profile, size=size, seeds=[0], workers=args.workers, only=args.only,
                         runs={k: {"method": m, "recipe": r.name, "config": r.config} for k, (m, _, r) in runs.items()}))
    with run.timer("train"):
        folders = {k: train_models([r], [0], profile=profile, workers=args.workers)[r.name][0] for k, (_, _, r) in runs.items()}
    with run.timer("score"):
        scores = run_models({"backbone": ["minilm"], **{k: [f] for k, f in folders.items()}}, size=size,
                            workers=args.workers)
    groups = tables.group_frame(scores).set_index("recipe")
    columns = list(tables.COLUMNS)
    backbone = groups.loc["backbone", columns].astype(float).to_dict()
    rows = [{"method": "untrained backbone (all-MiniLM-L6-v2)", "run": "no training", "steps": 0, "lr": None,
             "seeds": "", **backbone, "vs backbone": 0.0, "source": "scored here"}]
    for key, (method, what, recipe) in runs.items():
        cfg = {**PROFILES[profile], **recipe.config}
        g = groups.loc[key, columns].astype(float).to_dict()
        steps = run_summary(folders[key], 0)["steps"]  # what ran: the 2-epoch cap may come first
        rows.append({"method": LABELS[method], "run": what, "steps": steps, "lr": cfg["lr"], "seeds": "0", **g,
                     "vs backbone": g["average"] - backbone["average"], "source": f"models/{folders[key].name}"})
    rows += profile_rows(columns)
    df = pd.DataFrame(rows)
    md = markdown(df, columns, size, profile)
    save_table(df, NAME, markdown=md, smoke=False)
    summaries = {k: run_summary(f, 0) for k, f in folders.items()}
    run.save(metrics={"table": df.to_dict("records"), "backbone_average": backbone["average"]},
             training=summaries, left_out=left_out)
    print(render(md, "md"))


def markdown(df, columns, size: str, profile: str):
    """The table (a :class:`pearl.tabular.Table`), one decimal; ``vs backbone`` signed."""
    from pearl.tabular import cell, rows

    body = [[r["method"], r["run"], r["steps"], cell(r["lr"], digits="g", missing=""), r["seeds"],
             *(cell(r[c]) for c in columns), "" if r["steps"] == 0 else cell(r["vs backbone"], sign=True)]
            for r in df.to_dict("records")]
    return rows(["method", "run", "steps", "lr", "seeds", *columns, "vs backbone"], body, head=(
        f"Phrase-BERT and PAUSE against the untrained backbone ({profile} profile, MiniLM, batch 32; "
        f"the five groups and their average on the {size} suite, scored here; notebook 11's rows: mean over its seeds, "
        f"scored by its run, each against its own backbone)"))


if __name__ == "__main__":
    main()
