"""The report's first screen: the central gain per backbone and budget beside the paper's value (a
small table), the `gpu` profile's seeds on today's recipe, its run at full size beside the budget
curve's projection for that budget, and the budget curve in one short sentence per series. Every
number is read from a results file: ``results/claims.csv`` (the cpu rows of the ledger),
``results/gpu/`` (the lent GPU's seeds and its MiniLM row, ``scripts/device/seeds.sh``; the full-size
run, ``scripts/device/full_size.sh``), ``results/budget_curve.json`` (views per budget, the fits and
the paper's budget). Returns ``{key: sentence}``.

What it leaves out: the ledger's own lines (:mod:`.ledger_lines`) and the budget curve's long
sentences (:mod:`.mechanism`).
"""
from __future__ import annotations

import json

import pandas as pd

from ..committed import group_gains
from .common import exists, num, read_json, results, strict
from .ledger_lines import ledger

#: the `gpu` profile's seeds under the composition rule, and the file holding MiniLM's row scored beside them
GPU_SEEDS, GPU_REFERENCE = "gpu/gpu_profile_rule", "gpu/gpu_profile_seeds/table1.json"
#: the `gpu` profile at its full size, one seed or more: the files ``scripts/device/full_size.sh`` brought back, a
#: ``provenance.json`` beside them (its ``reference``: MiniLM's Table 1 file when the run scored none)
FULL_SIZE = "gpu/full_size"
TODAY = "rule"  # the budget curve's series on today's recipe end in this word (``cpu, rule``)


def gpu_gain() -> dict:
    """The `gpu` profile's seeds on today's recipe against MiniLM, on Table 1's nine-dataset average:
    the one-sample t over the seeds against MiniLM's row scored once (an exact number: the ledger's
    test), with the seeds' training steps and batch and the device's commit."""
    from pearl.claims.rule import one_sample

    folder = results() / GPU_SEEDS
    rows = pd.concat([pd.DataFrame(json.loads(f.read_text())["rows"]) for f in sorted(folder.glob("table1_*.json"))])
    seeds = rows.pivot(index="model", columns="dataset", values="score").mean(axis=1)
    ref = pd.DataFrame(read_json(GPU_REFERENCE)["rows"]).query("model == 'minilm'")
    test = one_sample(seeds.to_numpy(float), float(ref["score"].mean()))
    configs = [json.loads(f.read_text()) for f in sorted(folder.glob("gpu_profile_seed*_pearl.json"))]
    train = [c["train_config"] for c in configs]
    prov = json.loads((folder / "provenance.json").read_text())
    return {**test, "epochs": {t["epochs"] for t in train}, "batch": {t["batch_size"] for t in train},
            "commit": prov["code_commit"][:7], "machine": prov["machine"].split(";")[0]}


def full_size(curve: dict) -> dict | None:
    """The `gpu` profile at its full size (:data:`FULL_SIZE`), None before it ran: PEARL's seeds against
    MiniLM as the like-for-like average of Table 1's task groups (:func:`harness.committed.group_gains`,
    one gain a seed; their mean, with the one-sample t interval from two seeds on), the run's views,
    epochs and corpus (each seed's training log's last line, ``train_full.py``'s record: the seeds must
    agree), and the budget curve's projection for MiniLM at those views (its cpu series on today's
    recipe, both curves: :func:`pearl.experiments.budget.project_models`), which this run tests."""
    from pearl.claims.rule import one_sample
    from pearl.experiments.budget import project_models
    from pearl.models import folder_name

    folder = results() / FULL_SIZE
    if not (folder / "provenance.json").is_file():
        return None
    prov = json.loads((folder / "provenance.json").read_text())
    reference = json.loads((results() / prov.get("reference", f"{FULL_SIZE}/table1_full_size_minilm.json")).read_text())
    minilm = [r for r in reference["rows"] if r["model"] == "minilm"]
    seeds = sorted(int(f.stem.rsplit("seed", 1)[1]) for f in folder.glob("table1_full_size_seed*.json"))
    if not seeds:
        raise FileNotFoundError(f"{folder}: provenance.json but no table1_full_size_seed<N>.json (full_size.sh's Table 1)")
    gains, runs = [], []
    for seed in seeds:
        rows = json.loads((folder / f"table1_full_size_seed{seed}.json").read_text())["rows"]
        gains.append(group_gains(minilm + [r for r in rows if r["model"] == folder_name("pearl", "minilm", seed)])["average"])
        log = (folder / f"full_size_seed{seed}_train.log").read_text().splitlines()
        train = json.loads(next(line for line in reversed(log) if line.startswith("{")))
        runs.append((train["views"], train["epochs"], train["corpus_phrases"]))
    if len(set(runs)) > 1:
        raise ValueError(f"{folder}: the seeds trained at different sizes (views, epochs, phrases): {runs}")
    views, epochs, phrases = runs[0]
    test = one_sample(gains, 0.0) if len(gains) > 1 else {"ours": gains[0], "ci_low": float("nan"), "ci_high": float("nan")}
    fits = curve["fits"][f"cpu, {TODAY}/minilm"]
    projection = project_models({"log-linear": fits["fit"], "saturating": fits["saturating"]}, views)
    return {"gain": test["ours"], "ci_low": test["ci_low"], "ci_high": test["ci_high"], "seeds": seeds,
            "gains": gains, "views": views, "epochs": epochs, "phrases": phrases, "projection": projection,
            "inside": projection["pi_low"] <= test["ours"] <= projection["pi_high"],
            "commit": prov["code_commit"][:7], "machine": prov["machine"].split(";")[0]}


def _full_size_gain(fs: dict) -> str:
    """The full-size gain as the first screen gives it: one seed's, or the seeds' mean with its interval."""
    if len(fs["seeds"]) == 1:
        return f"one seed of PEARL moves MiniLM's like-for-like average by {num(fs['gain'], '+.2f')} points, with no interval from one seed"
    return (f"{num(len(fs['seeds']))} seeds of PEARL move MiniLM's like-for-like average by {num(fs['gain'], '+.2f')} points "
            f"on average (95 % interval {num(fs['ci_low'], '+.2f')} to {num(fs['ci_high'], '+.2f')})")


def full_size_sentence(fs: dict | None, like: str) -> str:
    """``front.full_size``: the full-size run's gain beside the projection at its views, or that it has
    not run; ``like`` the paper's value as the table gives it."""
    if fs is None:
        return ("The `gpu` profile at its full size (every phrase of the Wikipedia copy, the paper's frequency "
                "filter) has not run yet: `scripts/device/full_size.sh` trains and scores it on one lent GPU, in "
                "two calls (`scripts/device/README.md`)")
    p, where = fs["projection"], "inside" if fs["inside"] else "outside"
    return (f"At the `gpu` profile's full size ({fs['machine']}, commit `{fs['commit']}`; {num(fs['phrases'], ',')} "
            f"phrases, {num(fs['epochs'])} epochs, {num(fs['views'], ',.0f')} views), {_full_size_gain(fs)}. The budget "
            f"curve had projected {num(p['pi_low'], '+.2f')} to {num(p['pi_high'], '+.2f')} at these views (MiniLM, "
            f"cpu, an extrapolation of {num(p['extrapolation'], '.0f')} times), and the measured {'gain' if len(fs['seeds']) == 1 else 'mean'} "
            f"lies {where} that interval. The paper's PEARL-small moves E5-small's by {like}")


def central(t: pd.DataFrame) -> tuple:
    """The ledger's central claim (C01) and its value as the first screen gives it: ``(row, "6.1 (5.46 like for like)")``."""
    paper = t[t["id"] == "C01"].iloc[0]
    return paper, f"{num(paper.paper, 'g')} ({num(paper.paper_like_for_like, '.2f')} like for like)"


def _views(budget_curve: dict, backbone: str, series: str, budget: float) -> float:
    """The views (phrases seen in training) of one budget of one series of the budget curve."""
    seen = {p["views"] for p in budget_curve["points"]
            if p["backbone"] == backbone and p["series"] == series and p["budget"] == budget}
    if len(seen) != 1:
        raise KeyError(f"{backbone} ({series}) at budget {budget:g}x: {sorted(seen)} views in results/budget_curve.json")
    return seen.pop()


def _gpu_views(curve: dict) -> float:
    return curve["gpu_profile"][0]["views"]


def table(t: pd.DataFrame, curve: dict, gpu: dict | None, fs: dict | None = None) -> str:
    """Per backbone and budget: our gain with its 95 % interval beside the paper's value, the ledger's
    verdict where the ledger reads that row (``front.table``)."""
    rows, (paper, like) = t[t["id"].str.match(r"^C01(-|$)")], central(t)
    body = []
    for r in rows.itertuples():
        views = _views(curve, r.backbone.lower(), f"cpu, {TODAY}", 1.0)
        body.append(f"| {r.backbone} | cpu profile, {num(views, ',.0f')} views | {num(r.ours, '+.2f')} "
                    f"({num(r.ci_low, '+.2f')} to {num(r.ci_high, '+.2f')}) | {num(r.n)} | {like} | {r.verdict} ({r.id}) |")
    if gpu:
        body.append(f"| MiniLM (fp16 copy) | gpu profile, {num(_gpu_views(curve), ',.0f')} views | "
                    f"{num(gpu['ours'], '+.2f')} ({num(gpu['ci_low'], '+.2f')} to {num(gpu['ci_high'], '+.2f')}) | "
                    f"{num(gpu['n'])} | {num(paper.paper, 'g')} (Table 1's nine datasets) | not in the ledger "
                    f"(one GPU, commit `{gpu['commit']}`) |")
    if fs:
        p, where, n = fs["projection"], "inside" if fs["inside"] else "outside", len(fs["seeds"])
        spread = "one seed: no interval" if n == 1 else f"{num(fs['ci_low'], '+.2f')} to {num(fs['ci_high'], '+.2f')}"
        body.append(f"| MiniLM (fp16 copy) | gpu profile at full size, {num(fs['views'], ',.0f')} views | "
                    f"{num(fs['gain'], '+.2f')} ({spread}) | {num(n)} | {like} | {where} the budget curve's "
                    f"projection, {num(p['pi_low'], '+.2f')} to {num(p['pi_high'], '+.2f')} (one GPU, commit `{fs['commit']}`) |")
    pb = next(iter(curve["fits"].values()))["paper_budget"]
    body.append(f"| any | the paper's budget, {num(pb['views'], ',.0f')} views | not run here | – | {like} | – |")
    head = ("| backbone | budget | gain (95 % interval) | seeds | paper | verdict |\n"
            "|---|---|---|---|---|---|")
    return head + "\n" + "\n".join(body)


def gpu_sentence(gpu: dict, curve: dict, paper: float) -> str:
    """``front.gpu``: the GPU seeds on today's recipe, with their budget, in one sentence beside the
    paper's ``paper`` (its nine-dataset gain, the ledger's C01 number)."""
    return (f"On the lent GPU ({gpu['machine']}), {num(gpu['n'])} seeds of the `gpu` profile on today's recipe "
            f"({num(_gpu_views(curve), ',.0f')} views: {', '.join(map(str, sorted(gpu['epochs'])))} epochs at batch "
            f"{', '.join(map(str, sorted(gpu['batch'])))}) move MiniLM's nine-dataset average by "
            f"{num(gpu['ours'], '+.2f')} points (95 % interval {num(gpu['ci_low'], '+.2f')} to "
            f"{num(gpu['ci_high'], '+.2f')}), where the paper's PEARL-small moves E5-small's by {num(paper, 'g')}")


def budget_sentences(curve: dict) -> str:
    """``front.budget``: per series on today's recipe, one sentence: its slope per tenfold budget and
    the 95 % prediction interval at the paper's budget (the curves' union where both are identified);
    an item of the first screen's list each (the template opens the first)."""
    out = []
    for key, v in curve["fits"].items():
        series, backbone = key.split("/")
        if not series.endswith(TODAY):
            continue
        pb = v["paper_budget"]
        out.append(f"On {backbone} ({series.split(',')[0]}) the gain rises by {num(v['fit']['slope'], '+.2f')} per "
                   f"tenfold budget (se {num(v['fit']['se_slope'], '.2f')}), and projects to "
                   f"{num(pb['pi_low'], '+.2f')} to {num(pb['pi_high'], '+.2f')} at the paper's "
                   f"{num(pb['views'], ',.0f')} views, an extrapolation of {num(pb['extrapolation'], '.0f')} times")
    return ".\n- ".join(out)


def sentences() -> dict[str, str]:
    """``front.table``, ``front.gpu``, ``front.full_size`` and ``front.budget``; a part whose files are
    absent is left out (the full-size run's sentence says it has not run)."""
    if not (exists("claims.csv") and exists("budget_curve.json")):
        return {}
    curve = read_json("budget_curve.json")
    gpu = gpu_gain() if (results() / GPU_SEEDS / "provenance.json").is_file() else None
    fs = full_size(curve)
    t = ledger()
    paper, like = central(t)
    out = {"front.table": table(t, curve, gpu, fs), "front.budget": budget_sentences(curve),
           "front.full_size": full_size_sentence(fs, like)}
    if gpu:
        out["front.gpu"] = gpu_sentence(gpu, curve, float(paper.paper))
    return out


def all_sentences() -> dict[str, str]:
    """:func:`sentences`, a missing number in a file read as *no result* with the reason."""
    return strict(sentences, "front.", sources=("claims.csv", "budget_curve.json", GPU_REFERENCE))
