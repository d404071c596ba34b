"""The batch's time from its records, beside this machine's speed.

    .venv/bin/python perf/reproduce_walltime.py [--no-rate]

Each notebook's record (``results/NN_*.json``) holds its own wall time (``wall_time_s``: its
cells, without the kernel's start). This script adds up those of the notebooks ``make reproduce``
runs (``notebooks/ORDER`` less ``notebooks/SEPARATE``), in the batch's order, and prints them
with the commit each ran at, then this machine's sustained fp32 matmul rate in GFLOPS
(``perf/scoring_floor.py``'s ``matmul_rate``, a few seconds): a wall time is the machine's as
much as the code's. The report's sentence on the batch's time is the same sum
(``harness.report.timings.batch_time``). It runs nothing and writes nothing.

What it leaves out: the venv build, the kernels' starts and the HTML rendering, which no record
holds; and a record whose notebook found its models trained or its scores cached holds only the
time it took. To re-time a notebook whose cost changed, run it alone
(``make reproduce NOTEBOOKS=NN_name.ipynb FRESH=1``): its record is rewritten with its wall time.
Never time the whole batch to prove a bound.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "lib"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness.report.timings import batch_records, batch_total  # noqa: E402  (lib on the path first)


def table(rows: list[dict], missing: list[str], gflops: float | None) -> str:
    """The records as a table: notebook, minutes, commit; the total; the machine's rate."""
    lines = [f"{'notebook':<28}{'minutes':>9}  commit"]
    lines += [f"{r['notebook']:<28}{r['seconds'] / 60:>9.1f}  {r['commit']}" for r in rows]
    total, cores = batch_total(rows)
    lines += ["", f"batch: {'at least ' if missing else ''}{total:.1f} minutes on {cores} cores (records' cells only)"]
    if missing:
        lines.append(f"no record with a wall time: {', '.join(missing)}")
    if gflops is not None:
        lines.append(f"this machine: {gflops:.0f} GFLOPS sustained (fp32 matmul 2048 x 2048, every core)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--no-rate", action="store_true", help="leave out the matmul measurement")
    args = ap.parse_args(argv)
    rows, missing = batch_records()
    gflops = None
    if not args.no_rate:
        from scoring_floor import matmul_rate  # torch and the scorers: loaded only to measure

        gflops = matmul_rate() / 1e9
    print(table(rows, missing, gflops))
    return 0


if __name__ == "__main__":
    sys.exit(main())
