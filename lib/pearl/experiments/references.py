"""What the discrepancy study's gains are set against: the paper's own gain (PEARL-small over
E5-small, from its Table 1 rows, per task group) and the one GPU run of this companion.

What it leaves out: our gains (:mod:`pearl.experiments.discrepancy`), the figure that puts them
side by side (:mod:`pearl.display.discrepancy`).
"""
from __future__ import annotations

import numpy as np

from ..benchmark.tasks import GROUPS, TASKS


def paper_gains(pearl: str = "PEARL-small", backbone: str = "E5-small") -> dict:
    """The paper's gain of ``pearl`` over ``backbone`` from its Table 1 rows: per task group, on
    the five groups' average (our "average"), and on its printed nine-dataset average ("Avg")."""
    from ..benchmark import paper

    t = paper.wide(1)
    # each task names the paper's column it re-runs
    diff = {d: float(t.at[pearl, TASKS[d].column] - t.at[backbone, TASKS[d].column]) for names in GROUPS.values()
            for d in names}
    out = {g: float(np.mean([diff[d] for d in names])) for g, names in GROUPS.items()}
    out["average"] = float(np.mean([out[g] for g in GROUPS]))
    out["printed Avg"] = round(float(t.at[pearl, "Avg"] - t.at[backbone, "Avg"]), 10)
    return out


def gpu_points(path) -> list[dict]:
    """The one GPU run (``results/gpu/table1_gpu_profile_seed0.json``: MiniLM and PEARL seed 0 at
    the gpu profile, WikiText-2, the exact Table 1 suite) as gains per group; [] if absent."""
    from pathlib import Path

    from ..provenance import read_record

    path = Path(path)
    if not path.is_file():
        return []
    rows = read_record(path)["rows"]
    score = {(r["model"], r["dataset"]): r["score"] for r in rows}
    trained = next(m for m, _ in score if m != "minilm")
    diff = {d: score[(trained, d)] - score[("minilm", d)] for names in GROUPS.values() for d in names}
    out = {g: float(np.mean([diff[d] for d in names])) for g, names in GROUPS.items()}
    out["average"] = float(np.mean([out[g] for g in GROUPS]))
    return [{"label": "GPU run: MiniLM · WikiText-2 · gpu profile, 214K views (n=1, exact Table 1 suite)", **out}]
