"""When has the PPDB probe converged? Learning curves of the paraphrase probe, and the protocol chosen.

For MiniLM and PEARL seed 0 it encodes PPDB and PPDB-filtered once (the embedding cache), then
trains the probe many times on the same vectors with early stopping switched off, recording
validation accuracy, validation loss and test accuracy after every epoch:

- ``paper``: the paper's optimiser (raw concatenated embeddings, Adam lr 1e-4), Glorot init, probe
  seeds 0-2, to ``--paper-epochs`` for the first model on PPDB-filtered (the lesson curve) and to
  ``--paper-epochs-rest`` otherwise (enough to replay the paper's 100-epoch rule);
- ``converged``: standardised inputs and lr 1e-3, both initialisations (Glorot, torch's
  default), probe seeds 0-4, to ``--epochs``.

Training never depends on when it stops, so one curve gives the score of *every* stopping rule
(:func:`pearl.benchmark.probe.stopping_point` replays the rule on it): the rules are compared on
the same runs. Each rule is judged by the criteria of a score that belongs to the embeddings,
not to the probe's luck: std over 5 probe seeds <= 1.0 point; switching the initialisation moves
the mean by <= 1.0; the sign of PEARL - MiniLM is that of the convex cross-check, a logistic
regression on [u, v, |u-v|, u*v] (:func:`pearl.benchmark.probe.linear_probe`, C chosen on the
validation split). Then the library's protocols themselves (``PAPER_PROBE`` and the default
``ProbeConfig()``) score MiniLM, PEARL seed 0 and seed 1 (3 probe seeds, as Table 1): before and
after, with the probe's seconds per model.

    nice -n 5 .venv/bin/python perf/probe_convergence.py \\
        --models minilm /work/artifacts/models/pearl-minilm-seed0 --extra /work/artifacts/models/pearl-minilm-seed1

Writes ``--out`` (JSON), ``--curves`` (CSV, one row per model x dataset x setting x init x seed x
epoch) and ``--figure``.{png,pdf}. Finished blocks are kept in ``--scratch``, so an interrupted run
resumes where it stopped.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import time
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from pearl import data, models
from pearl.benchmark.probe import (PAPER_PROBE, ProbeConfig, linear_probe, pair_features, probe_scores,
                                   split_indices, stopping_point, train_probes)
from pearl.encode import encode
from pearl.atomic import write_atomic
from pearl.provenance import git_state, hardware, write_json

DATASETS = {"ppdb": False, "ppdb_filtered": True}
#: the optimisers whose curves are recorded (early stopping off: patience above the epoch cap)
#: (every field spelled out: they key the kept curves; max_epochs is replaced by the curve's length)
SETTINGS = {"paper": replace(PAPER_PROBE, patience=10**9),
            "converged": ProbeConfig(lr=1e-3, standardize=True, patience=10**9, max_epochs=100, init="glorot",
                                     stop_on="accuracy")}
#: stopping rules replayed on the curves: (setting, patience, max_epochs)
RULES = [("paper", 5, 100), ("paper", 20, 300)] + \
    [("converged", p, e) for p in (5, 10, 15, 20) for e in (20, 30, 40, 50)]
#: the criteria of a score that belongs to the embeddings; a rule must first stop by itself
#: (patience, not the epoch cap) in this share of runs at least: it has converged by its own test
CRITERIA = {"seed_std_max": 1.0, "init_shift_max": 1.0, "self_stopped_min": 0.95}


def features(model_name: str) -> dict:
    """Per dataset: the probe's input (concatenated embeddings), the pair vectors and the labels."""
    model = models.load_model(model_name)
    out = {}
    for dataset, filtered in DATASETS.items():
        pairs = data.read_ppdb(filtered)
        left, right = encode(model, [p[0] for p in pairs]), encode(model, [p[1] for p in pairs])
        out[dataset] = {"left": left, "right": right, "labels": np.array([p[2] for p in pairs])}
    return out


def cached_json(scratch: Path, key: dict, compute, *args):
    """``compute(*args)``, kept in ``scratch`` under a hash of ``key`` (resume after an interruption)."""
    path = scratch / (hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:16] + ".json")
    if path.is_file():
        return json.loads(path.read_text())["value"]
    start = time.perf_counter()
    value = compute(*args)
    write_json(path, {"key": key, "seconds": round(time.perf_counter() - start, 1), "value": value})
    return value


def curves(feats: dict, config: ProbeConfig, seeds, epochs: int) -> list[dict]:
    """One curve per probe seed: per epoch validation accuracy and loss, test accuracy."""
    x = pair_features(feats["left"], feats["right"])
    split = split_indices(len(x), 0, config.split)
    runs = train_probes(x, feats["labels"], split, seeds, replace(config, max_epochs=epochs), history=True)
    return [{"seed": r["seed"], **{k: [round(e[k], 4) for e in r["curve"]] for k in ("val_accuracy", "val_loss",
                                                                                       "test_accuracy")}}
            for r in runs]


def replay(block: list[dict], patience: int, max_epochs: int) -> dict:
    """The score each seed would get under early stopping (patience, max_epochs), and their mean ± std."""
    if max_epochs > len(block[0]["val_accuracy"]):
        raise ValueError(f"curves stop at epoch {len(block[0]['val_accuracy'])}; cannot replay max_epochs={max_epochs}")
    runs = [stopping_point(c["val_accuracy"], c["test_accuracy"], patience, max_epochs) for c in block]
    acc = np.array([r["test_accuracy"] for r in runs])
    return {"mean": float(acc.mean()), "std": float(acc.std(ddof=1)) if len(acc) > 1 else 0.0,
            "per_seed": acc.round(2).tolist(), "best_epochs": [r["best_epoch"] for r in runs],
            "epochs": [r["epochs"] for r in runs],
            "self_stopped": [r["epochs"] - r["best_epoch"] >= patience for r in runs]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", nargs=2, default=["minilm", "pearl-minilm-seed0"],
                    help="the backbone and the PEARL model compared (alias or folder)")
    ap.add_argument("--extra", nargs="*", default=["pearl-minilm-seed1"],
                    help="further models scored only before/after (old vs new protocol)")
    ap.add_argument("--epochs", type=int, default=50, help="epochs of the 'converged' curves")
    ap.add_argument("--paper-epochs", type=int, default=300,
                    help="epochs of the first model's 'paper' curves on PPDB-filtered")
    ap.add_argument("--paper-epochs-rest", type=int, default=100, help="epochs of every other 'paper' curve")
    ap.add_argument("--out", default="results/perf/probe_convergence.json")
    ap.add_argument("--curves", default="results/perf/probe_convergence_curves.csv")
    ap.add_argument("--figure", default="figures/probe_convergence")
    ap.add_argument("--scratch", default="data/derived/probe_convergence")
    ap.add_argument("--stage", choices=("curves", "all"), default="all",
                    help="'curves': record the curves and stop (size the run before choosing)")
    args = ap.parse_args()
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    start, load_start = time.perf_counter(), os.getloadavg()
    log = lambda msg: print(f"[{time.perf_counter() - start:7.1f} s] {msg}", flush=True)

    blocks, feats = {}, {}
    for name in args.models:
        feats[short(name)] = features(name)
        log(f"encoded {name}")
        for dataset in DATASETS:
            lesson = dataset == "ppdb_filtered" and name == args.models[0]
            plan = [("paper", "glorot", (0, 1, 2), args.paper_epochs if lesson else args.paper_epochs_rest)] + [("converged", init, (0, 1, 2, 3, 4), args.epochs)
                                                 for init in ("glorot", "torch")]
            for setting, init, seeds, epochs in plan:
                config = replace(SETTINGS[setting], init=init)
                key = {"model": name, "dataset": dataset, "config": asdict(config), "seeds": seeds, "epochs": epochs}
                blocks[short(name), dataset, setting, init] = cached_json(
                    scratch, key, curves, feats[short(name)][dataset], config, seeds, epochs)
                log(f"{name} {dataset} {setting} {init}: {epochs} epochs x {len(seeds)} seeds")
    if args.stage == "curves":
        return
    names = [short(n) for n in args.models]
    record = {"models": names, "extra_models": [short(n) for n in args.extra], "paths": [*args.models, *args.extra], "settings": {k: asdict(v) for k, v in SETTINGS.items()},
              "criteria": CRITERIA, "rules": {}, "hardware": hardware(), "git": git_state()}
    # ------------------------------------------------------------------ the convex cross-check
    for name in args.extra:
        feats[short(name)] = features(name)
        log(f"encoded {name}")
    record["linear"] = {name: {dataset: cached_json(scratch, {"linear": name, "dataset": dataset, "v": 1}, linear_probe,
                                                    f["left"], f["right"], f["labels"], split_indices(len(f["labels"])))
                               for dataset, f in feats[name].items()} for name in feats}
    log("logistic regression done")
    # ------------------------------------------------------------------ every rule on the same curves
    for setting, patience, max_epochs in RULES:
        rule = f"{setting}: patience {patience}, at most {max_epochs} epochs"
        out = {}
        for (name, dataset, s, init), block in blocks.items():
            if s == setting and max_epochs <= len(block[0]["val_accuracy"]):
                out.setdefault(name, {}).setdefault(dataset, {})[init] = replay(block, patience, max_epochs)
        record["rules"][rule] = {"setting": setting, "patience": patience, "max_epochs": max_epochs, "scores": out,
                                 "criteria": judge(out, record["linear"], names)}
    chosen = choose(record["rules"])
    record["chosen_rule"] = chosen
    log(f"chosen: {chosen}")
    # ------------------------------------------------------------------ the library's protocols, before and after
    default, record["library_default"] = ProbeConfig(), asdict(ProbeConfig())
    rule = record["rules"][chosen]
    record["library_default_is_chosen"] = asdict(replace(default, patience=10**9, max_epochs=100)) == \
        asdict(SETTINGS["converged"]) and (default.patience, default.max_epochs) == (rule["patience"], rule["max_epochs"])
    protocols = {"before": (PAPER_PROBE, (0, 1, 2)), "after": (default, (0, 1, 2)), "sweep": (default, (0,))}
    record["before_after"] = {}
    for name in feats:
        row = {}
        for dataset, f in feats[name].items():
            row[dataset] = {}
            for tag, (config, seeds) in protocols.items():
                setting = "paper" if config == PAPER_PROBE else "converged"
                if (name, dataset, setting, "glorot") in blocks:  # the same training, replayed: no new run
                    got = replay([c for c in blocks[name, dataset, setting, "glorot"] if c["seed"] in seeds],
                                 config.patience, config.max_epochs)
                    row[dataset][tag] = {"score": got["mean"], "std": got["std"], "per_seed": got["per_seed"],
                                         "epochs": got["epochs"], "source": "replayed on the recorded curves"}
                if (name, dataset, setting, "glorot") not in blocks or (tag == "after" and name == names[0]):
                    key = {"protocol": name, "dataset": dataset, "config": asdict(config), "seeds": seeds}
                    got = cached_json(scratch, key, timed, probe_scores, f["left"], f["right"], f["labels"],
                                      seeds, 0, config)
                    direct = {"score": got["score"], "std": got["std"], "seconds": got["seconds"], "per_seed": [
                        round(x["test_accuracy"], 2) for x in got["runs"]], "epochs": [x["epochs"] for x in got["runs"]],
                        "source": "pearl.benchmark.probe.probe_scores, run here"}
                    row[dataset][tag if tag not in row[dataset] else f"{tag}_run"] = direct
        record["before_after"][name] = row
        log(f"{name}: before/after scored")
    record["paraphrase_group"] = group_change(record["before_after"], names[0])
    record["summary"] = summary(record)
    record["seconds"] = round(time.perf_counter() - start, 1)
    record["load_average"] = {"start": load_start, "end": os.getloadavg()}
    write_json(args.out, record)
    write_curves(args.curves, blocks)
    figure(args.figure, blocks, record)
    log(f"wrote {args.out}, {args.curves}, {args.figure}.png/.pdf")


def short(name: str) -> str:
    """A model's key in the results: its folder's name, or the alias."""
    return Path(name).name if Path(name).is_dir() else name


def timed(fn, *args) -> dict:
    start = time.perf_counter()
    out = fn(*args)
    return {**out, "seconds": round(time.perf_counter() - start, 2)}


def judge(scores: dict, linear: dict, pair: list[str]) -> dict:
    """The three criteria, per model and data set where measured: seed std, init shift, ordering."""
    out = {"seed_std": {}, "init_shift": {}, "ordering": {}}
    for name, per in scores.items():
        for dataset, by_init in per.items():
            out["seed_std"][f"{name}/{dataset}"] = {i: round(r["std"], 2) for i, r in by_init.items()}
            if {"glorot", "torch"} <= set(by_init):
                out["init_shift"][f"{name}/{dataset}"] = round(by_init["torch"]["mean"] - by_init["glorot"]["mean"], 2)
    base, other = pair
    if base in scores and other in scores:
        both = [d for d in DATASETS if d in scores[base] and d in scores[other]]
        for dataset in both:
            mlp = scores[other][dataset]["glorot"]["mean"] - scores[base][dataset]["glorot"]["mean"]
            lin = linear[other][dataset]["score"] - linear[base][dataset]["score"]
            # two binomial standard errors of a difference of two test accuracies: below, a tie
            p, n = linear[base][dataset]["score"] / 100, linear[base][dataset]["n_test"]
            noise = 200 * (2 * p * (1 - p) / n) ** 0.5
            out["ordering"][dataset] = {"mlp": round(mlp, 2), "logistic_regression": round(lin, 2),
                                        "same_sign": bool(np.sign(mlp) == np.sign(lin)),
                                        "logistic_regression_within_noise": bool(abs(lin) < noise),
                                        "noise_2se": round(noise, 2)}
    if len(out["ordering"]) == len(DATASETS):
        mlp = np.mean([out["ordering"][d]["mlp"] for d in DATASETS])
        lin = np.mean([out["ordering"][d]["logistic_regression"] for d in DATASETS])
        out["ordering"]["paraphrase_group"] = {"mlp": round(float(mlp), 2), "logistic_regression": round(float(lin), 2),
                                               "same_sign": bool(np.sign(mlp) == np.sign(lin))}
    stds = [v for d in out["seed_std"].values() for v in d.values()]
    shifts = [abs(v) for v in out["init_shift"].values()]
    stopped = [x for per in scores.values() for d in per.values() for i in d.values() for x in i["self_stopped"]]
    out["self_stopped_share"] = round(float(np.mean(stopped)), 3)
    # the sign only counts where the convex probe tells the two models apart
    signs = [v["same_sign"] for v in out["ordering"].values() if not v.get("logistic_regression_within_noise")]
    out["pass"] = {"seed_std": bool(stds) and max(stds) <= CRITERIA["seed_std_max"],
                   "init_shift": max(shifts) <= CRITERIA["init_shift_max"] if shifts else None,
                   "ordering": all(signs) if signs else None}
    out["max_seed_std"] = round(max(stds), 2) if stds else None
    out["max_init_shift"] = round(max(shifts), 2) if shifts else None
    return out


def choose(rules: dict) -> str:
    """Among the 'converged' rules that stop by themselves (patience, not the cap) in at least
    ``self_stopped_min`` of the runs, the one meeting most criteria; then the smallest sum of the
    worst seed std and the worst init shift; then the fewest epochs (the probe's cost)."""
    def epochs(r):
        return np.mean([e for per in r["scores"].values() for d in per.values() for i in d.values() for e in i["epochs"]])

    def key(name):
        c = rules[name]["criteria"]
        return (-sum(bool(v) for v in c["pass"].values()), c["max_seed_std"] + c["max_init_shift"], epochs(rules[name]))
    candidates = [k for k, r in rules.items() if r["setting"] == "converged"
                  and r["criteria"]["self_stopped_share"] >= CRITERIA["self_stopped_min"]]
    if not candidates:
        raise SystemExit("no 'converged' rule stops by itself: record longer curves (--epochs)")
    return min(candidates, key=key)


def summary(record: dict) -> dict:
    """The numbers a reader needs: the rule chosen, its criteria, how every converged rule fares on
    the init criterion, the probe's seconds per model (direct runs), replay against a direct run."""
    chosen = record["rules"][record["chosen_rule"]]
    converged = {k: r["criteria"] for k, r in record["rules"].items() if r["setting"] == "converged"}
    seconds = {}
    for name, row in record["before_after"].items():
        for tag in ("before", "after", "after_run", "sweep"):
            if all("seconds" in row[d].get(tag, {}) for d in DATASETS):
                seconds.setdefault(name, {})[tag.replace("_run", "")] = round(sum(row[d][tag]["seconds"] for d in DATASETS), 1)
    check = {f"{name}/{d}": {"replayed": r[d]["after"]["score"], "run": r[d]["after_run"]["score"]}
             for name, r in record["before_after"].items() for d in DATASETS if "after_run" in r[d]}
    return {"chosen_rule": record["chosen_rule"], "chosen_passes": chosen["criteria"]["pass"],
            "chosen_max_seed_std": chosen["criteria"]["max_seed_std"],
            "chosen_init_shift": chosen["criteria"]["init_shift"],
            "rules_passing_every_criterion": [k for k, c in converged.items() if all(c["pass"].values())],
            "smallest_worst_init_shift_of_any_converged_rule": min(c["max_init_shift"] for c in converged.values()),
            "probe_seconds_per_model_both_sets": seconds,
            "replayed_vs_run_after": check}


def group_change(before_after: dict, backbone: str) -> dict:
    """Per model the paraphrase group (mean of PPDB and PPDB-filtered), before and after, and PEARL −
    backbone for each PEARL model and their mean."""
    tags = ("before", "after", "sweep")
    group = {name: {tag: float(np.mean([row[d][tag]["score"] for d in DATASETS])) for tag in tags}
             for name, row in before_after.items()}
    deltas = {name: {tag: round(group[name][tag] - group[backbone][tag], 2) for tag in tags}
              for name in group if name != backbone}
    mean = {tag: round(float(np.mean([d[tag] for d in deltas.values()])), 2) for tag in tags}
    return {"group_score": {n: {t: round(v, 2) for t, v in g.items()} for n, g in group.items()},
            "pearl_minus_backbone": deltas, "pearl_minus_backbone_mean_over_pearl_seeds": mean}


def write_curves(path: str, blocks: dict) -> None:
    lines = ["model,dataset,setting,init,seed,epoch,val_accuracy,val_loss,test_accuracy"]
    for (name, dataset, setting, init), block in blocks.items():
        for c in block:
            for e, (va, vl, te) in enumerate(zip(c["val_accuracy"], c["val_loss"], c["test_accuracy"]), 1):
                lines.append(f"{name},{dataset},{setting},{init},{c['seed']},{e},{va},{vl},{te}")
    write_atomic(path, "\n".join(lines) + "\n")


def figure(stem: str, blocks: dict, record: dict) -> None:
    import io

    import matplotlib
    matplotlib.use("Agg")
    from pearl.display.probe_curves import plot_probe_curves

    chosen = record["rules"][record["chosen_rule"]]
    stops = {}
    for (name, dataset, setting, init), block in blocks.items():
        patience, max_epochs, text, marker = (5, 100, "the paper's rule (patience 5)", "X") if setting == "paper" else \
            (chosen["patience"], chosen["max_epochs"], f"the chosen rule (patience {chosen['patience']}, "
             f"at most {chosen['max_epochs']} epochs)", "o")
        stops[name, dataset, setting, init] = [{**stopping_point(c["val_accuracy"], c["test_accuracy"], patience,
                                                                  max_epochs), "rule": text, "marker": marker}
                                               for c in block]
    linear = {(n, d): r["score"] for n, per in record["linear"].items() for d, r in per.items() if n in record["models"]}
    fig = plot_probe_curves(blocks, stops, linear, {n: models.label(n) for n in record["models"]})
    for ext in ("png", "pdf"):
        buf = io.BytesIO()
        fig.savefig(buf, format=ext, dpi=150 if ext == "png" else None, bbox_inches="tight")
        write_atomic(f"{stem}.{ext}", buf.getvalue())


if __name__ == "__main__":
    main()
