"""Why PEARL on me5-small lost BC5CDR clustering, and the centring that keeps it: both joins,
both backbones, at three moments of one training, and the choice on the development subset.

Usage::

    .venv/bin/python scripts/views_mechanism.py --backbone minilm            # one backbone (resumes)
    .venv/bin/python scripts/views_mechanism.py --backbone me5-small
    .venv/bin/python scripts/views_mechanism.py --summarise                  # the tables, from the lines
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/views_mechanism.py --backbone minilm --size smoke

For each backbone and each join (``centre`` False: the phrase part only normalised, the old
recipe; True: centred on the training vocabulary's mean first, :mod:`pearl.training.model`), one
cpu-profile training (seed 0, WikiText-2) is read at three moments: step 0 (character encoder
distilled, backbone untouched), the last step before weight averaging, and after averaging (the
exported model). At each, :func:`pearl.experiments.views.view_report` measures each view's
variance share and the clustering NMI of each view and of the joined embedding on CoNLL and
BC5CDR, for the uncentred and the centred join of the same vectors; at step 0 of the old recipe
:func:`pearl.experiments.views.split_surface` says what BC5CDR's 2-means split follows. The
averaged models, and each untrained backbone, are then scored on the development subset of
``scripts/tuning/tune_cpu_profile.py`` (never a test set of Table 1 alone); me5-small's new
model also with its tokenizer lower-casing its input, as the paper's E5 models do.

Each measurement is one line of ``results/views/mechanism.jsonl`` (a rerun skips the lines it has);
``--summarise`` writes ``results/views_mechanism.{csv,md,tex}`` and ``results/views_mechanism.json``.
"""
from __future__ import annotations

import argparse
import copy
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent / "tuning"))
from tune_cpu_profile import DEV, dev_inputs, dev_scores  # noqa: E402  (the development subset, one definition)

NAME = "views_mechanism"
MOMENTS = ("step 0", "trained, before averaging", "after averaging")


def lowercasing(tokenizer):
    """A copy of a fast tokenizer that lower-cases its input first (the paper's E5 tokenizers do)."""
    from tokenizers import normalizers

    tok = copy.deepcopy(tokenizer)
    old = tok.backend_tokenizer.normalizer
    tok.backend_tokenizer.normalizer = normalizers.Sequence([normalizers.Lowercase()] + ([old] if old else []))
    return tok


def parts(model, tokenizer, phrases: list[str], max_length: int):
    """(raw pooled phrase vectors, raw character vectors) of ``phrases`` under ``model``."""
    from pearl.training.char_encoder import char_ids

    model.eval()  # the character encoder's dropout off, as when the model encodes
    with torch.no_grad():
        chars = torch.cat([model.char_encoder(char_ids(phrases[i:i + 512])) for i in range(0, len(phrases), 512)]).numpy()
    return model.phrase_vectors(tokenizer, phrases, max_length), chars


def measure(model, tokenizer, sets: dict, cfg) -> dict:
    from pearl.experiments.views import join, nmi, split_surface, view_report

    out = {}
    centre = model.phrase_centre.numpy().astype(np.float64)
    trained_centre = bool(centre.any())  # an old-recipe model has none: its centred join uses the set's own mean
    for name, mentions in sets.items():
        phrases, labels = [m for m, _ in mentions], [t for _, t in mentions]
        p, c = parts(model, tokenizer, phrases, cfg.max_length)
        out[name] = {"uncentred": view_report(p, c, cfg.char_weight, labels),
                     "centred": view_report(p, c, cfg.char_weight, labels, centre=centre if trained_centre else p.mean(0)),
                     "centre_from": "training vocabulary" if trained_centre else "this set's mentions"}
        _, clusters = nmi(join(p, c, cfg.char_weight), labels)
        out[name]["uncentred_split"] = split_surface(phrases, clusters)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backbone", choices=("minilm", "me5-small"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", choices=("full", "smoke"), default="full")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--joins", choices=("both", "centred"), default="both",
                    help="centred: train the new recipe only (the extra seeds of the BC5CDR check)")
    ap.add_argument("--no-dev", action="store_true", help="skip the development-subset scores (the extra seeds)")
    ap.add_argument("--corpus", default="", help="a named corpus of pearl.corpus.variants (e.g. wikipedia-1x; "
                    "default: the data notebooks' WikiText-2)")
    ap.add_argument("--summarise", action="store_true")
    args = ap.parse_args()
    from harness.scale import for_script
    from pearl import paths

    for_script(args.size)  # a SMOKE run never writes into the repository
    if args.threads:
        torch.set_num_threads(args.threads)
    lines = paths.results_dir("views") / "mechanism.jsonl"
    if args.summarise:
        return summarise(lines, smoke=args.size == "smoke")
    if not args.backbone:
        ap.error("name --backbone, or --summarise")
    run_backbone(args.backbone, args.seed, args.size, lines, (True,) if args.joins == "centred" else (False, True),
                 dev=not args.no_dev, corpus=args.corpus)


def run_backbone(backbone: str, seed: int, size: str, lines: Path, joins=(False, True), dev: bool = True,
                 corpus: str = "") -> None:
    from pearl.benchmark.tasks import TASKS
    from pearl.corpus.phrases import LABELS
    from pearl.models import load_backbone, load_model
    from pearl.provenance import append_jsonl, stamp
    from pearl.training.methods import inputs_for
    from pearl.training.model import average_and_centre
    from pearl.training.profiles import config_for, load_training_data
    from pearl.training.train import train

    done = {(r["backbone"], r.get("corpus", ""), r.get("seed", 0), r.get("centre"), r["what"])
            for r in map(json.loads, lines.read_text().splitlines())} if lines.is_file() else set()
    from harness.scale import of_size

    scale = of_size(size)
    profile = scale.scaled("cpu")  # pearl's "tiny" in a SMOKE run, as the task size below
    sets = {name: TASKS[name].load(scale.scaled(size))["mentions"] for name in ("conll", "bc5cdr")}
    inputs = dev_inputs(scale.scaled(size))

    def record(row):
        row = {"backbone": backbone, "corpus": corpus, "seed": seed, "size": size, **row, **stamp()}
        append_jsonl(lines, row)
        print(json.dumps({k: v for k, v in row.items() if k not in ("views",)})[:400], flush=True)

    if dev and (backbone, corpus, seed, None, "untrained dev") not in done:
        t0 = time.perf_counter()
        record({"centre": None, "what": "untrained dev", **dev_scores(load_model(backbone), inputs),
                "eval_s": round(time.perf_counter() - t0, 1)})
    for centre in joins:
        if (backbone, corpus, seed, centre, "dev" if dev else "views") in done:
            continue
        # the two joins as they were measured: the weight fixed, no cap (scripts/composition.py sweeps the rule)
        cfg, data = config_for(profile, backbone=backbone, seed=seed, centre=centre, max_char_share=None, average=1.0)
        if corpus:  # built on first use (pearl.corpus.variants.prepare reuses a finished build)
            from pearl.corpus import variants

            variants.prepare(corpus)
            data = {**data, "corpus": corpus}
        corpus, negs, tables = load_training_data(seed=seed, **data, guard=scale.guard)
        corpus, augmenter = inputs_for(cfg, corpus, tables)
        start = train(cfg, corpus, negs, augmenter, labels=list(LABELS), stop_at=0, progress=False)
        views = {MOMENTS[0]: measure(start.model, start.tokenizer, sets, cfg)}
        result = train(cfg, corpus, negs, augmenter, labels=list(LABELS), progress=False)  # average 1.0: none yet
        model, tok = result.model, result.tokenizer
        views[MOMENTS[1]] = measure(model, tok, sets, cfg)
        # the recipe's averaging (TrainConfig's default 0.5; training ran with 1.0 to stop before it)
        average_and_centre(model, tok, load_backbone(backbone)[0].state_dict(), [p for p, _ in corpus], cfg, 0.5)
        views[MOMENTS[2]] = measure(model, tok, sets, cfg)
        record({"centre": centre, "what": "views", "train_s": round(result.seconds, 1), "views": views})
        if not dev:
            continue
        t0 = time.perf_counter()
        record({"centre": centre, "what": "dev", **dev_scores(model.as_encoder(tok, cfg.max_length, name="dev"), inputs),
                "eval_s": round(time.perf_counter() - t0, 1)})
        if centre and backbone == "me5-small" and (backbone, corpus, seed, True, "dev lower-cased") not in done:
            t0 = time.perf_counter()
            record({"centre": True, "what": "dev lower-cased",
                    **dev_scores(model.as_encoder(lowercasing(tok), cfg.max_length, name="dev-lower"), inputs),
                    "eval_s": round(time.perf_counter() - t0, 1)})


def summarise(lines: Path, smoke: bool) -> None:
    import pandas as pd

    from harness.outputs import save_table
    from harness.record import Run
    from pearl.tabular import Table, render

    rows = [json.loads(x) for x in lines.read_text().splitlines()]
    view_rows, dev_rows = [], []
    for r in rows:
        if r["what"] == "views":
            for moment, sets in r["views"].items():
                for name, v in sets.items():
                    for join_name in ("uncentred", "centred"):
                        rep = v[join_name]
                        view_rows.append({"backbone": r["backbone"], "corpus": r.get("corpus") or "wikitext2",
                                          "seed": r.get("seed", 0), "trained with": "centred" if r["centre"] else "uncentred (old)",
                                          "moment": moment, "set": name, "join": join_name,
                                          "NMI embedding": rep["nmi_embedding"], "NMI phrase part": rep["nmi_phrase"],
                                          "NMI character part": rep["nmi_char"], "var phrase": rep["var_phrase"],
                                          "var char": rep["var_char"], "char share of variance": rep["char_share"]})
        else:
            dev_rows.append({"backbone": r["backbone"], "model": {None: "untrained", False: "PEARL, uncentred (old)",
                                                                  True: "PEARL, centred"}[r["centre"]]
                             + (", lower-cased input" if r["what"] == "dev lower-cased" else ""),
                             **{k: r[k] for k in (*DEV, "dev_avg")}})
    views, dev = pd.DataFrame(view_rows), pd.DataFrame(dev_rows)
    seeds = seed_check(views)
    views = views[(views["seed"] == 0) & (views["corpus"] == "wikitext2")].drop(columns=["seed", "corpus"])
    splits = [{"backbone": r["backbone"], **s} for r in rows if r["what"] == "views" and r["centre"] is False
              for s in r["views"][MOMENTS[0]]["bc5cdr"]["uncentred_split"]]
    run = Run(NAME, dict(SMOKE=smoke, seed=sorted({r["seed"] for r in rows}), size=sorted({r["size"] for r in rows})))
    label = "SMOKE: " if smoke else ""
    md = Table(views.round(3), head=(
        f"# {label}The two views of the PEARL embedding (cpu recipe, seed 0, WikiText-2)\n\n"
        "NMI x100 of KMeans (k = #types) on L2-normalised vectors; variances are total variances of each part "
        "as it enters the embedding (the character part with its weight)."), notes=[
        "## BC5CDR's 2-means split at step 0 of the old recipe (uncentred join)", Table(pd.DataFrame(splits).round(3)),
        "## Development subset (choice of the join)", Table(dev.round(2)),
        "## The exported model over seeds: centred recipe, after weight averaging, against the untrained backbone",
        "NMI x100 of the joined embedding (centred join); the untrained backbone is its phrase part at step 0 "
        "(one number: the backbone is untouched before step 1 and KMeans is seeded); 95 % t interval of the "
        "difference; within the seed noise when the interval holds 0.", Table(seeds.round(2))])
    save_table(views, NAME, markdown=md, smoke=smoke)
    run.save(metrics={f"{d['backbone']}/{d['model']}": d["dev_avg"] for d in dev_rows},
             views=view_rows, dev=dev_rows, bc5cdr_split_step0=splits, seeds=seeds.to_dict("records"))
    print(render(md, "md"))


def seed_check(views):
    """Per backbone and set: the centred recipe's exported embedding over seeds against the untrained
    backbone (mean, std, the difference's 95 % interval and p, :func:`pearl.claims.rule.one_sample`)."""
    import pandas as pd

    from pearl.claims.rule import one_sample

    mine = views[(views["trained with"] == "centred") & (views["join"] == "centred")]
    base = views[(views["moment"] == MOMENTS[0]) & (views["join"] == "uncentred")]
    rows = []
    for (backbone, corpus, name), sub in mine[mine["moment"] == MOMENTS[2]].groupby(["backbone", "corpus", "set"],
                                                                                    sort=False):
        untrained = float(base[(base["backbone"] == backbone) & (base["set"] == name)]["NMI phrase part"].iloc[0])
        x = sub.sort_values("seed")["NMI embedding"].to_numpy(float)
        # one seed has no spread to test against: its row says the difference and no interval
        st = one_sample(x, untrained) if len(x) > 1 else {"std": None, "ours": float(x.mean() - untrained),
                                                           "ci_low": None, "ci_high": None, "p": None}
        rows.append({"backbone": backbone, "corpus": corpus, "set": name, "seeds": len(x), "untrained": untrained, "mean": x.mean(),
                     "std": st["std"], "difference": st["ours"], "ci_low": st["ci_low"], "ci_high": st["ci_high"],
                     "p": st["p"], "within noise or above": bool(st["ci_high"] >= 0) if len(x) > 1 else None})
    return pd.DataFrame(rows)


if __name__ == "__main__":
    main()
