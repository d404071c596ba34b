"""What verifying the shipped backbone costs: ``pearl.backbones.weights.verify`` on all-MiniLM-L6-v2's
folder (every file its package's RECORD lists, 90.9 MB of weights), against reading the same
bytes without hashing (the floor: hashing cannot be faster than reading) and against the
model load it guards, in one run.

    .venv/bin/python perf/verify_weights.py [--repeats 5] [--out results/perf/verify_weights.json]

Cold: the per-process digest cache emptied before each round (the page cache stays warm, as it
is for a model loaded again). Warm: the cache kept, so a second load of the same folder costs a
``stat`` per file. Rounds alternate; the script prints medians and the ratio to the floor.
"""
from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from pearl.backbones import weights
from pearl.encode import load_hf_model
from pearl.models import default_backbone_path
from pearl.provenance import git_sha, hardware, write_json


def read_all(folder: Path, names) -> int:
    total = 0
    for name in names:
        with (folder / name).open("rb") as fh:
            while chunk := fh.read(1 << 22):
                total += len(chunk)
    return total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    folder = default_backbone_path()
    names = sorted(weights.packaged(folder)[1])
    times = {"read": [], "verify_cold": [], "verify_warm": [], "load_model": []}
    nbytes = 0
    for _ in range(args.repeats):
        t = time.perf_counter()
        nbytes = read_all(folder, names)
        times["read"].append(time.perf_counter() - t)
        weights._DIGESTS.clear()
        t = time.perf_counter()
        weights.verify(folder)
        times["verify_cold"].append(time.perf_counter() - t)
        t = time.perf_counter()
        weights.verify(folder)
        times["verify_warm"].append(time.perf_counter() - t)
        t = time.perf_counter()
        load_hf_model(folder)
        times["load_model"].append(time.perf_counter() - t)
    med = {k: statistics.median(v) for k, v in times.items()}
    record = {
        "what": "pearl.backbones.weights.verify on the shipped backbone against reading its bytes (floor) and loading it",
        "files": len(names), "bytes": nbytes, "repeats": args.repeats,
        "median_s": {k: round(v, 4) for k, v in med.items()},
        "all_s": {k: [round(x, 4) for x in v] for k, v in times.items()},
        "verify_cold_over_read": round(med["verify_cold"] / med["read"], 2),
        "verify_cold_over_load": round(med["verify_cold"] / med["load_model"], 3),
        "git_sha": git_sha(), "hardware": hardware(),
    }
    print(f"{len(names)} files, {nbytes / 1e6:.1f} MB: read {med['read']:.3f} s, verify cold {med['verify_cold']:.3f} s "
          f"({record['verify_cold_over_read']}x the read floor), warm {med['verify_warm'] * 1e3:.2f} ms, "
          f"model load {med['load_model']:.3f} s")
    if args.out:
        write_json(Path(args.out), record)


if __name__ == "__main__":
    main()
