"""Today's batches against the PEARL authors' (issue #69 item 3), at the cpu profile, scored on the sweep suite.

Usage::

    .venv/bin/python scripts/batch_composition.py                 # train and score what is missing, then summarise
    .venv/bin/python scripts/batch_composition.py --summarise     # results/batch_composition.{csv,md,tex,json}
    .venv/bin/python scripts/batch_composition.py --no-train      # score only what another process has trained
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/batch_composition.py --size smoke

Two arms, the same recipe and budget (the cpu profile: 150 steps of 32 rows, MiniLM, the
profile's view composition) and seeds: ``extra_negatives`` (today's batches: a phrase's hard
negatives are extra candidates of the loss; its models are notebook 03's full recipe, reused when
trained) and ``reference`` (the authors' loader: each hard negative a row of its own, with its own
augmented copy and type label; :mod:`pearl.training.batches`). Each model is trained through the
runner (:func:`pearl.experiments.runner.train_models`, reused when its folder holds the same
recipe) and scored on the sweep suite as Tables 3 and 4 score theirs
(:func:`pearl.benchmark.scoring.run_models`, the five-group average of
:func:`pearl.experiments.tables.group_frame`). One line per (arm, seed) in
``results/batch_composition/runs.jsonl``; a rerun skips what it has. The summary gives each arm's
mean ± std over seeds per group and on average, and the difference reference - today with Welch's
95 % interval (:func:`pearl.experiments.tables.difference`).

Names: each arm is a *batch layout* (:data:`pearl.training.batches.LAYOUTS`). This script, ``make
batch-composition``, its results files and their lines' ``"composition"`` key, and the setting
``TrainConfig.batch_composition`` keep their first name: committed results and stored models' recipe
keys hold it. "Composition" alone names how the two views join (:mod:`pearl.training.composition`).
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

NAME = "batch_composition"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--arms", default=",".join(("extra_negatives", "reference")),
                    help="the batch layouts to train and score (a process per arm and seed can score side by side)")
    ap.add_argument("--size", choices=("sweep", "smoke"), default="sweep")
    ap.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    ap.add_argument("--summarise", action="store_true", help="only write the summary from the lines")
    ap.add_argument("--no-train", action="store_true",
                    help="score only the models already trained (another process trains the rest), then summarise")
    args = ap.parse_args()

    from harness.scale import for_script
    from pearl import paths

    for_script(args.size)  # a SMOKE run never writes into the repository
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    lines = paths.results_dir(NAME) / "runs.jsonl"
    if not args.summarise:
        run(lines, [int(s) for s in args.seeds.split(",")], args.size, args.threads, train=not args.no_train,
            arms=args.arms.split(","))
    summarise(lines, smoke=args.size == "smoke")


def read_lines(lines: Path) -> list[dict]:
    """The records of ``lines``; a line cut by a killed run is skipped (it is run again)."""
    out = []
    for text in lines.read_text().splitlines() if lines.is_file() else []:
        try:
            out.append(json.loads(text))
        except json.JSONDecodeError:
            continue
    return out


def run(lines: Path, seeds: list[int], size: str, threads: int, train: bool = True, arms=None) -> None:
    """Train and score every (seed, arm) missing from ``lines``, seed by seed (a run cut short
    leaves both arms with the same seeds); with ``train`` false, score only the models already trained."""
    from pearl.benchmark.scoring import run_models
    from pearl.experiments.runner import is_trained, layout_recipe, train_models
    from pearl.experiments.tables import group_frame
    from pearl.provenance import append_jsonl, stamp
    from pearl.training.batches import LAYOUTS, anchors_per_batch

    from harness.scale import of_size

    scale = of_size(size)
    profile, size = scale.scaled("cpu"), scale.scaled(size)  # pearl's "tiny" profile and task size at SMOKE
    done = {(r["composition"], r["seed"]) for r in read_lines(lines)}
    for seed in seeds:
        for layout in arms or LAYOUTS:
            if (layout, seed) in done:
                continue
            recipe = layout_recipe(layout)
            if not train and not is_trained(recipe, seed, profile):
                print(f"{recipe.folder(seed).name} is not trained yet: left for a later run", flush=True)
                continue
            folder = train_models([recipe], [seed], profile=profile, guard=scale.guard)[recipe.name][0]
            info = json.loads((folder / "pearl.json").read_text())
            cfg = info["train_config"]
            groups = group_frame(run_models({layout: [folder]}, size=size, threads=threads)).iloc[0]
            row = {"composition": layout, "seed": seed, "size": size, "profile": profile, "model": folder.name,
                   "batch_size": cfg["batch_size"], "hard_negatives": cfg["hard_negatives"], "steps": cfg["steps"],
                   "anchors_per_step": anchors_per_batch(cfg["batch_size"], cfg["hard_negatives"], layout),
                   "train_s": info.get("train_seconds"), "centre": cfg.get("centre"), "char_weight": cfg.get("char_weight"),
                   "groups": {k: float(v) for k, v in groups.items() if k not in ("recipe", "model")}, **stamp()}
            append_jsonl(lines, row)
            print(json.dumps({k: row[k] for k in ("composition", "seed", "model", "train_s")} | {"average": row["groups"]["average"]}),
                  flush=True)


def summarise(lines: Path, smoke: bool) -> None:
    import pandas as pd

    from harness.record import Run
    from pearl.experiments.tables import COLUMNS, difference
    from harness.outputs import save_table
    from pearl.tabular import Table, cell, render
    from pearl.training.batches import LAYOUTS

    rows = read_lines(lines)
    if not rows:
        raise SystemExit(f"{lines} holds no runs: run scripts/batch_composition.py without --summarise first")
    groups = pd.DataFrame([{"recipe": r["composition"], "seed": r["seed"], "model": r["model"], **r["groups"]} for r in rows])
    today, reference = LAYOUTS
    seeds = sorted(set(groups.loc[groups["recipe"] == today, "seed"]) & set(groups.loc[groups["recipe"] == reference, "seed"]))
    if len(seeds) < 2:
        raise SystemExit(f"{lines}: both arms need at least two common seeds for Welch's interval (have {seeds})")
    groups = groups[groups["seed"].isin(seeds)]
    diff = difference(groups, reference, today, COLUMNS)
    avg = diff.set_index("column").loc["average"]
    wins = bool(avg["ci_low"] > 0)
    per_seed = groups.pivot(index="seed", columns="recipe", values="average")[[today, reference]].reset_index()
    per_seed["difference"] = per_seed[reference] - per_seed[today]
    shown = pd.DataFrame({"group": diff["column"],
                          f"today ({today})": [cell(r.base_mean, r.base_std, digits=2) for r in diff.itertuples()],
                          f"the authors' ({reference})": [cell(r.arm_mean, r.arm_std, digits=2) for r in diff.itertuples()],
                          "authors' - today": [cell(r.difference, digits=2, sign=True) for r in diff.itertuples()],
                          "Welch 95 % interval": [f"{cell(r.ci_low, digits=2, sign=True)} to {cell(r.ci_high, digits=2, sign=True)}"
                                                  for r in diff.itertuples()],
                          "p": [cell(r.p, digits=3) for r in diff.itertuples()]})
    meta = pd.DataFrame(rows).drop_duplicates("composition").set_index("composition")
    train_s = pd.DataFrame(rows).groupby("composition")["train_s"].mean()
    label = "SMOKE: " if smoke else ""
    notes = [
        "Per seed, the five-group average:", Table(per_seed.round(3)),
        f"Each arm: {meta.loc[today, 'steps']} steps of {meta.loc[today, 'batch_size']} rows, "
        f"{meta.loc[today, 'hard_negatives']} hard negatives per anchor, the profile's view composition "
        f"(centre {meta.loc[today, 'centre']}, character weight {meta.loc[today, 'char_weight']}) on both arms, so the "
        "comparison is like for like. Today's batch draws "
        f"{meta.loc[today, 'anchors_per_step']} phrases a step and encodes "
        f"{(2 + meta.loc[today, 'hard_negatives']) * meta.loc[today, 'batch_size']} texts (the negatives without a copy); "
        f"the reference's draws {meta.loc[reference, 'anchors_per_step']} anchors whose negatives fill the other rows and "
        f"encodes {2 * meta.loc[reference, 'batch_size']} texts. Mean training time: "
        + ", ".join(f"{c} {train_s[c]:.0f} s" for c in (today, reference)) + " (each model's train_seconds, taken as the machine's load allowed: a record of the runs, "
        "not a speed comparison).",
        "Verdict: " + ("the interval of the average lies above 0: the reference's batches win beyond the seed noise "
                       "and become the default." if wins else
                       "the interval of the average lies below 0: the reference's batches lose beyond the seed noise, so "
                       "today's stay the default (TrainConfig.batch_composition)." if avg["ci_high"] < 0 else
                       "the interval of the average holds 0: the reference's batches do not win beyond the seed noise, "
                       "so today's stay the default (TrainConfig.batch_composition)."),
    ]
    md = Table(shown, head=(f"# {label}Batch composition: the PEARL authors' batches against today's "
                            f"(cpu profile, MiniLM, seeds {', '.join(map(str, seeds))}, sweep suite)\n\n"
                            "mean ± std over seeds; the authors' batches (reference) - today's with Welch's 95 % interval over the seeds "
                            "(pearl.experiments.tables.difference). Made by scripts/batch_composition.py."), notes=notes)
    csv = diff.rename(columns={"column": "group", **{f"{side}_{s}": f"{name}_{s}" for side, name in (("arm", reference), ("base", today))
                               for s in ("mean", "std")}})
    save_table(csv.round(4), NAME, markdown=md, smoke=smoke)
    Run(NAME, dict(SMOKE=smoke, seeds=seeds, size=sorted({r["size"] for r in rows}))).save(
        metrics={"gain_average": float(avg["difference"]), "ci_low": float(avg["ci_low"]), "ci_high": float(avg["ci_high"]),
                 "p": float(avg["p"]), "reference_wins": wins},
        difference=diff.to_dict("records"), runs=rows)
    print(render(md, "md"))


if __name__ == "__main__":
    main()
