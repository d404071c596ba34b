"""A projection, not a measurement: time and memory of ``make reproduce PROFILE=gpu`` on one GPU.

    .venv/bin/python perf/gpu_projection.py

Writes ``results/perf/gpu_projection.json`` and ``.md``: per notebook of the batch and in
total, on a box with one H100 80 GB (16 CPU cores, the lent machine's) and one with an A100 40 GB
(12 CPU cores, a common cloud shape), from what was measured:

- training: the ``gpu`` profile's one real run (``results/gpu/gpu_profile_seed0_pearl.json``: 418
  steps of 512 in 47.1 s on an H100, 4 DataLoader workers) and the steady-state benchmark
  (``results/gpu/train_throughput_80steps_4workers.json``); once a GPU has measured the arrays feed
  (``results/gpu/gpu_step_cuda.json``, :func:`arrays_feed`), its step rate after the batches are drawn
  on every core at the per-core rate of ``results/perf/batch_builder.json`` replaces both; the number of trainings and the
  phrases each sees follow from the notebooks' defaults at the gpu profile and the whole corpus's
  phrase count (``results/wikipedia_whole_corpus.json``, ``results/01_data_building.json``);
- the encoder's FLOPs per training phrase (anchor, positive, 2 hard negatives; forward and
  backward) against the GPU's bf16 peak: the achieved rate is about 1 % of an H100's, so training
  is bound by the host (collation, augmentation, launches), not the GPU; an A100 is projected at
  the H100's rate (host-bound) with the peak ratio as its worst case;
- CPU-bound stages at the rates measured on this repository's 2-core machine: the whole-corpus
  build (``results/wikipedia_whole_corpus.json``: tokens per second per spaCy process; it runs one
  process per core), the augmentation lexicons and the exact hard-negative mining
  (``results/perf/hard_negatives_scale.json``, single-process: not scaled by cores), scoring
  (``results/04_benchmark.json`` ... ``13_discrepancy.json``: Table 1's scoring took 109 s a model on
  the H100 box and 107 s on 2 CPU cores at today's code, so scoring is projected at the CPU times).

Every assumption is named in the output's ``assumptions``; no GPU ran this.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "lib"))
RESULTS = ROOT / "results"

#: the two boxes: GPU memory (GB), bf16 dense peak (TFLOP/s, vendor sheets), CPU cores assumed
BOXES = {"H100 80GB": {"gpu_memory_gb": 80, "bf16_tflops": 989, "cores": 16},
         "A100 40GB": {"gpu_memory_gb": 40, "bf16_tflops": 312, "cores": 12}}
#: all-MiniLM-L6-v2 (its config.json): layers, hidden size, feed-forward size; me5-small has 12 layers
MINILM = {"layers": 6, "hidden": 384, "ffn": 1536, "heads": 12}
#: sequences per training phrase: the phrase, its augmented positive, 2 hard negatives
SEQUENCES = 4
#: assumptions that are not measurements (also written to the output)
ASSUMED = {"tokens_per_phrase": 8, "max_length": 32, "fixed_s_per_training": 30, "gpu_encode_phrases_per_s": 10_000,
           "rss_scales_with_anchors": True}


def _json(name: str) -> dict:
    return json.loads((RESULTS / name).read_text())


def flops_per_phrase(layers: int = MINILM["layers"], tokens: int = ASSUMED["tokens_per_phrase"]) -> float:
    """Training FLOPs per phrase: 6 x (non-embedding parameters) x tokens x sequences, plus attention."""
    h, f = MINILM["hidden"], MINILM["ffn"]
    params = layers * (4 * h * h + 2 * h * f)
    attention = layers * 2 * 2 * tokens * tokens * h
    return 3 * (2 * params * tokens + attention) * SEQUENCES


def activation_gb(layers: int, batch: int = 512, length: int = ASSUMED["max_length"], hidden: int = MINILM["hidden"],
                  heads: int = MINILM["heads"]) -> float:
    """bf16 activations kept for the backward pass (Korthikanti et al. 2022: 34 s h + 5 a s^2 bytes a sequence and layer)."""
    per_layer = length * hidden * 34 + 5 * heads * length * length
    return per_layer * layers * batch * SEQUENCES / 1e9


def training_counts() -> dict:
    """Trainings per notebook at the gpu profile and the share of the phrases each sees, from the
    notebooks' defaults (the gpu profile's seeds where a notebook leaves them to the profile)."""
    from pearl.experiments import curves
    from harness.params import notebook_defaults
    from pearl.training.profiles import FIGURE5_SEEDS

    n03, n08, n09, n10 = (notebook_defaults(n) for n in ("03_training.ipynb", "08_ablations.ipynb", "09_backbones.ipynb",
                                                  "10_hyperparameters.ipynb"))
    grid = curves.hyperparameter_grid(n10["LRS"], n10["HARD_NEGATIVES"], n10["CHOSEN_LR"])
    new_points = [r for r in curves.grid_recipes(grid) if r.name]  # the full recipe ("") is notebook 03's
    seeds10 = n10["SEEDS"] or FIGURE5_SEEDS["gpu"]
    return {"03_training.ipynb": [(len(n03["SEEDS"]), 1.0, f"{len(n03['SEEDS'])} seeds of the full recipe "
                                   "(notebook 07 uses them all)")],
            "08_ablations.ipynb": [(len(n08["ABLATIONS"]) * len(n08["SEEDS"]), 1.0,
                                    f"{len(n08['ABLATIONS'])} ablations x {len(n08['SEEDS'])} seeds")],
            # PEARL on every backbone, and SimCSE (the control arm, same phrase share) on each raw LM
            "09_backbones.ipynb": [(len(n09["BACKBONES"]) * len(n09["SEEDS"]), 0.3,
                                    f"{len(n09['BACKBONES'])} backbones x {len(n09['SEEDS'])} seeds on 30 % of the phrases"),
                                   (len(n09["CONTROL_ON"]) * len(n09["SEEDS"]), 0.3,
                                    f"SimCSE on {len(n09['CONTROL_ON'])} raw LM x {len(n09['SEEDS'])} seeds, same share")],
            "10_hyperparameters.ipynb": [(len(new_points) * len(seeds10), 1.0,
                                          f"{len(new_points)} new Figure-5 points x {len(seeds10)} seeds")],
            # the study's core cells: MiniLM and me5-small on WikiText-2 (its own folder: the data notebooks
            # built Wikipedia) at the gpu profile, 3 seeds each; its share is WikiText-2's phrases over Wikipedia's
            "13_discrepancy.ipynb": [(2 * 3, "wikitext2", "MiniLM and me5-small x 3 seeds on WikiText-2 (its corpus "
                                      "built and mined first, as notebooks 01-02 do on the cpu profile)")]}


#: the arrays feed's step on a GPU (perf/gpu_step.py on CUDA, scripts/device/full_size.sh brings it back)
#: and its drawing rate per core on this machine (perf/batch_builder.py)
FED_STEP, DRAW = "gpu/gpu_step_cuda.json", "perf/batch_builder.json"


def arrays_feed(cores: int) -> dict | None:
    """The training rate of the arrays feed (:mod:`pearl.training.arrays`) on a box of ``cores`` cores:
    the GPU step measured on CUDA (``results/gpu/gpu_step_cuda.json``), after the batches are drawn
    once at the per-core rate measured here (``results/perf/batch_builder.json``) on every core; None
    until a GPU has measured the step (a CPU's rate is never used for a GPU)."""
    if not (RESULTS / FED_STEP).is_file() or not (RESULTS / DRAW).is_file():
        return None
    step = _json(FED_STEP)
    if not str(step.get("device", "")).startswith("cuda"):
        return None
    gpu = step["backbones"]["minilm"]["phrases_per_s"]
    draw = _json(DRAW)["phrases_per_s"]["draw_once"] * cores
    return {"gpu_phrases_per_s": gpu, "draw_phrases_per_s": round(draw), "gpu": step.get("gpu"),
            "gflop_per_phrase": step["backbones"]["minilm"]["gflop_per_phrase"],
            "phrases_per_s": 1 / (1 / gpu + 1 / draw)}  # the drawing runs before the loop, not beside it


def project() -> dict:
    gpu_run = _json("gpu/gpu_profile_seed0_pearl.json")
    steady = _json("gpu/train_throughput_80steps_4workers.json")["phrases_per_s"]["ours"]
    measured = 418 * gpu_run["train_config"]["batch_size"] / gpu_run["train_seconds"]
    fed = arrays_feed(BOXES["H100 80GB"]["cores"])
    if fed is not None:  # the arrays feed measured on a GPU replaces the Collator-fed run's rate
        measured = steady = fed["phrases_per_s"]
    whole = _json("wikipedia_whole_corpus.json")["metrics"]
    nb01 = _json("01_data_building.json")
    phrases = whole["training_corpus_phrases"]  # as notebook 01 merges it: the kept phrases and WordNet's lemmas
    scale = _json("perf/hard_negatives_scale.json")
    exact = scale["scale"]["by_method"]["exact"]
    per_anchor_s = (exact["candidates_s"] + exact["exclusions_s"] + exact["select_s"]) / scale["scale"]["anchors"]
    tables_s = scale["pool"]["tables_s"]
    rss_gb = scale["scale"]["peak_rss_mb"] / 1024 * phrases / scale["scale"]["anchors"]
    fpp = fed["gflop_per_phrase"] * 1e9 if fed is not None else flops_per_phrase()  # counted in code when measured
    records = {n: _json(f"{Path(n).stem}.json") for n in
               ("04_benchmark.ipynb", "05_figures.ipynb", "06_explorer.ipynb", "07_short_text.ipynb", "08_ablations.ipynb",
                "09_backbones.ipynb", "10_hyperparameters.ipynb", "12_claims.ipynb", "13_discrepancy.ipynb")}
    seconds04 = records["04_benchmark.ipynb"]["seconds"]
    pearl_model_s = sum(v for k, v in seconds04.items() if k.startswith("pearl-minilm-seed0/"))
    counts = training_counts()
    out = {}
    for box, spec in BOXES.items():
        host_rate = measured  # host-bound: the GPU's kind barely matters (see flops below)
        worst_rate = min(measured, steady) * min(1.0, spec["bf16_tflops"] / BOXES["H100 80GB"]["bf16_tflops"])
        views = 2 * phrases  # 2 epochs

        def train_s(n, share, rate):
            return n * (views * share / rate + ASSUMED["fixed_s_per_training"])

        stages = {}
        build_s = whole["tokens"] / (whole["parse_tokens_per_s_per_process"] * spec["cores"])
        merge_s = nb01["timings_s"]["wikipedia_merge"] * whole["tokens"] / nb01["metrics"]["wikipedia_sample"]["tokens"]
        stages["01_data_building.ipynb"] = {
            "seconds": build_s + merge_s + nb01["timings_s"]["parse_and_count"] + nb01["timings_s"]["wordnet_phrases"],
            "cpu_bound": True, "cores_assumed": spec["cores"],
            "what": f"whole-corpus build, {whole['tokens'] / 1e6:.1f}M tokens at "
                    f"{whole['parse_tokens_per_s_per_process']:,.0f} tokens/s per process x {spec['cores']} processes; merge"}
        mine_s = per_anchor_s * phrases + phrases / ASSUMED["gpu_encode_phrases_per_s"]
        stages["02_augmentation.ipynb"] = {
            "seconds": tables_s + mine_s, "cpu_bound": True, "cores_assumed": 1, "host_ram_gb": round(rss_gb, 1),
            "what": f"tables for {phrases:,} phrases ({tables_s:.0f} s measured on the whole pool) and exact mining for "
                    f"every phrase ({per_anchor_s * 1e3:.2f} ms an anchor, single process; encoding on the GPU)"}
        wikitext2 = nb01["metrics"]["corpus_size"] / phrases  # the cpu-profile record's corpus: WikiText-2
        for nb, items in counts.items():
            items = [(n, wikitext2 if share == "wikitext2" else share, w) for n, share, w in items]
            likely = sum(train_s(n, share, host_rate) for n, share, _ in items)
            worst = sum(train_s(n, share, worst_rate) for n, share, _ in items)
            rec = records.get(nb, {})
            score = rec.get("timings_s", {}).get("score", 0.0)
            if nb == "10_hyperparameters.ipynb":  # BIRD only; 3 seeds a point instead of 1
                score *= 3
            if nb == "13_discrepancy.ipynb":  # WikiText-2 parsed, tabled and mined (cpu records); scoring as recorded
                score = nb01["timings_s"]["parse_and_count"] + _json("02_augmentation.json")["wall_time_s"] + \
                    rec["wall_time_s"]
            stages[nb] = {"seconds": likely + score, "worst_seconds": worst + score, "cpu_bound": False,
                          "trainings": sum(n for n, _, _ in items), "what": "; ".join(w for _, _, w in items),
                          "training_s": likely, "scoring_s": score}
        stages["04_benchmark.ipynb"] = {
            "seconds": records["04_benchmark.ipynb"]["timings_s"]["score"] + 2 * pearl_model_s, "cpu_bound": True,
            "cores_assumed": 2, "what": "Table 1 at the scoring time measured on 2 CPU cores, 2 more PEARL seeds "
                                                    f"({pearl_model_s:.0f} s each); the PPDB probe and retrieval are CPU-bound"}
        for nb in ("05_figures.ipynb", "06_explorer.ipynb", "07_short_text.ipynb", "12_claims.ipynb"):
            stages[nb] = {"seconds": records[nb]["wall_time_s"], "cpu_bound": True, "cores_assumed": 2,
                          "what": "as measured on 2 CPU cores (the same models and sets at the gpu profile)"}
        order = [n for n in (ROOT / "notebooks" / "ORDER").read_text().split()
                 if n not in (ROOT / "notebooks" / "SEPARATE").read_text().split() and n in stages]
        stages = {n: {**stages[n], "seconds": round(stages[n]["seconds"]),
                      **({"worst_seconds": round(stages[n]["worst_seconds"])} if "worst_seconds" in stages[n] else {})}
                  for n in order}
        total = sum(s["seconds"] for s in stages.values())
        worst_total = sum(s.get("worst_seconds", s["seconds"]) for s in stages.values())
        cpu = sum(s["seconds"] for s in stages.values() if s["cpu_bound"])
        out[box] = {"total_hours": round(total / 3600, 1), "worst_total_hours": round(worst_total / 3600, 1),
                    "cpu_bound_hours": round(cpu / 3600, 1), "cores_assumed": spec["cores"],
                    "gpu_peak_memory_gb": {"minilm": round(activation_gb(6) + 22.7e6 * 16 / 1e9, 1),
                                           "me5-small (Table 4)": round(activation_gb(12) + 118e6 * 16 / 1e9, 1)},
                    "fits": activation_gb(12) + 118e6 * 16 / 1e9 < spec["gpu_memory_gb"], "notebooks": stages}
    achieved = measured * fpp / 1e12
    return {"kind": "projection, not a measurement: no GPU ran this batch",
            "source": "perf/gpu_projection.py",
            "command": "make reproduce PROFILE=gpu (notebooks/ORDER less notebooks/SEPARATE), from a fresh clone",
            "phrases": phrases, "epochs": 2, "steps_per_training": round(2 * phrases / 512),
            "training_rate_phrases_per_s": {"h100_gpu_profile_run": round(measured), "h100_steady_benchmark": steady},
            "feed": ({"kind": "arrays (pearl.training.arrays), measured on a GPU", **fed} if fed is not None else
                     {"kind": "collate (the Collator in DataLoader workers): the arrays feed has no GPU measurement yet"}),
            "flops_per_training_phrase": fpp, "h100_achieved_tflops": round(achieved, 1),
            "h100_share_of_bf16_peak": round(achieved / BOXES["H100 80GB"]["bf16_tflops"], 4),
            "boxes": out, "assumptions": {**ASSUMED, "boxes": BOXES},
            "sources": ["results/gpu/gpu_profile_seed0_pearl.json", "results/gpu/train_throughput_80steps_4workers.json",
                        "results/gpu/table1_gpu_profile_seed0.json", "results/wikipedia_whole_corpus.json",
                        "results/perf/hard_negatives_scale.json", "results/01_data_building.json",
                        "results/04_benchmark.json ... results/13_discrepancy.json (cpu-profile records)"]}


def markdown(p: dict) -> str:
    """The projection as a Markdown table (through :mod:`pearl.tabular`), with its sources and notes."""
    import pandas as pd

    from pearl.tabular import Table, cell, render

    boxes = list(p["boxes"])
    rows = []
    for nb, s in p["boxes"][boxes[0]]["notebooks"].items():
        rows.append({"notebook": nb, **{b: cell(p["boxes"][b]["notebooks"][nb]["seconds"] / 60, digits=",.0f") + " min"
                                        for b in boxes},
                     "CPU-bound (cores)": f"yes ({s.get('cores_assumed')})" if s["cpu_bound"] else "no (GPU)",
                     "what": s["what"]})
    rows.append({"notebook": cell("total", bold=True),
                 **{b: cell(f"{p['boxes'][b]['total_hours']} h", bold=True) + f" (worst {p['boxes'][b]['worst_total_hours']} h)"
                    for b in boxes}, "CPU-bound (cores)": "", "what": ""})
    head = (f"# `make reproduce PROFILE=gpu`: a projection\n\n"
            f"{p['kind']}; by `{p['source']}` from {', '.join(f'`{s}`' for s in p['sources'])}. "
            f"{p['phrases']:,} training phrases, {p['steps_per_training']:,} steps a full training; training runs at "
            f"{p['h100_share_of_bf16_peak']:.1%} of an H100's bf16 peak; batches fed by {p['feed']['kind']}.")
    note = ("CPU-bound stages (corpus build, tables and mining, scoring with its PPDB probe): " +
            ", ".join(f"{p['boxes'][b]['cpu_bound_hours']} h on the {b} box ({p['boxes'][b]['cores_assumed']} cores)"
                      for b in boxes) + ". Training is projected at the H100 run's "
            f"{p['training_rate_phrases_per_s']['h100_gpu_profile_run']:,} phrases/s; *worst* at the steady-state "
            f"benchmark's {p['training_rate_phrases_per_s']['h100_steady_benchmark']:,} phrases/s, and for the A100 "
            "also scaled by the bf16 peak ratio (if training were GPU-bound, which it is not at 1 % of peak).")
    return render(Table(pd.DataFrame(rows), head=head, notes=[note], plain=True), "md") + "\n"


def main() -> None:
    from pearl.atomic import write_atomic
    from pearl.provenance import stamp, write_json

    p = project()
    write_json(RESULTS / "perf" / "gpu_projection.json", {**stamp(ROOT), **p})
    write_atomic(RESULTS / "perf" / "gpu_projection.md", markdown(p))
    print(markdown(p))


if __name__ == "__main__":
    main()
