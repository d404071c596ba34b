"""Wall time of a whole ``make reproduce``, notebook by notebook, each notebook timed in one piece.

    python3 perf/reproduce_walltime.py [--profile cpu] [--until NN] [--resume [--only NN ...]]

Run it in a fresh clone (``../shared`` beside it, nothing else running on the machine): it
starts ``make reproduce`` itself, so the venv build, every notebook and the HTML rendering are
all inside the measured time. It stamps each ``== <notebook>`` line that the Makefile prints
when a notebook starts, and writes the table (seconds per stage, elapsed at its end, the load
average sampled every 30 s, mean and max per stage) to ``--out`` atomically, with the commit
and the exit status, and the stages as JSON beside it (``.json``). The full log goes to
``--log``. It measures; it changes nothing the run does.

Beside the times it records the machine's speed at each sitting's start and end, outside the
timed stages: the sustained fp32 rate of a 2048 x 2048 matmul on every core
(``perf/scoring_floor.py``'s ``matmul_rate``, in the venv; a sitting that builds the venv has no
start reading). This CPU's rate drifts from session to session, and a wall time read without
it would compare two machines as one.

The batch is ``notebooks/ORDER`` less ``notebooks/SEPARATE`` (notebooks with a make target of
their own), as in the Makefile. A run may be timed in **sittings** on the same clone and commit:
``--until 07`` stops after notebook 07 (``make reproduce NOTEBOOKS=...``, HTML of those
included), ``--resume`` goes on with the notebooks not yet timed, and ``--resume --only 09 12``
times just those of them. Each notebook still runs once, whole, in one process, and notebooks
share nothing but files on disk, so in the Makefile's order the sum of the stage times is the
time of one uninterrupted run; the table says how many sittings there were. Out of that order
(``--only`` skipping a notebook the Makefile runs first) the work is the same but its time may
not be: a notebook trains what it finds untrained, side by side in two workers, so work that the
Makefile's order runs beside a long job (09 trains me5-small's seeds beside mlm-wiki's
pretraining) can run with a core idle when another notebook (13) got to it first. The sitting
records which notebooks it ran ahead of (``ahead_of``) and the table says so; a record re-timed
by hand names, per sitting, notebooks whose files were on disk though it times them later
(``after``), and :func:`speed_ratio` counts them among the notebooks run before. A stage that failed or was cut
short is not kept: ``--resume`` cannot time a notebook that a killed sitting had half done
(it would reuse that half's models), so it refuses, and the fix is a fresh clone. A sitting is
on record (exit status null) from its start, so even one killed without warning is refused.

The load sampler doubles as a watch on the clock: a stage in which it went :data:`PAUSE_S`
seconds without a sample was not running all that time (the machine was suspended, say between
two sessions on a machine that persists), so the table says so, the report does not quote the
record, and a projection takes that stage from an older record. A projection also says which
notebooks changed since they were timed (``notebooks/src/NN.py`` differs from the timed commit's).

It uses the standard library alone (and :mod:`pearl.paths`, which does too), and so writes its
files atomically itself rather than with ``pearl.atomic.write_atomic``: it starts before ``make``
has built the venv that holds pearl's dependencies.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
from pearl.paths import batch_notebooks  # noqa: E402  (standard library only, like this script)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


#: the venv's Python prints the machine's sustained matmul rate in GFLOPS (perf/scoring_floor.py)
RATE = "import sys; sys.path.insert(0, 'perf'); from scoring_floor import matmul_rate; print(matmul_rate() / 1e9)"


def _write_state(path: Path, state: dict) -> None:
    """The record's state (the ``.json`` beside the table), as strict JSON, atomically."""
    _write(path, json.dumps(state, indent=1, allow_nan=False) + "\n")


def machine_rate(python: Path = Path(".venv/bin/python")) -> float | None:
    """GFLOPS of :data:`RATE`; ``None`` before the venv exists or when the reading fails (a
    wall time without its reading is still a wall time)."""
    if not python.exists():
        return None
    try:
        out = subprocess.run([str(python), "-c", RATE], capture_output=True, text=True, timeout=600)
        return round(float(out.stdout.split()[-1]), 1)
    except (subprocess.SubprocessError, ValueError, IndexError):
        return None


#: seconds between two load samples, and the gap inside a stage that says the clock ran on without the run
SAMPLE_S, PAUSE_S = 30, 120


def stage_rows(stages: list[tuple[str, float]], end: float, samples: list[tuple[float, float]]) -> list[dict]:
    """One row per stage from its start times (``end``: the last one's end) and the load samples:
    seconds, mean and max load, and the longest stretch without a sample (``max_gap_s``)."""
    out = []
    for (name, t), e in zip(stages, [t for _, t in stages[1:]] + [end]):
        inside = [(at, v) for at, v in samples if t <= at < e]
        marks = [t, *(at for at, _ in inside), e]
        loads = [v for _, v in inside]
        out.append({"stage": name, "seconds": round(e - t, 1), "mean_load": sum(loads) / len(loads) if loads else None,
                    "max_load": max(loads) if loads else None,
                    "max_gap_s": round(max(b - a for a, b in zip(marks, marks[1:])), 1)})
    return out


def paused(stage: dict) -> bool:
    """Whether the sampler missed so many samples inside ``stage`` that its time is not a run's."""
    return (stage.get("max_gap_s") or 0) > PAUSE_S


def _sitting(notebooks: list[str], profile: str, log_path: Path) -> tuple[list[dict], int]:
    """Run ``make reproduce`` on ``notebooks``; (finished stages, exit status)."""
    samples, done = [], threading.Event()

    def sample():  # a stage whose load sits well above the run's two workers shared the cores
        while not done.wait(SAMPLE_S):
            samples.append((time.time(), os.getloadavg()[0]))

    threading.Thread(target=sample, daemon=True).start()
    stages = [("venv build and system packages", time.time())]
    with open(log_path, "a") as log:
        proc = subprocess.Popen(["make", "reproduce", f"PROFILE={profile}", f"NOTEBOOKS={' '.join(notebooks)}"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in proc.stdout:
            log.write(line)
            log.flush()
            word = (line[3:].split() or [""])[0] if line.startswith("== ") else ""
            if word.endswith(".ipynb"):  # "== <notebook> <papermill args>"; "== commit ..." is not a stage
                stages.append((word, time.time()))
            elif "jupyter nbconvert" in line and stages[-1][0] != "html":  # make echoes the command
                stages.append(("html", time.time()))
            elif "pearl.display.site" in line and stages[-1][0] != "site":  # `make site`, the last stage
                stages.append(("site", time.time()))
        rc = proc.wait()
    done.set()
    out = stage_rows(stages, time.time(), samples)
    if rc != 0:
        out.pop()  # the stage running when make failed did not finish
    return out, rc


def batch(root: Path = Path(".")) -> list[str]:
    """The notebooks ``make reproduce`` runs, in order (:func:`pearl.paths.batch_notebooks`)."""
    return batch_notebooks(root)


#: stages that every sitting repeats (its own venv check, HTML of its notebooks, site): one run has each once
ONCE_PER_RUN = ("venv build and system packages", "html", "site")


def own_records(notebooks: list[str], results: Path = Path("results")) -> dict:
    """A stand-in record of the notebooks' own wall times (``results/NN_*.json``, ``wall_time_s``):
    the notebook's cells alone, without the kernel's start, for a stage no timed sitting has."""
    stages = []
    for nb in notebooks:
        path = results / nb.replace(".ipynb", ".json")
        if path.is_file() and (rec := json.loads(path.read_text())).get("wall_time_s") is not None:
            stages.append({"stage": nb, "seconds": rec["wall_time_s"], "own_record": True,
                           "commit": rec["provenance"]["git_sha"]})
    return {"commit": "", "cpu_count": os.cpu_count(), "stages": stages}


def project(records: list[dict], notebooks: list[str]) -> dict:
    """The batch ``notebooks`` would take, from the latest measurement of each stage.

    ``records`` are the states written beside the tables (``.json``), newest first. A notebook's
    time is the first record's that timed it; a stage repeated per sitting (:data:`ONCE_PER_RUN`)
    counts once, at its longest in that record (the first sitting's venv build is the real one).
    Stages no record timed are listed as missing and make the total a lower bound; a stage the
    machine paused in (:func:`paused`) counts as not timed by that record. It adds times measured
    at different commits: what it gives is a projection, and says so with each source.
    """
    rows, missing = [], []
    for stage in [ONCE_PER_RUN[0], *notebooks, *ONCE_PER_RUN[1:]]:
        for rec in records:
            hits = [s for s in rec["stages"] if s["stage"] == stage and not paused(s)]
            if hits:  # own records carry a commit per stage
                rows.append({"stage": stage, "seconds": max(s["seconds"] for s in hits),
                             "commit": hits[0].get("commit", rec["commit"]), "own_record": bool(hits[0].get("own_record"))})
                break
        else:
            missing.append(stage)
    total = sum(r["seconds"] for r in rows)
    return {"notebooks": notebooks, "stages": rows, "missing": missing, "total_s": round(total, 1),
            "total_min": round(total / 60, 1), "commits": sorted({r["commit"] for r in rows}),
            "cpu_count": sorted({rec["cpu_count"] for rec in records}), "lower_bound": bool(missing)}


def source_changed(stage: str, commit: str, root: Path = Path("."), against: str = "HEAD") -> bool | None:
    """Whether notebook ``stage``'s source (``notebooks/src/NN.py``) differs between ``commit`` and
    ``against``; ``None`` for a stage that is not a notebook, or a commit this clone does not have."""
    if not stage.endswith(".ipynb") or not commit:
        return None
    src = f"notebooks/src/{stage.removesuffix('.ipynb')}.py"
    rc = subprocess.run(["git", "diff", "--quiet", commit, against, "--", src], cwd=root, capture_output=True).returncode
    return {0: False, 1: True}.get(rc)


def speed_ratio(new: dict, old: dict, root: Path = Path(".")) -> dict | None:
    """How many times longer record ``new``'s run took than record ``old``'s on the same work: the
    median, lowest and highest ratio of their times over the notebooks that are like for like in
    both (``None`` when none is). Two records timed on machines of different speed add up only
    through such a ratio, and it is itself a measurement, not the machines' spec sheet.

    Like for like: a notebook of a minute or more in both, paused in neither, with the same source
    at both commits and the same notebooks run before it (a notebook reuses what earlier ones left
    on disk: one that ran first in one record may train what it read from disk in the other). The
    library's code may still differ between the commits; the spread of the ratios shows how much
    that, and the kind of work (matmul or memory), moves them.
    """
    def timed(rec):
        # a sitting's ``after``: notebooks whose files were on disk when it started though the record
        # times them later (a record re-timed by hand says so in its notes)
        after = {i: frozenset(x.get("after", [])) for i, x in enumerate(rec.get("sittings", []), 1)}
        out, before = {}, frozenset()
        for s in rec["stages"]:
            if s["stage"].endswith(".ipynb"):
                out[s["stage"]] = (s, before | after.get(s.get("sitting"), frozenset()))
                before = before | {s["stage"]}
        return out

    olds, pairs = timed(old), []
    for stage, (s, before) in timed(new).items():
        o, o_before = olds.get(stage, (None, None))
        if (o is not None and before == o_before and min(s["seconds"], o["seconds"]) >= 60
                and not paused(s) and not paused(o)
                and source_changed(stage, old["commit"].removesuffix("-dirty"), root,
                                   new["commit"].removesuffix("-dirty")) is False):
            pairs.append((stage, s["seconds"] / o["seconds"]))
    if not pairs:
        return None
    ratios = sorted(r for _, r in pairs)
    return {"commit": old["commit"], "ratio": round(statistics.median(ratios), 3), "low": round(ratios[0], 3),
            "high": round(ratios[-1], 3), "stages": [st for st, _ in pairs]}


def on_machines(proj: dict, newest: dict, ratios: list[dict]) -> dict:
    """The projected total in minutes on the machine of each record a ratio ties to the newest
    (``{commit: minutes}``, the newest first): every stage brought to the newest record's machine
    by its record's ratio, then to each other machine by that one's. Empty when a stage comes from
    a record no ratio ties in (its machine's speed is unknown)."""
    by_commit = {newest["commit"]: 1.0} | {r["commit"]: r["ratio"] for r in ratios}  # the newest first
    if any(row["commit"] not in by_commit for row in proj["stages"]):
        return {}
    at_newest = sum(row["seconds"] * by_commit[row["commit"]] for row in proj["stages"])
    return {c: round(at_newest / r / 60, 1) for c, r in by_commit.items()}


def render(state: dict) -> str:
    """The stage table of ``state`` (the ``.json`` beside the table)."""
    n = len(state["sittings"])
    how = "one uninterrupted run" if n == 1 else f"{n} sittings, each notebook timed once, whole"
    # a sitting stopped by --until exits 0: an unfinished run is said by the "not complete" line, not here
    rc = next((s["exit_status"] for s in state["sittings"] if s["exit_status"]), 0)
    lines = [f"make reproduce PROFILE={state['profile']}, {how}, from a fresh clone, commit {state['commit']}",
             f"on {state['cpu_count']} CPU cores; exit status {rc}; 1-minute load average sampled every 30 s", "",
             f"{'stage':<36}{'seconds':>10}{'elapsed min':>14}{'mean load':>11}{'max load':>10}"]
    def fmt(v):
        return f"{v:.2f}" if v is not None else "nan"

    elapsed = 0.0
    for s in state["stages"]:
        elapsed += s["seconds"]
        sitting = f"   (sitting {s['sitting']})" if n > 1 else ""
        lines.append(f"{s['stage']:<36}{s['seconds']:>10.0f}{elapsed / 60:>14.1f}{fmt(s['mean_load']):>11}"
                     f"{fmt(s['max_load']):>10}{sitting}")
    rates = [(i, s["gflops"]) for i, s in enumerate(state["sittings"], 1) if any(s.get("gflops") or [])]
    if rates:  # "n/a": no reading (the sitting built the venv)
        def g(v):
            return f"{v:.0f}" if v is not None else "n/a"

        lines += ["", "machine: sustained fp32 matmul (2048 x 2048, every core), GFLOPS at start / end of "
                  + "; ".join(f"{'the run' if n == 1 else f'sitting {i}'}: {g(a)} / {g(b)}" for i, (a, b) in rates)]
    if not state["complete"]:
        lines += ["", "not complete: " + ", ".join(state["remaining"]) + " still to run (--resume)"]
    lines += [f"paused: {s['stage']} went {s['max_gap_s']:.0f} s without a load sample (every {SAMPLE_S} s): the "
              f"clock ran on while the run did not (a suspended machine), so its time is not a run's time"
              for s in state["stages"] if paused(s)]
    lines += [f"order: sitting {i} ran {', '.join(s['notebooks'])} ahead of {', '.join(s['ahead_of'])}, which the "
              f"Makefile runs first: the work is the same, its time may not be (see perf/reproduce_walltime.py)"
              for i, s in enumerate(state["sittings"], 1) if s.get("ahead_of")]
    lines += [f"order: sitting {i} started with what {', '.join(s['after'])} had written on disk, though this record "
              f"times {'them' if len(s['after']) > 1 else 'it'} later" for i, s in enumerate(state["sittings"], 1) if s.get("after")]
    lines += [f"note: {note}" for note in state.get("notes", [])]  # what a person did to the record, and why
    lines += ["", f"total: {elapsed / 60:.1f} minutes ({elapsed:.0f} s)"]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="cpu")
    ap.add_argument("--out", default="results/benchmarks/reproduce_walltime.txt")
    ap.add_argument("--log", default="results/executed/reproduce.log")
    ap.add_argument("--until", help="stop after this notebook (its number, e.g. 07)")
    ap.add_argument("--resume", action="store_true", help="time the notebooks an earlier sitting left")
    ap.add_argument("--only", nargs="+", metavar="NN", help="with --resume: time only these of them (numbers)")
    ap.add_argument("--project", nargs="+", metavar="OLDER.json", help="write the batch's projected time from "
                    "--out's record and these older ones (newest first) to reproduce_projection.json; time nothing")
    ap.add_argument("--own-records", action="store_true", help="with --project: a notebook no record timed "
                    "takes its own results file's wall time (cells only), labelled so")
    args = ap.parse_args(argv)
    if args.project:
        paths = [Path(args.out).with_suffix(".json"), *map(Path, args.project)]
        records = [json.loads(p.read_text()) for p in paths]
        proj = project(records + ([own_records(batch())] if args.own_records else []), batch())
        proj["records"] = [str(p) for p in paths]
        for row in proj["stages"]:  # a time measured on an earlier version of the notebook
            row["source_changed"] = source_changed(row["stage"], row["commit"].removesuffix("-dirty"))
        proj["changed_since_timed"] = [r["stage"] for r in proj["stages"] if r["source_changed"]]
        # records from machines of different speed: tie each older one to the newest by the work both did
        proj["speed_ratios"] = [r for old in records[1:] if old["commit"] and (r := speed_ratio(records[0], old))]
        proj["total_min_on"] = on_machines(proj, records[0], proj["speed_ratios"])
        from pearl.provenance import git_sha  # the venv exists by now: projecting runs nothing

        proj["commit"] = git_sha()  # the code and records it added up, "-dirty" as for every record
        dest = Path(args.out).with_name("reproduce_projection.json")
        _write(dest, json.dumps(proj, indent=1, allow_nan=False) + "\n")
        for r in proj["stages"]:
            print(f"{r['stage']:<36}{r['seconds']:>10.0f}  {r['commit'][:7]}{'  (changed since)' if r['source_changed'] else ''}")
        for r in proj["speed_ratios"]:
            print(f"{records[0]['commit'][:7]}'s run / {r['commit'][:7]}'s on the same work: {r['ratio']:.2f} "
                  f"(median; {r['low']:.2f}-{r['high']:.2f} over {', '.join(r['stages'])})")
        print(f"projected: {proj['total_min']:.1f} minutes" + (f"; not timed: {', '.join(proj['missing'])}"
                                                             if proj["missing"] else "") + f" -> {dest}")
        for c, m in proj["total_min_on"].items():
            print(f"  on the machine of {c[:7]}'s timing: {m:.1f} minutes")
        return 0
    if args.only and not args.resume:
        sys.exit("--only picks among the notebooks an earlier sitting left: use it with --resume")

    out, state_path = Path(args.out), Path(args.out).with_suffix(".json")
    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    order = batch()
    if args.resume:
        if not state_path.is_file():
            sys.exit(f"--resume: no {state_path} from an earlier sitting; run without --resume first")
        state = json.loads(state_path.read_text())
        if state["commit"] != commit or state["profile"] != args.profile:
            sys.exit(f"--resume: {state_path} timed commit {state['commit'][:7]} at profile {state['profile']}, "
                     f"this is {commit[:7]} at {args.profile}; start again in a fresh clone")
        if state["sittings"][-1]["exit_status"] != 0:  # null: killed before it could say how it ended
            sys.exit(f"--resume: the last sitting failed or was killed inside a notebook, whose half-done work "
                     f"a resumed notebook would reuse; time the run again from a fresh clone")
    else:
        state = {"profile": args.profile, "commit": commit, "cpu_count": os.cpu_count(), "sittings": [],
                 "stages": [], "remaining": order, "complete": False}
    state["remaining"] = [nb for nb in state["remaining"] if nb in order]  # a notebook made SEPARATE since
    todo = state["remaining"]
    if args.only:
        todo = [nb for nb in todo if any(nb.startswith(n) for n in args.only)]
    if args.until:
        todo = todo[:1 + next((i for i, nb in enumerate(todo) if nb.startswith(args.until)), len(todo))]
    if not todo:
        sys.exit("nothing left to time: " + ("the run is complete" if state["complete"] else f"no notebook {args.until}"))
    Path(args.log).parent.mkdir(parents=True, exist_ok=True)
    sitting = len(state["sittings"]) + 1
    rate = machine_rate()  # outside the timed stages, as the reading at the end
    # the sitting is on record before it starts: one killed outside Python's reach (a machine
    # suspended or a session ended) leaves exit status null, which --resume refuses like a failure
    # the notebooks the Makefile runs before some of this sitting's, left for later (--only)
    ahead_of = [nb for nb in state["remaining"][:state["remaining"].index(todo[-1])] if nb not in todo]
    entry = {"notebooks": todo, **({"ahead_of": ahead_of} if ahead_of else {})}
    _write_state(state_path, {**state, "sittings": [*state["sittings"], {**entry, "exit_status": None,
                                                                          "gflops": [rate, None]}]})
    stages, rc = _sitting(todo, args.profile, Path(args.log))
    gflops = [rate, machine_rate()]
    timed = {s["stage"] for s in stages}
    state["stages"] += [{**s, "sitting": sitting} for s in stages]
    state["sittings"].append({**entry, "exit_status": rc, "gflops": gflops})
    state["remaining"] = [nb for nb in state["remaining"] if nb not in timed]
    state["complete"] = rc == 0 and not state["remaining"]
    _write_state(state_path, state)
    table = render(state)
    _write(out, table)
    print(table)
    return rc


if __name__ == "__main__":
    sys.exit(main())
