"""Sentences on time and speed: the batch run's wall time, the scoring floor, the exact search,
the token budget, training throughput, the corpus build and the explorer's latency.

Each function returns ``{key: sentence}``; a key is the template's placeholder ``{{key}}``. A
function whose results file is absent returns no key, and the report says the result is missing.
"""
from __future__ import annotations

import json
import re
import statistics

from .. import paths
from .common import exists, read_json, results, stage_label


def _gflops_span(sittings: list[dict]) -> str:
    """The machine's speed over a timing's sittings (their ``gflops`` readings), ``"139"`` or
    ``"108–152"``; ``""`` when no sitting has a reading."""
    rates = sorted(round(v) for s in sittings for v in s.get("gflops") or [] if v is not None)
    return "" if not rates else f"{rates[0]}" if rates[0] == rates[-1] else f"{rates[0]}–{rates[-1]}"


def reproduce_time() -> dict[str, str]:
    """``reproduce.whole``: one measured ``make reproduce`` run, stage by stage.

    Read from the complete one of ``results/benchmarks/reproduce_walltime*.txt``
    (``perf/reproduce_walltime.py``; the newest record may be a run still in sittings):
    minutes per stage, the notebooks by number, the venv build and the HTML rendering by name; a
    run timed in sittings says so, and a record with the machine's speed (``gflops`` of each
    sitting in the ``.json`` beside it) gives its range. A failed or unfinished run measures nothing a reader can
    repeat, nor does one the machine paused in (its clock ran on while the run did not).
    """
    for path in sorted((results() / "benchmarks").glob("reproduce_walltime*.txt")):
        text = path.read_text()
        head = re.search(r"PROFILE=(\w+), (.*?), from a fresh clone, commit (\w{7})\w*\non (\d+) CPU cores; "
                         r"exit status (\d+)", text)
        if head is not None and head[5] == "0" and "not complete:" not in text and "\npaused: " not in text:
            break
    else:
        return {}
    parts = {}  # label -> seconds; in sittings the venv check and the HTML happen once per sitting
    for name, secs in re.findall(r"^(\S.*?)\s+(\d+)\s+[\d.]+\s+\S+\s+\S+(?:\s+\(sitting \d+\))?$", text, re.M):
        label = stage_label(name)
        parts[label] = parts.get(label, 0) + int(secs)
    parts = [f"{label} {secs / 60:.1f}" for label, secs in sorted(parts.items(), key=lambda kv: kv[0] == "HTML")]
    total = float(re.search(r"^total: ([\d.]+) minutes", text, re.M)[1])
    how = "" if head[2] == "one uninterrupted run" else f", timed in {head[2]},"
    state_path = path.with_suffix(".json")  # the readings, order and notes as data, beside the table
    state = json.loads(state_path.read_text()) if state_path.is_file() else {}
    sittings, notes = state.get("sittings", []), " ".join(state.get("notes", []))  # notes: what a person did, and why
    speed, span = "", _gflops_span(sittings)
    if span:  # a wall time is read with the machine's speed: this CPU's rate drifts between sessions
        when = "its start and end" if not how else "its sittings' starts and ends"
        speed = f"; the machine sustained {span} GFLOPS (fp32 matmul, every core) at {when}"
    caveats = speed + _order(sittings)  # the whole report quotes the notes; the README's line points to them
    out = {"reproduce.whole": (f"a `make reproduce PROFILE={head[1]}` from a fresh clone{how} took {total:.0f} minutes "
                               f"on {head[4]} cores at commit `{head[3]}` (minutes per stage: {', '.join(parts)}){caveats}"
                               f"{f'. By hand: {notes}' if notes else ''}")}
    caveats += "; a note in the record says what was done to it by hand, and why" if notes else ""
    timed = set(re.findall(r"^(\d\d_\w+\.ipynb)\s", text, re.M))
    if head[1] == "cpu" and timed == set(paths.batch_notebooks(results().parent)):  # the batch as it is now, not an older one
        # its notebooks may have changed since: the projection knows which (perf/reproduce_walltime.py --project)
        proj = read_json("benchmarks/reproduce_projection.json") if exists("benchmarks/reproduce_projection.json") else {}
        changed = [r["stage"] for r in proj.get("stages", []) if r.get("source_changed") and r["commit"].startswith(head[3])]
        out["reproduce.measured"] = (f"{total:.0f} minutes on {head[4]} cores, measured: one run from a fresh clone"
                                     f"{' in ' + head[2] + ',' if how else ''} at commit `{head[3]}` (`results/benchmarks/{path.name}`){caveats}"
                                     f"{_changed_since(changed)}")
    return out


def _order(sittings: list[dict]) -> str:
    """``"; out of the Makefile's order: sitting 2 ran 13 ahead of 08, 09"``: sittings that ran a
    notebook before ones the Makefile runs first (``ahead_of``), whose times may then differ."""
    ahead = [f"sitting {i} ran {', '.join(stage_label(n) for n in s['notebooks'])} ahead of "
             f"{', '.join(stage_label(n) for n in s['ahead_of'])}" for i, s in enumerate(sittings, 1) if s.get("ahead_of")]
    return f"; out of the Makefile's order: {'; '.join(ahead)}" if ahead else ""


def reproduce_under_way() -> dict[str, str]:
    """``reproduce.under_way``: a timing still in sittings (a record that says ``not complete``,
    whose sittings all ended cleanly), as a sentence of its own; ``""`` when there is none."""
    for path in sorted((results() / "benchmarks").glob("reproduce_walltime*.json")):
        state = json.loads(path.read_text())
        # a sitting that failed, or never said how it ended (null: killed), leaves no timing to go on with
        if state.get("complete") or any(s["exit_status"] != 0 for s in state["sittings"]) or not state["stages"]:
            continue
        done = [s for s in state["stages"] if s["stage"].endswith(".ipynb")]
        span = _gflops_span(state["sittings"])
        speed = f", the machine sustaining {span} GFLOPS" if span else ""
        minutes = sum(s["seconds"] for s in state["stages"]) / 60
        return {"reproduce.under_way": (
            f" A timing of the batch at commit `{state['commit'][:7]}` is under way in sittings "
            f"(`results/benchmarks/{path.with_suffix('.txt').name}`): notebooks "
            f"{', '.join(stage_label(s['stage']) for s in done)} and their stages took {minutes:.1f} minutes on {state['cpu_count']} "
            f"cores{speed}; {', '.join(stage_label(n) for n in state['remaining'])} "
            f"{'is' if len(state['remaining']) == 1 else 'are'} still to run.")}
    return {"reproduce.under_way": ""}


def gpu_projection() -> dict[str, str]:
    """``gpu.projection``: ``make reproduce PROFILE=gpu``'s projected hours per box, from
    ``results/benchmarks/gpu_projection.json`` (``perf/gpu_projection.py``)."""
    if not exists("benchmarks/gpu_projection.json"):
        return {}
    boxes = read_json("benchmarks/gpu_projection.json")["boxes"]
    return {"gpu.projection": "; ".join(
        f"{box}: {b['total_hours']:.1f} h (worst case {b['worst_total_hours']:.1f} h; {b['cpu_bound_hours']:.1f} h of it "
        f"CPU-bound, at {b['cores_assumed']} cores)" for box, b in boxes.items())}


def rehearsal_time() -> dict[str, str]:
    """``rehearsal.time``: the wall time of ``make rehearse``, from ``results/benchmarks/rehearsal.json``
    (``.ci/batch.py --rehearse --record``), with the commit and the load it ran under."""
    if not exists("benchmarks/rehearsal.json"):
        return {}
    r = read_json("benchmarks/rehearsal.json")
    load = f"load average {r['load_average_start'][0]:.1f} at its start, {r['load_average_end'][0]:.1f} at its end"
    return {"rehearsal.time": (f"{r['wall_time_s'] / 60:.0f} minutes on {r['hardware']['cpu_count']} cores, measured at "
                               f"commit `{r['git_sha'][:7]}` ({load}; `results/benchmarks/rehearsal.json`)")}


def _changed_since(stages: list[str]) -> str:
    """``"; notebooks 08 and 09 changed since they were timed ..."``, or ``""`` when none did."""
    if not stages:
        return ""
    many = len(stages) > 1
    return (f"; {'notebooks' if many else 'notebook'} {' and '.join(stage_label(s) for s in stages)} changed since "
            f"{'they were' if many else 'it was'} timed (the source differs from the timed commit's), so "
            f"{'their times are' if many else 'its time is'} of an earlier version")


def _on_machines(p: dict) -> str:
    """``". Timings from machines of different speed are tied ..."``: the projection brought to each
    timing's machine by the ratio of the times of the notebooks both ran like for like; ``""``
    when the projection has no such ratio."""
    ratios, on = p.get("speed_ratios", []), p.get("total_min_on", {})
    if not ratios or not on:
        return ""
    newest = next(iter(on))[:7]
    tied = "; ".join(f"`{newest}`'s run took {r['ratio']:.2f} times `{r['commit'][:7]}`'s on the same work "
                     f"({r['low']:.2f}–{r['high']:.2f} over notebooks {', '.join(stage_label(s) for s in r['stages'])}: "
                     f"same source, same notebooks before them)" for r in ratios)
    totals = ", ".join(f"{m:.0f} minutes on the machine of the `{c[:7]}` timing" for c, m in on.items())
    return (f". Timings from machines of different speed are tied by a ratio: {tied}. "
            f"Brought to each machine by its ratio, the sum is {totals}")


def reproduce_projection() -> dict[str, str]:
    """``reproduce.projection`` (the batch's time from the latest timing of each stage) and
    ``reproduce.minutes`` (its total alone), from ``results/benchmarks/reproduce_projection.json``,
    with the notebooks whose source changed since their timing."""
    if not exists("benchmarks/reproduce_projection.json"):
        return {}
    p = read_json("benchmarks/reproduce_projection.json")
    by_commit: dict[str, list[str]] = {}
    for row in p["stages"]:
        own = " (cells only, its own record)" if row.get("own_record") else ""
        by_commit.setdefault(row["commit"][:7], []).append(f"{stage_label(row['stage'])} {row['seconds'] / 60:.1f}{own}")
    parts = "; ".join(f"at `{c}`: {', '.join(v)}" for c, v in by_commit.items())
    bound = "at least " if p["lower_bound"] else ""
    cores = "/".join(map(str, p["cpu_count"]))
    since = _changed_since(p.get("changed_since_timed", []))
    return {"reproduce.projection": (f"projected at {bound}{p['total_min']:.0f} minutes on {cores} cores from the latest "
                                     f"timing of each of its stages (minutes per stage {parts}){since}"
                                     f"{_on_machines(p)}"),
            "reproduce.minutes": f"{bound}{p['total_min']:.0f} minutes on {cores} cores",
            "reproduce.on_machines": "".join(  # the same batch on the machines of the older timings
                f"; brought to the machine of the `{r['commit'][:7]}` timing by the two timings' ratio on the same work "
                f"({r['ratio']:.2f}, {r['low']:.2f}–{r['high']:.2f}), it projects at {p['total_min_on'][r['commit']]:.0f} "
                f"minutes (`results/benchmarks/reproduce_projection.json`)"
                for r in p.get("speed_ratios", []) if r["commit"] in p.get("total_min_on", {}))}


def notebook_times() -> dict[str, str]:
    """Notebook time from the records' ``wall_time_s``, notebook 04 alone, and notebook 03's training."""
    walls = {p.name: read_json(p.name)["wall_time_s"] for p in sorted(results().glob("[0-9][0-9]_*.json"))}
    bench = read_json("04_benchmark.json")
    cores = bench["provenance"]["hardware"]["cpu_count"]
    train = read_json("03_training.json")["metrics"]
    secs = [m["train_s"] for m in train["models"]]
    return {"time.notebooks": f"{sum(walls.values()) / 60:.0f} minutes of notebook time on {cores} cores",
            "time.notebook04": f"notebook 04 alone: {bench['wall_time_s'] / 60:.1f} minutes",
            "time.training": (f"{len(secs)} seeds of {train['models'][0]['steps']} steps, "
                              f"{min(secs):.0f}–{max(secs):.0f} s each")}


def scoring_floor() -> dict[str, str]:
    """``floor.*``: Table-1 scoring against its FLOP floor (``results/benchmarks/scoring_floor.json``)."""
    sf = read_json("benchmarks/scoring_floor.json")
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
    es = {r["task"]: r for r in read_json("benchmarks/exact_search.json")["rows"]}["yago"]
    out["speed.exact_search"] = (
        f"the exact top-1 search of YAGO's {es['queries']:,} mentions among its {es['names']:,} names takes a median "
        f"{statistics.median(es['top1_s']):.1f} s on torch's matrix products ({es['top1_ratio']:.2f} times its FLOP "
        f"floor) against {statistics.median(es['faiss_s']):.1f} s with faiss's `IndexFlatIP` "
        f"({es['faiss_ratio']:.2f} times), with the same answer on {100 * es['same_answers']:.0f} % of the queries")
    tb = read_json("benchmarks/token_budget.json")
    tm = {m: v["budgets"] for m, v in tb["models"].items()}
    out["speed.token_budget"] = (
        f"Median seconds to encode {tb['phrases']:,} distinct Table-1 phrases at 1,024, 2,048, 4,096 and 8,192 "
        f"tokens a batch: " + "; ".join(
            f"{label} " + ", ".join(f"{tm[m][b]['median_s']:.1f}" for b in ("1024", "2048", "4096", "8192"))
            + f" ({tm[m]['8192']['median_s'] / tm[m]['4096']['median_s']:.2f} times faster at 4,096 than at 8,192; "
            f"{tm[m]['4096']['ratio_to_floor']:.2f} times the FLOP floor)"
            for m, label in (("minilm", "MiniLM"), ("pearl-minilm-seed0", "PEARL seed 0")))
        + ". The vectors differ by at most "
        + f"{max(b['max_abs_diff'] for v in tm.values() for b in v.values()):.1e} across budgets")
    tt = read_json("train_throughput.json")
    out["speed.training"] = (f"{tt['phrases_per_s']['ours']} against {tt['phrases_per_s']['naive']} phrases/s over "
                             f"{tt['steps']} steps, a ratio of {tt['ratio']:.2f}")
    if exists("benchmarks/corpus_build.json"):
        cb = read_json("benchmarks/corpus_build.json")
        m = cb["methods"]
        out["speed.corpus_build"] = (
            f"{m['build']['tokens_per_s']:,.0f} tokens/s with {cb['n_process']} processes against "
            f"{m['plain']['tokens_per_s']:,.0f} for the plain single-process pipe ({cb['speedup_build_vs_plain']:.2f}x), "
            f"load average {cb['load_average_start'][0]:.1f} to {cb['load_average_end'][0]:.1f} on {cb['cpu_count']} cores")
    lat = read_json("06_explorer.json")["metrics"]
    out["speed.explorer"] = (f"Median update latency is {lat['update_latency_ms']['median_ms']} ms for "
                             f"{lat['latency_candidates']} candidates (p90 {lat['update_latency_ms']['p90_ms']} ms; "
                             f"{lat['update_latency_ranking_only_ms']['median_ms']} ms for the ranking alone)")
    return out


def all_sentences() -> dict[str, str]:
    return {**reproduce_time(), **reproduce_under_way(), **reproduce_projection(), **gpu_projection(), **rehearsal_time(), **notebook_times(),
            **scoring_floor(), **speed()}


if __name__ == "__main__":  # pragma: no cover
    print(json.dumps(all_sentences(), indent=1, ensure_ascii=False))
