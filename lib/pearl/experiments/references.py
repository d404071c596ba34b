"""What the discrepancy study's gains are set against: the paper's own gain (PEARL-small over
E5-small, from its Table 1 rows, per task group).

What it leaves out: our gains (:mod:`pearl.experiments.discrepancy`), the figure that puts them
side by side (:mod:`pearl.display.discrepancy`), and a run of ours read back from its record (the
harness's ``harness.committed.gpu_points``).
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
