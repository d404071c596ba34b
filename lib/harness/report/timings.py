"""Sentences on time and speed: the batch's time from its notebooks' records, the scoring floor, the exact search,
the token budget, training throughput, the corpus build and the explorer's latency.

Each function returns ``{key: sentence}``; a key is the template's placeholder ``{{key}}``. A
function whose results file is absent returns no key, and the report says the result is missing.
"""
from __future__ import annotations

import json
import statistics

from pearl import paths
from .common import exists, num, read_json, results, stage_label


def batch_records() -> tuple[list[dict], list[str]]:
    """The latest record of each notebook ``make reproduce`` runs (:func:`pearl.paths.batch_notebooks`),
    as ``{"notebook", "seconds", "commit", "cores"}`` in the batch's order, and the notebooks with
    no record or no ``wall_time_s`` in it. A record's wall time is its cells' alone: the venv
    build, the kernels' starts and the HTML rendering are in no record."""
    rows, missing = [], []
    for nb in paths.batch_notebooks(results().parent):
        name = nb.replace(".ipynb", ".json")
        rec = read_json(name) if exists(name) else {}
        if rec.get("wall_time_s") is None:
            missing.append(nb)
            continue
        prov = rec.get("provenance", {})
        rows.append({"notebook": nb, "seconds": rec["wall_time_s"], "commit": prov.get("git_sha", "")[:7],
                     "cores": prov.get("hardware", {}).get("cpu_count")})
    return rows, missing


def batch_total(rows: list[dict]) -> tuple[float, str]:
    """Minutes of :func:`batch_records`' rows added up, and their records' core counts (``"2"``, ``"2/16"``)."""
    return sum(r["seconds"] for r in rows) / 60, "/".join(str(c) for c in sorted({r["cores"] for r in rows if r["cores"]}))


def batch_time() -> dict[str, str]:
    """``reproduce.time``: the batch's time in one sentence, the wall times of its notebooks'
    latest records added up (:func:`batch_records`), with the cores and commits they ran at.
    Leaves out a notebook's reuse: a record whose notebook found its models trained holds only
    the time it took, so the sum is what the records took, not what a fresh clone would."""
    rows, missing = batch_records()
    if not rows:
        return {}
    total, cores = batch_total(rows)
    commits = ", ".join(f"`{c}`" for c in dict.fromkeys(r["commit"] for r in rows))
    lacking = f"; no record yet for {', '.join(stage_label(n) for n in missing)}" if missing else ""
    return {"reproduce.time": (f"{'at least ' if missing else ''}{total:.0f} minutes on {cores} cores, the wall times "
                               f"of the latest records of its {len(rows)} notebook{'s' if len(rows) != 1 else ''} added up (`results/NN_*.json`, "
                               f"cells only, at commits {commits}{lacking}; `perf/reproduce_walltime.py` prints them "
                               f"beside this machine's speed)")}


def gpu_projection() -> dict[str, str]:
    """``gpu.projection``: ``make reproduce PROFILE=gpu``'s projected hours per box, from
    ``results/perf/gpu_projection.json`` (``perf/gpu_projection.py``)."""
    if not exists("perf/gpu_projection.json"):
        return {}
    boxes = read_json("perf/gpu_projection.json")["boxes"]
    return {"gpu.projection": "; ".join(
        f"{box}: {b['total_hours']:.1f} h (worst case {b['worst_total_hours']:.1f} h; {b['cpu_bound_hours']:.1f} h of it "
        f"CPU-bound, at {b['cores_assumed']} cores)" for box, b in boxes.items())}


def rehearsal_time() -> dict[str, str]:
    """``rehearsal.time``: the wall time of ``make rehearse``, from ``results/perf/rehearsal.json``
    (``python -m harness.batch --rehearse --record``), with the commit and the load it ran under."""
    if not exists("perf/rehearsal.json"):
        return {}
    r = read_json("perf/rehearsal.json")
    load = f"load average {num(r['load_average_start'][0], '.1f')} at its start, {num(r['load_average_end'][0], '.1f')} at its end"
    return {"rehearsal.time": (f"{r['wall_time_s'] / 60:.0f} minutes on {r['hardware']['cpu_count']} cores, measured at "
                               f"commit `{r['git_sha'][:7]}` ({load}; `results/perf/rehearsal.json`)")}


def model_time() -> dict[str, str]:
    """``model.time``: the wall time of ``make model`` (one PEARL model from a fresh clone), from
    ``results/perf/make_model.json`` (``make model RECORD=1``), stage by stage, with the commit and
    the load it ran under."""
    if not exists("perf/make_model.json"):
        return {}
    r = read_json("perf/make_model.json")
    stages = ", ".join(f"{name} {num(s['seconds'] / 60, '.1f')}" for name, s in r["stages"].items())
    load = f"load average {num(r['load_average_start'][0], '.1f')} at its start, {num(r['load_average_end'][0], '.1f')} at its end"
    return {"model.time": (f"{num(r['wall_time_s'] / 60, '.1f')} minutes on {r['hardware']['cpu_count']} cores ({stages}), "
                           f"measured at commit `{r['git_sha'][:7]}` ({load}; `results/perf/make_model.json`)")}


def notebook_times() -> dict[str, str]:
    """Notebook 04's time alone and notebook 03's training, from their records."""
    bench = read_json("04_benchmark.json")
    train = read_json("03_training.json")["metrics"]
    secs = [m["train_s"] for m in train["models"]]
    return {"time.notebook04": f"notebook 04 alone: {bench['wall_time_s'] / 60:.1f} minutes",
            "time.training": (f"{len(secs)} seeds of {train['models'][0]['steps']} steps, "
                              f"{min(secs):.0f}–{max(secs):.0f} s each")}


def scoring_floor() -> dict[str, str]:
    """``floor.*``: Table-1 scoring against its FLOP floor (``results/perf/scoring_floor.json``)."""
    sf = read_json("perf/scoring_floor.json")
    ex, per = sf["exact"], sf["per_dataset"]
    enc = {r["dataset"]: r for r in per["rows"]}
    kb, pt, sw, same = per["kernel_bound"], sf["probe_threads"], sf["sweep"], sf["table1_unchanged"]
    return {
        "floor.pass": (f"at the {sf['matmul_gflops']:.0f} GFLOPS this machine sustains, the encoder work of MiniLM's "
                       f"exact pass needs {per['floor_s']} s; the pass takes {ex['cold_s']} s with a fresh cache, "
                       f"{ex['ratio_cold']:.2f} times the floor"),
        "floor.datasets": (f"encoding the YAGO and UMLS dictionaries runs at "
                           f"{enc['yago']['encode_s'] / enc['yago']['floor_s']:.2f} and "
                           f"{enc['umls']['encode_s'] / enc['umls']['floor_s']:.2f} times its floor, and the PPDB probes "
                           f"(the converged one and the paper's, three seeds each) take {enc['ppdb']['evaluate_s']:.1f} s "
                           f"on PPDB and {enc['ppdb_filtered']['evaluate_s']:.1f} s on PPDB filtered"),
        "floor.encoding": (f"encoding alone takes {per['encode_s']} s, {per['encode_ratio']:.2f} times the floor; the "
                           f"encoder's own matrix products run at {per['encoder_shapes_gflops']:.0f} GFLOPS, and at that "
                           f"rate encoding runs at {per['encode_s'] / per['floor_at_encoder_shapes_s']:.2f} times its floor"),
        "floor.kernel": (f"plus the PPDB probes' {kb['probe_gflop']:,.0f} GFLOP at the {kb['probe_shapes_gflops']:.0f} "
                         f"GFLOPS their shapes reach, every other step taking no time at all, would take {kb['bound_s']} s, "
                         f"{kb['bound_ratio']:.2f} times the floor ({kb['bound_at_square_rate_ratio']:.2f} times with every "
                         f"product at the square rate)"),
        "floor.threads": (f"the converged probe's three seeds on PPDB filtered take {pt['1_thread_s']} s on one thread and "
                          f"{pt['2_thread_s']} s on two ({pt['ratio']:.2f} times faster), with "
                          + ("the same accuracies" if pt["same_accuracies"] else "accuracies that differ")),
        "floor.warm_vectors": (f"with every vector cached the same pass takes {ex['warm_vectors_s']} s "
                               f"({100 * ex['warm_vectors_over_cold']:.1f} % of the cold pass)"),
        "floor.warm_scores": (f"with the scores reused as well it takes {ex['warm_scores_s']} s "
                              f"({100 * ex['warm_scores_over_cold']:.1f} %)"),
        "floor.sweep": (f"the sweep suite takes {sw['minilm']['seconds']} s for MiniLM and "
                        f"{sw['pearl-minilm-seed0']['seconds']} s for PEARL seed 0"),
        "floor.table1_unchanged": (f"MiniLM's scores move by at most {same['minilm']['max_abs']:.2f} "
                                   f"({same['minilm']['where']}) and PEARL seed 0's by at most "
                                   f"{same['pearl-minilm-seed0']['max_abs']:.2f} ({same['pearl-minilm-seed0']['where']})"),
    }


def speed() -> dict[str, str]:
    """The exact search, the token budget, training throughput, the corpus build and the explorer."""
    out = {}
    es = {r["task"]: r for r in read_json("perf/exact_search.json")["rows"]}["yago"]
    out["speed.exact_search"] = (
        f"the exact top-1 search of YAGO's {num(es['queries'], ',')} mentions among its {num(es['names'], ',')} names takes a median "
        f"{num(statistics.median(es['top1_s']), '.1f')} s on torch's matrix products ({num(es['top1_ratio'], '.2f')} times its FLOP "
        f"floor) against {num(statistics.median(es['faiss_s']), '.1f')} s with faiss's `IndexFlatIP` "
        f"({num(es['faiss_ratio'], '.2f')} times), with the same answer on {num(100 * es['same_answers'], '.0f')} % of the queries")
    tb = read_json("perf/token_budget.json")
    tm = {m: v["budgets"] for m, v in tb["models"].items()}
    out["speed.token_budget"] = (
        f"Median seconds to encode {num(tb['phrases'], ',')} distinct Table-1 phrases at 1,024, 2,048, 4,096 and 8,192 "
        f"tokens a batch: " + "; ".join(
            f"{label} " + ", ".join(f"{num(tm[m][b]['median_s'], '.1f')}" for b in ("1024", "2048", "4096", "8192"))
            + f" ({num(tm[m]['8192']['median_s'] / tm[m]['4096']['median_s'], '.2f')} times faster at 4,096 than at 8,192; "
            f"{num(tm[m]['4096']['ratio_to_floor'], '.2f')} times the FLOP floor)"
            for m, label in (("minilm", "MiniLM"), ("pearl-minilm-seed0", "PEARL seed 0")))
        + ". The vectors differ by at most "
        + f"{max(b['max_abs_diff'] for v in tm.values() for b in v.values()):.1e} across budgets")
    tt = read_json("perf/train_throughput.json")
    out["speed.training"] = (f"{tt['phrases_per_s']['ours']} against {tt['phrases_per_s']['naive']} phrases/s over "
                             f"{tt['steps']} steps, a ratio of {num(tt['ratio'], '.2f')}")
    if exists("perf/corpus_build.json"):
        cb = read_json("perf/corpus_build.json")
        m = cb["methods"]
        out["speed.corpus_build"] = (
            f"{num(m['build']['tokens_per_s'], ',.0f')} tokens/s with {cb['n_process']} processes against "
            f"{num(m['plain']['tokens_per_s'], ',.0f')} for the plain single-process pipe ({num(cb['speedup_build_vs_plain'], '.2f')}x), "
            f"load average {num(cb['load_average_start'][0], '.1f')} to {num(cb['load_average_end'][0], '.1f')} on {cb['cpu_count']} cores")
    lat = read_json("06_explorer.json")["metrics"]
    out["speed.explorer"] = (f"Median update latency is {lat['update_latency_ms']['median_ms']} ms for "
                             f"{lat['latency_candidates']} candidates (p90 {lat['update_latency_ms']['p90_ms']} ms; "
                             f"{lat['update_latency_ranking_only_ms']['median_ms']} ms for the ranking alone)")
    return out


def all_sentences() -> dict[str, str]:
    return {**batch_time(), **gpu_projection(), **rehearsal_time(), **model_time(), **notebook_times(),
            **scoring_floor(), **speed()}


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(all_sentences(), indent=1, ensure_ascii=False))
