"""Sentences on time and speed: the batch's time from its notebooks' records, the scoring floor, the exact search,
the token budget, training throughput, the corpus build and the explorer's latency.

Each function returns ``{key: sentence}``; a key is the template's placeholder ``{{key}}``. A
function whose results file is absent returns no key, and the report says the result is missing.
"""
from __future__ import annotations

import json
import statistics

from harness.batch import batch_notebooks
from .common import exists, num, read_json, results, stage_label, strict


def minutes(seconds) -> float:
    """``seconds`` in minutes, once :func:`num` has passed it (a null is *no result*, not a ``TypeError``)."""
    return float(num(seconds)) / 60


def batch_records() -> tuple[list[dict], list[str]]:
    """The latest record of each notebook ``make reproduce`` runs (:func:`harness.batch.batch_notebooks`),
    as ``{"notebook", "seconds", "commit", "cores"}`` in the batch's order, and the notebooks with
    no record or no ``wall_time_s`` in it. A record's wall time is its cells' alone: the venv
    build, the kernels' starts and the HTML rendering are in no record."""
    rows, missing = [], []
    for nb in batch_notebooks(results().parent):
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
    """Minutes of :func:`batch_records`' rows added up, and their records' core counts (``"2"``, ``"2/16"``),
    each through :func:`num` (a null or NaN is *no result*, never ``nan minutes`` or ``None cores``)."""
    minutes = sum(float(num(r["seconds"])) for r in rows) / 60
    return minutes, "/".join(num(c) for c in sorted({r["cores"] for r in rows}, key=str))


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
    return {"reproduce.time": (f"{'at least ' if missing else ''}{num(total, '.0f')} minutes on {cores} cores, the wall times "
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
        f"{box}: {num(b['total_hours'], '.1f')} h (worst case {num(b['worst_total_hours'], '.1f')} h; "
        f"{num(b['cpu_bound_hours'], '.1f')} h of it CPU-bound, at {num(b['cores_assumed'])} cores)" for box, b in boxes.items())}


def rehearsal_time() -> dict[str, str]:
    """``rehearsal.time``: the wall time of ``make rehearse``, from ``results/perf/rehearsal.json``
    (``python -m harness.batch --rehearse --record``), with the commit and the load it ran under."""
    if not exists("perf/rehearsal.json"):
        return {}
    r = read_json("perf/rehearsal.json")
    load = f"load average {num(r['load_average_start'][0], '.1f')} at its start, {num(r['load_average_end'][0], '.1f')} at its end"
    return {"rehearsal.time": (f"{num(minutes(r['wall_time_s']), '.0f')} minutes on {num(r['hardware']['cpu_count'])} cores, measured at "
                               f"commit `{r['git_sha'][:7]}` ({load}; `results/perf/rehearsal.json`)")}


def model_time() -> dict[str, str]:
    """``model.time``: the wall time of ``make model`` (one PEARL model from a fresh clone), from
    ``results/perf/make_model.json`` (``make model RECORD=1``), stage by stage, with the commit and
    the load it ran under."""
    if not exists("perf/make_model.json"):
        return {}
    r = read_json("perf/make_model.json")
    stages = ", ".join(f"{name} {num(minutes(s['seconds']), '.1f')}" for name, s in r["stages"].items())
    load = f"load average {num(r['load_average_start'][0], '.1f')} at its start, {num(r['load_average_end'][0], '.1f')} at its end"
    return {"model.time": (f"{num(minutes(r['wall_time_s']), '.1f')} minutes on {num(r['hardware']['cpu_count'])} cores ({stages}), "
                           f"measured at commit `{r['git_sha'][:7]}` ({load}; `results/perf/make_model.json`)")}


def notebook_times() -> dict[str, str]:
    """Notebook 04's time alone and notebook 03's training, from their records."""
    bench = read_json("04_benchmark.json")
    train = read_json("03_training.json")["metrics"]
    secs = [float(num(m["train_s"])) for m in train["models"]]  # each checked: min() would pass a NaN over
    return {"time.notebook04": f"notebook 04 alone: {num(minutes(bench['wall_time_s']), '.1f')} minutes",
            "time.training": (f"{len(secs)} seeds of {num(train['models'][0]['steps'])} steps, "
                              f"{num(min(secs), '.0f')}–{num(max(secs), '.0f')} s each")}


def scoring_floor() -> dict[str, str]:
    """``floor.*``: Table-1 scoring against its FLOP floor (``results/perf/scoring_floor.json``)."""
    sf = read_json("perf/scoring_floor.json")
    ex, per = sf["exact"], sf["per_dataset"]
    enc = {r["dataset"]: r for r in per["rows"]}
    kb, pt, sw, same = per["kernel_bound"], sf["probe_threads"], sf["sweep"], sf["table1_unchanged"]

    def ratio(part: dict, over: str = "floor_s") -> str:  # a measured time over its floor
        return num(float(num(part["encode_s"])) / float(num(part[over])), ".2f")
    return {
        "floor.pass": (f"at the {num(sf['matmul_gflops'], '.0f')} GFLOPS this machine sustains, the encoder work of MiniLM's "
                       f"exact pass needs {num(per['floor_s'])} s; the pass takes {num(ex['cold_s'])} s with a fresh cache, "
                       f"{num(ex['ratio_cold'], '.2f')} times the floor"),
        "floor.datasets": (f"encoding the YAGO and UMLS dictionaries runs at "
                           f"{ratio(enc['yago'])} and {ratio(enc['umls'])} times its floor, and the PPDB probes "
                           f"(the converged one and the paper's, three seeds each) take {num(enc['ppdb']['evaluate_s'], '.1f')} s "
                           f"on PPDB and {num(enc['ppdb_filtered']['evaluate_s'], '.1f')} s on PPDB filtered"),
        "floor.encoding": (f"encoding alone takes {num(per['encode_s'])} s, {num(per['encode_ratio'], '.2f')} times the floor; the "
                           f"encoder's own matrix products run at {num(per['encoder_shapes_gflops'], '.0f')} GFLOPS, and at that "
                           f"rate encoding runs at {ratio(per, 'floor_at_encoder_shapes_s')} times its floor"),
        "floor.kernel": (f"plus the PPDB probes' {num(kb['probe_gflop'], ',.0f')} GFLOP at the {num(kb['probe_shapes_gflops'], '.0f')} "
                         f"GFLOPS their shapes reach, every other step taking no time at all, would take {num(kb['bound_s'])} s, "
                         f"{num(kb['bound_ratio'], '.2f')} times the floor ({num(kb['bound_at_square_rate_ratio'], '.2f')} times with every "
                         f"product at the square rate)"),
        "floor.threads": (f"the converged probe's three seeds on PPDB filtered take {num(pt['1_thread_s'])} s on one thread and "
                          f"{num(pt['2_thread_s'])} s on two ({num(pt['ratio'], '.2f')} times faster), with "
                          + ("the same accuracies" if pt["same_accuracies"] else "accuracies that differ")),
        "floor.warm_vectors": (f"with every vector cached the same pass takes {num(ex['warm_vectors_s'])} s "
                               f"({num(100 * float(num(ex['warm_vectors_over_cold'])), '.1f')} % of the cold pass)"),
        "floor.warm_scores": (f"with the scores reused as well it takes {num(ex['warm_scores_s'])} s "
                              f"({num(100 * float(num(ex['warm_scores_over_cold'])), '.1f')} %)"),
        "floor.sweep": (f"the sweep suite takes {num(sw['minilm']['seconds'])} s for MiniLM and "
                        f"{num(sw['pearl-minilm-seed0']['seconds'])} s for PEARL seed 0"),
        "floor.table1_unchanged": (f"MiniLM's scores move by at most {num(same['minilm']['max_abs'], '.2f')} "
                                   f"({same['minilm']['where']}) and PEARL seed 0's by at most "
                                   f"{num(same['pearl-minilm-seed0']['max_abs'], '.2f')} ({same['pearl-minilm-seed0']['where']})"),
    }


def exact_search() -> dict[str, str]:
    """``speed.exact_search``: YAGO's exact top-1 search against faiss (``results/perf/exact_search.json``)."""
    out = {}
    es = {r["task"]: r for r in read_json("perf/exact_search.json")["rows"]}["yago"]
    out["speed.exact_search"] = (
        f"the exact top-1 search of YAGO's {num(es['queries'], ',')} mentions among its {num(es['names'], ',')} names takes a median "
        f"{num(statistics.median(es['top1_s']), '.1f')} s on torch's matrix products ({num(es['top1_ratio'], '.2f')} times its FLOP "
        f"floor) against {num(statistics.median(es['faiss_s']), '.1f')} s with faiss's `IndexFlatIP` "
        f"({num(es['faiss_ratio'], '.2f')} times), with the same answer on {num(100 * es['same_answers'], '.0f')} % of the queries")
    return out


def token_budget() -> dict[str, str]:
    """``speed.token_budget``: encoding time against the tokens in a batch (``results/perf/token_budget.json``)."""
    out = {}
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
        + f"{num(max(float(num(b['max_abs_diff'])) for v in tm.values() for b in v.values()), '.1e')} across budgets")
    return out


def training_speed() -> dict[str, str]:
    """``speed.training``: training throughput against a naive loop (``results/perf/train_throughput.json``)."""
    tt = read_json("perf/train_throughput.json")
    return {"speed.training": (f"{num(tt['phrases_per_s']['ours'])} against {num(tt['phrases_per_s']['naive'])} phrases/s over "
                             f"{num(tt['steps'])} steps, a ratio of {num(tt['ratio'], '.2f')}")}


def corpus_build() -> dict[str, str]:
    """``speed.corpus_build``: the corpus build's tokens per second (``results/perf/corpus_build.json``)."""
    out = {}
    if exists("perf/corpus_build.json"):
        cb = read_json("perf/corpus_build.json")
        m = cb["methods"]
        out["speed.corpus_build"] = (
            f"{num(m['build']['tokens_per_s'], ',.0f')} tokens/s with {num(cb['n_process'])} processes against "
            f"{num(m['plain']['tokens_per_s'], ',.0f')} for the plain single-process pipe ({num(cb['speedup_build_vs_plain'], '.2f')}x), "
            f"load average {num(cb['load_average_start'][0], '.1f')} to {num(cb['load_average_end'][0], '.1f')} on {num(cb['cpu_count'])} cores")
    return out


def explorer_latency() -> dict[str, str]:
    """``speed.explorer``: the explorer's update latency (``results/06_explorer.json``)."""
    lat = read_json("06_explorer.json")["metrics"]
    return {"speed.explorer": (f"Median update latency is {num(lat['update_latency_ms']['median_ms'])} ms for "
                             f"{num(lat['latency_candidates'])} candidates (p90 {num(lat['update_latency_ms']['p90_ms'])} ms; "
                             f"{num(lat['update_latency_ranking_only_ms']['median_ms'])} ms for the ranking alone)")}


#: each sentence function, its key prefix and the files it reads: one that meets a null, NaN or missing
#: number is *no result* with the reason (:func:`harness.report.common.strict`), the others still say theirs
SENTENCES = ((batch_time, "reproduce.", ()), (gpu_projection, "gpu.", ("perf/gpu_projection.json",)),
             (rehearsal_time, "rehearsal.", ("perf/rehearsal.json",)),
             (model_time, "model.", ("perf/make_model.json",)),
             (notebook_times, "time.", ("04_benchmark.json", "03_training.json")),
             (scoring_floor, "floor.", ("perf/scoring_floor.json",)),
             (exact_search, "speed.exact_search", ("perf/exact_search.json",)),
             (token_budget, "speed.token_budget", ("perf/token_budget.json",)),
             (training_speed, "speed.training", ("perf/train_throughput.json",)),
             (corpus_build, "speed.corpus_build", ("perf/corpus_build.json",)),
             (explorer_latency, "speed.explorer", ("06_explorer.json",)))


def all_sentences() -> dict[str, str]:
    out = {}
    for make, prefix, sources in SENTENCES:
        out.update(strict(make, prefix, sources=sources))
    return out


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(all_sentences(), indent=1, ensure_ascii=False))
