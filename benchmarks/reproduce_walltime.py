"""Wall time of a whole ``make reproduce``, notebook by notebook, measured in one uninterrupted run.

    python3 benchmarks/reproduce_walltime.py [--profile cpu] [--out results/benchmarks/reproduce_walltime.txt]

Run it in a fresh clone (``../shared`` beside it, nothing else running on the machine): it
starts ``make reproduce`` itself, so the venv build, every notebook and the HTML rendering are
all inside the measured time. It stamps each ``== <notebook>`` line that the Makefile prints
when a notebook starts, and writes the table (seconds per stage, elapsed at its end, the load
average sampled every 30 s, mean and max per stage) to ``--out`` atomically when the run is done, with the commit and the exit
status. The full log goes to ``--log``. It measures; it changes nothing the run does.

It uses the standard library alone, and so writes its file atomically itself rather than with
``pearl.provenance.write_atomic``: it starts before ``make`` has built the venv that holds pearl.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", default="cpu")
    ap.add_argument("--out", default="results/benchmarks/reproduce_walltime.txt")
    ap.add_argument("--log", default="results/executed/reproduce.log")
    args = ap.parse_args()

    commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    Path(args.log).parent.mkdir(parents=True, exist_ok=True)
    # the 1-minute load average every 30 s: a stage whose load sits well above the run's own two
    # workers shared the cores with something else, and its time is not clean
    samples, done = [], threading.Event()

    def sample():
        while not done.wait(30):
            samples.append((time.time(), os.getloadavg()[0]))

    threading.Thread(target=sample, daemon=True).start()
    stages, start = [("venv build and system packages", time.time())], time.time()
    with open(args.log, "w") as log:
        proc = subprocess.Popen(["make", "reproduce", f"PROFILE={args.profile}"], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, bufsize=1)
        for line in proc.stdout:
            log.write(line)
            log.flush()
            word = (line[3:].split() or [""])[0] if line.startswith("== ") else ""
            if word.endswith(".ipynb"):  # "== <notebook> <papermill args>"; "== commit ..." is not a stage
                stages.append((word, time.time()))
            elif "jupyter nbconvert" in line and stages[-1][0] != "html":  # make echoes the command
                stages.append(("html", time.time()))
        rc = proc.wait()
    end = time.time()
    done.set()
    ends = [t for _, t in stages[1:]] + [end]
    lines = [f"make reproduce PROFILE={args.profile}, one uninterrupted run from a fresh clone, commit {commit}",
             f"on {os.cpu_count()} CPU cores; exit status {rc}; 1-minute load average sampled every 30 s", "",
             f"{'stage':<36}{'seconds':>10}{'elapsed min':>14}{'mean load':>11}{'max load':>10}"]
    for (name, t), e in zip(stages, ends):
        loads = [v for at, v in samples if t <= at < e] or [float("nan")]
        lines.append(f"{name:<36}{e - t:>10.0f}{(e - start) / 60:>14.1f}{sum(loads) / len(loads):>11.2f}{max(loads):>10.2f}")
    lines += ["", f"total: {(end - start) / 60:.1f} minutes ({end - start:.0f} s)"]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    tmp.write_text("\n".join(lines) + "\n")
    os.replace(tmp, out)
    print("\n".join(lines))
    return rc


if __name__ == "__main__":
    sys.exit(main())
