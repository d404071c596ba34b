"""The view composition swept: the old fixed character weights against the rule that reads the backbone
(:mod:`pearl.training.composition`), per backbone, at step 0 and after training.

Usage::

    .venv/bin/python scripts/composition.py --backbone minilm          # one backbone (resumes)
    .venv/bin/python scripts/composition.py --backbone me5-small
    .venv/bin/python scripts/composition.py --summarise                 # the table and figure, from the lines
    PEARL_OUTPUT=/tmp/x .venv/bin/python scripts/composition.py --backbone minilm --size smoke

Per backbone, one cpu-profile training under the rule (seed 0, WikiText-2, ``TrainConfig``'s
``max_char_share`` and ``centre=None``) is read at two moments: step 0 (character encoder
distilled, backbone untouched) and trained (after weight averaging: the exported model). At each,
the raw phrase and character parts of every string are encoded once, and the embedding is joined
again at each row's composition:

- ``untrained``: the backbone's own vector (the phrase part, uncentred, no character part);
- ``fixed, centred (old)``: the recipe before the rule: always centred on the training vocabulary's
  mean, the character weight w as given (0.1, 0.25, 0.35, 0.5);
- ``rule``: the rule's centring and the weight w capped at ``max_char_share`` of the total variance
  on the training vocabulary (:func:`pearl.training.composition.compose`; the same w).

Each row is scored on CoNLL and BC5CDR (test mentions, the default lowest-inertia evaluator, with its
own noise) and on the development subset of ``scripts/tuning/tune_cpu_profile.py`` (``dev_avg``).
"Trained" rows at another weight re-join the one model trained under the rule: training at a fixed
weight of 0.35 or 0.5 would train another model (the rule caps both to the same scale, so under the
rule they are this model). The cap itself was chosen on the clustering sets' development splits
(``--choose``), never on the test mentions.

Each reading is one line of ``results/composition/sweep.jsonl`` (a rerun skips the moments it has);
``--summarise`` writes ``results/composition.{csv,md,tex}``, ``results/composition.json`` and
``figures/composition.{png,pdf}``.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent / "tuning"))
from tune_cpu_profile import DEV, dev_inputs  # noqa: E402  (the development subset, one definition)

NAME = "composition"
WEIGHTS = (0.1, 0.25, 0.35, 0.5)
MOMENTS = ("step 0", "trained")
SETS = ("bc5cdr", "conll")


def strings(inputs: dict, sets: dict, vocab: list[str]) -> list[str]:
    """Every string a row's scores may encode, each once: the training vocabulary, the clustering
    mentions and every string in the development tasks' arguments (a type label too: a few extra)."""
    def walk(x):
        if isinstance(x, str):
            yield x
        elif isinstance(x, (list, tuple, dict)):
            for y in (x.values() if isinstance(x, dict) else x):
                yield from walk(y)

    return list(dict.fromkeys([*vocab, *walk(list(sets.values())), *walk(inputs)]))


def parts(model, tokenizer, phrases: list[str], max_length: int) -> tuple[np.ndarray, np.ndarray]:
    """(raw pooled phrase vectors, raw character vectors) of ``phrases`` under ``model``."""
    return model.phrase_vectors(tokenizer, phrases, max_length), model.char_vectors(phrases)


def lookup_encoder(texts: list[str], vectors: np.ndarray, name: str):
    """An :class:`pearl.encode.Encoder` serving precomputed ``vectors`` of ``texts`` (a string it
    was not given is an error naming it: every string a task encodes is encoded up front)."""
    from pearl.encode import Encoder

    row = {t: i for i, t in enumerate(texts)}

    def fn(batch):
        missing = [t for t in batch if t not in row]
        if missing:
            raise KeyError(f"{len(missing)} strings were not encoded up front, e.g. {missing[:3]}")
        return vectors[[row[t] for t in batch]]

    return Encoder(name=name, dim=vectors.shape[1], fn=fn)


def phrase_only(moment: str) -> str:
    """The label of a moment's phrase part alone, uncentred: at step 0 the untrained backbone itself."""
    return "untrained" if moment == MOMENTS[0] else "phrase part alone (trained)"


def rows_for(moment_parts: dict, vocab: list[str], cfg, moment: str = MOMENTS[0]) -> list[dict]:
    """The compositions of one moment: (label, rule?, asked weight, centre vector or None, scale)."""
    from pearl.training.composition import compose

    row = {t: i for i, t in enumerate(moment_parts["texts"])}
    idx = [row[t] for t in vocab]
    p, c = moment_parts["phrase"][idx], moment_parts["chars"][idx]
    old_centre = p.astype(np.float64).mean(0)
    out = [{"recipe": phrase_only(moment), "rule": False, "weight": None, "scale": None, "centred": False, "centre": None}]
    for w in WEIGHTS:
        out.append({"recipe": "fixed, centred (old)", "rule": False, "weight": w, "scale": w, "centred": True,
                    "centre": old_centre})
    for w in WEIGHTS:
        comp, m = compose(p, c, w, cfg.max_char_share, None)
        out.append({"recipe": "rule", "rule": True, "weight": w, "scale": comp.char_scale, "centred": comp.centred,
                    "centre": m.astype(np.float64) if comp.centred else None, "composition": comp.record()})
    return out


def score_row(r: dict, moment_parts: dict, sets: dict, inputs: dict, cache: dict) -> dict:
    """One row's scores (re-using those of an identical composition already scored)."""
    from pearl.benchmark.tasks import TASKS
    from pearl.experiments.views import join

    key = (r["centred"], r["scale"])
    if key not in cache:
        chars = moment_parts["chars"] if r["scale"] is not None else None
        vectors = join(moment_parts["phrase"], chars, r["scale"] or 0.0, r["centre"]).astype(np.float32)
        enc = lookup_encoder(moment_parts["texts"], vectors, "composition")
        scores, noise = {}, {}
        for name in SETS:
            res = TASKS[name].evaluate(enc, mentions=sets[name])
            scores[name], noise[name] = res["score"], {k: res.get(k) for k in ("nmi_std", "nmi_near_best", "best_share")}
        for key_, args in inputs.items():
            task = DEV[key_]
            scores[f"dev/{key_}"] = scores[task] if task in SETS else TASKS[task].evaluate(enc, **args)["score"]
        if inputs:
            scores["dev_avg"] = float(np.mean([scores[f"dev/{k}"] for k in DEV]))
        cache[key] = (scores, noise)
    return {"scores": cache[key][0], "noise": cache[key][1]}


#: the caps tried on the clustering sets' development splits at step 0 (--choose)
CHOICE_SHARES = (0.01, 0.02, 0.03, 0.05, 0.08)
#: how far below the untrained backbone a cap may leave a development score: the bound the issue sets on
#: the evaluator's own seed agreement (0.3 NMI), so a cap within it costs nothing the evaluator can see
CHOICE_TOLERANCE = 0.3


def chosen_share(rows: list[dict]) -> float:
    """The cap the development splits choose (rows: ``--choose``'s lines, every backbone and set): the
    largest share of :data:`CHOICE_SHARES` at which no row scores more than :data:`CHOICE_TOLERANCE`
    below its untrained backbone; when none does, the smallest share (the least character part tried).
    The criterion was fixed before the development splits were scored.

    >>> rows = [{"untrained": 50.0, "share 0.01": 49.8, "share 0.02": 49.75, "share 0.03": 49.0,
    ...          "share 0.05": 51.0, "share 0.08": 3.0}]
    >>> chosen_share(rows)  # 0.05 passes alone, but a larger share is only chosen if every smaller one passes
    0.02
    >>> chosen_share([{**rows[0], "share 0.01": 49.0}])
    0.01
    """
    chosen = CHOICE_SHARES[0]
    for share in CHOICE_SHARES:
        if any(r[f"share {share}"] < r["untrained"] - CHOICE_TOLERANCE for r in rows):
            break
        chosen = share
    return chosen


def choose(backbone: str, seed: int, size: str, lines: Path, centre: bool | None = None) -> None:
    """Where the cap was chosen: at step 0 (the moment the issue found hardest), the rule's centring
    (``centre`` None; False: never centred, ``--no-centre``) and each share of :data:`CHOICE_SHARES`
    scored on the development splits of CoNLL and BC5CDR (``data.read_typed_mentions(name, "dev")``),
    beside the untrained backbone."""
    from pearl import data
    from pearl.benchmark.clustering import cluster_score
    from pearl.corpus.phrases import LABELS
    from pearl.experiments.views import join
    from pearl.provenance import append_jsonl, stamp
    from pearl.training.composition import cap_weight, compose
    from pearl.training.methods import inputs_for
    from pearl.training.model import training_vocab
    from pearl.training.profiles import config_for, load_training_data
    from pearl.training.train import train

    if lines.is_file() and any(json.loads(x)["backbone"] == backbone for x in lines.read_text().splitlines() if x.strip()):
        return
    from harness.scale import of_size

    scale = of_size(size)
    cfg, data_opts = config_for(scale.scaled("cpu"), backbone=backbone, seed=seed)  # pearl's "tiny" at SMOKE
    corpus, negs, tables = load_training_data(seed=seed, **data_opts, guard=scale.guard)
    corpus, augmenter = inputs_for(cfg, corpus, tables)
    vocab = training_vocab([p for p, _ in corpus], cfg.char_distill_vocab)
    start = train(cfg, corpus, negs, augmenter, labels=list(LABELS), progress=False, stop_at=0)
    vp, vc = parts(start.model, start.tokenizer, vocab, cfg.max_length)
    comp, centre = compose(vp, vc, cfg.char_weight, None, centre)
    for name in SETS:
        mentions = data.read_typed_mentions(name, "dev")
        p, c = parts(start.model, start.tokenizer, [m for m, _ in mentions], cfg.max_length)
        types = [t for _, t in mentions]
        row = {"untrained": cluster_score(join(p, None, 0.0), types)["score"]}
        for share in CHOICE_SHARES:
            scale = min(1.0, cap_weight(comp.var_phrase, comp.var_char, share))
            row[f"share {share}"] = cluster_score(join(p, c, scale, centre if comp.centred else None), types)["score"]
            row[f"scale at share {share}"] = scale
        append_jsonl(lines, {"backbone": backbone, "seed": seed, "size": size, "set": f"{name} dev", "moment": "step 0",
                             "centred": comp.centred, "resultant_length": comp.resultant_length, **row, **stamp()})
        print(backbone, name, {k: round(v, 2) for k, v in row.items()}, flush=True)


def run_backbone(backbone: str, seed: int, size: str, lines: Path, dev: bool = False) -> None:
    from pearl.benchmark.tasks import TASKS
    from pearl.corpus.phrases import LABELS
    from pearl.provenance import append_jsonl, stamp
    from pearl.training.methods import inputs_for
    from pearl.training.model import training_vocab
    from pearl.training.profiles import config_for, load_training_data
    from pearl.training.train import train

    done = {(r["backbone"], r["seed"], r["moment"]) for r in map(json.loads, lines.read_text().splitlines())} \
        if lines.is_file() else set()
    from harness.scale import of_size

    scale = of_size(size)
    cfg, data = config_for(scale.scaled("cpu"), backbone=backbone, seed=seed)  # pearl's "tiny" at SMOKE
    corpus, negs, tables = load_training_data(seed=seed, **data, guard=scale.guard)
    corpus, augmenter = inputs_for(cfg, corpus, tables)
    vocab = training_vocab([p for p, _ in corpus], cfg.char_distill_vocab)
    sets = {name: TASKS[name].load(scale.scaled(size))["mentions"] for name in SETS}
    inputs = dev_inputs(scale.scaled(size)) if dev else {}
    texts = strings(inputs, sets, vocab)
    for moment in MOMENTS:
        if (backbone, seed, moment) in done:
            continue
        t0 = time.perf_counter()
        result = train(cfg, corpus, negs, augmenter, labels=list(LABELS), progress=False,
                       stop_at=0 if moment == "step 0" else None)
        model, tok = result.model, result.tokenizer
        phrase, chars = parts(model, tok, texts, cfg.max_length)
        moment_parts = {"texts": texts, "phrase": phrase, "chars": chars}
        trained_s, t1, cache = round(time.perf_counter() - t0, 1), time.perf_counter(), {}
        for r in rows_for(moment_parts, vocab, cfg, moment):
            scored = score_row(r, moment_parts, sets, inputs, cache)
            row = {"backbone": backbone, "seed": seed, "size": size, "moment": moment,
                   **{k: v for k, v in r.items() if k != "centre"}, **scored,
                   "model_composition": model.composition.record() if model.composition else None,
                   "train_and_encode_s": trained_s, **stamp()}
            append_jsonl(lines, row)
            print(json.dumps({k: row[k] for k in ("backbone", "moment", "recipe", "weight", "scale", "centred")}),
                  {k: round(v, 2) for k, v in row["scores"].items()}, flush=True)
        print(f"{backbone} {moment}: trained and encoded in {trained_s} s, scored in "
              f"{time.perf_counter() - t1:.0f} s", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--backbone", choices=("minilm", "me5-small", "mlm-wiki"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--size", choices=("full", "smoke"), default="full")
    ap.add_argument("--threads", type=int, default=0)
    ap.add_argument("--dev", action="store_true", help="also score the development subset (dev_avg): its retrieval "
                    "dictionaries double the strings to encode")
    ap.add_argument("--choose", action="store_true", help="score the caps of CHOICE_SHARES on the development splits "
                    "at step 0 (results/composition/choice.jsonl): where max_char_share was chosen")
    ap.add_argument("--no-centre", action="store_true", help="with --choose: the phrase part never centred, whatever "
                    "the rule says (results/composition/choice_uncentred.jsonl)")
    ap.add_argument("--summarise", action="store_true")
    args = ap.parse_args()
    from harness.scale import for_script
    from pearl import paths

    for_script(args.size)  # a SMOKE run never writes into the repository
    if args.threads:
        torch.set_num_threads(args.threads)
    lines = paths.results_dir(NAME) / "sweep.jsonl"
    if args.summarise:
        return summarise(lines, smoke=args.size == "smoke")
    if not args.backbone:
        ap.error("name --backbone, or --summarise")
    if args.choose:
        if args.no_centre:
            return choose(args.backbone, args.seed, args.size, lines.with_name("choice_uncentred.jsonl"), centre=False)
        return choose(args.backbone, args.seed, args.size, lines.with_name("choice.jsonl"))
    run_backbone(args.backbone, args.seed, args.size, lines, args.dev)


def table(records: list[dict]):
    """One row per backbone x moment x recipe x weight: the scores, the untrained backbone's BC5CDR
    beside them and the difference (the acceptance's reading), the evaluator's own noise."""
    import pandas as pd

    out = []
    for r in records:
        # the reference of both moments: the untrained backbone (step 0's phrase part alone)
        base = next(x for x in records if x["backbone"] == r["backbone"] and x["moment"] == MOMENTS[0]
                    and x["recipe"] == "untrained")
        comp = r.get("composition") or {}
        recipe = phrase_only(r["moment"]) if r["recipe"] == "untrained" else r["recipe"]  # lines written before the label
        out.append({"backbone": r["backbone"], "moment": r["moment"], "recipe": recipe, "rule": r["rule"],
                    "weight": r["weight"], "scale": r["scale"], "centred": r["centred"],
                    "char share (training vocabulary)": comp.get("char_share"),
                    **{name: r["scores"][name] for name in SETS},
                    "dev_avg": r["scores"].get("dev_avg"),
                    "bc5cdr nmi_std": (r["noise"]["bc5cdr"] or {}).get("nmi_std"),
                    "bc5cdr untrained": base["scores"]["bc5cdr"],
                    "bc5cdr - untrained": r["scores"]["bc5cdr"] - base["scores"]["bc5cdr"],
                    "conll - untrained": r["scores"]["conll"] - base["scores"]["conll"]})
    return pd.DataFrame(out)


def figure(frame):
    """NMI against the character weight: the old fixed weight and the rule, per backbone and set,
    at step 0 and trained, the untrained backbone as a line."""
    import matplotlib.pyplot as plt

    backbones = list(dict.fromkeys(frame["backbone"]))
    fig, axes = plt.subplots(len(SETS), len(backbones), figsize=(4.2 * len(backbones), 6.4), squeeze=False)
    for j, backbone in enumerate(backbones):
        for i, name in enumerate(SETS):
            ax, sub = axes[i][j], frame[frame["backbone"] == backbone]
            for moment, style in zip(MOMENTS, ("--", "-")):
                at = sub[sub["moment"] == moment]
                for recipe, colour in (("fixed, centred (old)", "tab:red"), ("rule", "tab:blue")):
                    pts = at[at["recipe"] == recipe].sort_values("weight")
                    ax.plot(pts["weight"], pts[name], style, color=colour, marker="o", label=f"{recipe}, {moment}")
            untrained = sub[sub["recipe"] == "untrained"][name]
            if len(untrained):
                ax.axhline(float(untrained.iloc[0]), color="grey", lw=1, label="untrained backbone")
            ax.set_title(f"{backbone}: {name}")
            ax.set_xlabel("character weight setting w")
            ax.set_ylabel("NMI x100 (lowest-inertia KMeans)")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    return fig


def summarise(lines: Path, smoke: bool) -> None:
    from harness.record import Run
    from harness.outputs import save_figure, save_table
    from pearl.tabular import Table, render

    records = [json.loads(x) for x in lines.read_text().splitlines() if x.strip()]
    frame = table(records)
    rule_rows = [r for r in records if r["rule"]]
    run = Run(NAME, dict(SMOKE=smoke, seed=sorted({r["seed"] for r in records}), size=sorted({r["size"] for r in records}),
                         weights=list(WEIGHTS), max_char_share=sorted({r["composition"]["max_char_share"] for r in rule_rows})))
    label = "SMOKE: " if smoke else ""
    md = Table(frame.round(3), notes=[*notes(lines), *choice_notes(lines.with_name("choice.jsonl"))], head=(
        f"# {label}The view composition: fixed character weights against the rule (cpu recipe, seed 0, WikiText-2)\n\n"
        "Made by `scripts/composition.py`. NMI x100 of KMeans (k = #types) on the test mentions, by the default "
        "lowest-inertia evaluator (`pearl.benchmark.clustering`; `bc5cdr nmi_std`: its own bootstrap noise). "
        "`weight` is the setting w; `scale` the weight the character part is joined with. Recipes: `untrained`, the "
        "backbone's own vector (the reference of both moments' differences); `phrase part alone (trained)`, the "
        "trained model's phrase part, uncentred, without the character part; `fixed, centred (old)`, the recipe before the rule (always centred on the training "
        "vocabulary's mean, the scale = w); `rule` (`pearl.training.composition`): centred only when the mean "
        "resultant length of the unit phrase vectors on the training vocabulary exceeds 1/sqrt(2), and the scale = "
        "w capped where the character part holds `max_char_share` of the embedding's total variance on the training "
        "vocabulary (so every w at or above the cap gives the rule's own choice, the cap)."))
    save_table(frame, NAME, markdown=md, smoke=smoke)
    save_figure(figure(frame), NAME, smoke=smoke)
    below = frame[(frame["backbone"] == "me5-small") & (frame["rule"]) & (frame["bc5cdr - untrained"] < 0)]
    run.save(metrics={f"{r['backbone']}/{r['moment']}/{r['recipe']}/{r['weight']}/{name}": r[name]
                      for r in frame.to_dict("records") for name in SETS},
             rows=frame.to_dict("records"), me5_rule_rows_below_untrained_bc5cdr=len(below))
    print(render(md, "md"))


def notes(lines: Path) -> list:
    """The sweep table's notes: what the moments are, and the rule's own choice (the cap) per backbone."""
    records = [json.loads(x) for x in lines.read_text().splitlines() if x.strip()]
    cap = sorted({(r["backbone"], r["moment"], round(r["scale"], 4)) for r in records
                  if r["rule"] and r["weight"] == max(WEIGHTS)})
    return [
        "Step 0: the character encoder distilled, the backbone untouched. Trained: one cpu-profile training per "
        "backbone under the rule (seed 0, after weight averaging), re-joined at every row's composition: the old "
        "recipe trained at a fixed 0.35 or 0.5 would be another model (the committed `results/views_mechanism.md` "
        "and issue #69 measured the exported old model at those weights). `dev_avg` is "
        "the development subset of `scripts/tuning/tune_cpu_profile.py` when the run scored it (`--dev`).",
        f"The rule's scale at w = {max(WEIGHTS)} (the cap): " + "; ".join(f"{b} {m}: {c}" for b, m, c in cap) + "."]


def choice_notes(choice: Path) -> list:
    """The development splits' table of ``--choose`` (none when it has not run)."""
    import pandas as pd

    from pearl.tabular import Table

    if not choice.is_file():
        return []
    keep = ("backbone", "set", "moment", "centred", "untrained")
    rows = [json.loads(x) for x in choice.read_text().splitlines() if x.strip()]
    picked = pd.DataFrame([{k: v for k, v in r.items() if k in keep or k.startswith(("share", "scale"))} for r in rows])
    return ["## Where the cap was chosen: the development splits at step 0 (`--choose`)",
            "NMI x100 (lowest-inertia) of the joined embedding at each cap, with the rule's centring; "
            "`scale at share s`: the weight that cap gives.", Table(picked.round(3)),
            f"The criterion, fixed before these rows were scored: the largest share, trying them from the smallest, "
            f"at which no backbone's development score falls more than {CHOICE_TOLERANCE} NMI (the evaluator's "
            f"seed agreement) below its untrained backbone; when none passes, the smallest tried. It chooses "
            f"**{chosen_share(rows):g}** (`TrainConfig.max_char_share`).", *uncentred_notes(choice)]


def uncentred_notes(choice: Path) -> list:
    """``--choose --no-centre``'s rows beside the rule's (none when it has not run): the same splits and
    caps with the phrase part never centred, each as its difference from the untrained backbone. A
    diagnostic of what the centring costs at step 0; it chose nothing."""
    import pandas as pd

    from pearl.tabular import Table

    path = choice.with_name("choice_uncentred.jsonl")
    if not path.is_file():
        return []
    read = lambda f: {(r["backbone"], r["set"]): r for r in map(json.loads, f.read_text().splitlines())}  # noqa: E731
    rule, never = read(choice), read(path)
    rows = [{"backbone": b, "set": s, "untrained": r["untrained"],
             **{f"{how} {share}": x[f"share {share}"] - x["untrained"] for share in CHOICE_SHARES
                for how, x in (("rule", rule.get((b, s))), ("never", r)) if x}}
            for (b, s), r in never.items()]
    return ["### The same at step 0, the phrase part never centred (`--choose --no-centre`)",
            "Each cell is the joined embedding's development score minus the untrained backbone's, NMI x100: "
            "`rule s` with the rule's centring (the table above), `never s` with none, at cap s. A diagnostic of what "
            "the centring costs before training; the cap was chosen by the rule's rows alone.", Table(pd.DataFrame(rows).round(2))]


if __name__ == "__main__":
    main()
