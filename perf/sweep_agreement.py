"""How far the sweep suite's scores sit from Table 1's exact ones, for the same models.

Reads what the notebooks already wrote, scores nothing: the exact scores of MiniLM and the three
PEARL seeds (``results/table1.csv``, notebook 04) and their sweep-suite scores (the full recipe's
rows of ``results/08_ablations.json`` and MiniLM's of ``results/09_backbones.json``). Prints,
per model, the five task groups and their average exact vs sweep, and whether PEARL − MiniLM
(mean over seeds) has the same sign on the sweep suite as on the exact pass, per group.

    python perf/sweep_agreement.py     # writes results/perf/sweep_agreement.{json,txt}
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from pearl import models
from pearl.benchmark import pools
from pearl.benchmark.tasks import GROUPS, SWEEP
from pearl.atomic import write_atomic
from pearl.provenance import git_sha, write_json

ROOT = Path(__file__).resolve().parents[1]
R = ROOT / "results"


def exact_groups(table: pd.DataFrame, model: str) -> dict:
    scores = table[table["model"] == model].set_index("dataset")["score"]
    if scores.empty:
        raise SystemExit(f"{model} is not in results/table1.csv: run notebook 04 first")
    out = {g: float(np.mean([scores[d] for d in names])) for g, names in GROUPS.items()}
    return {**out, "average": float(np.mean(list(out.values())))}


def main() -> dict:
    table = pd.read_csv(R / "table1.csv")
    ablations = json.loads((R / "08_ablations.json").read_text())["metrics"]["models"]
    originals = json.loads((R / "09_backbones.json").read_text())["metrics"]["originals"]
    sweep = {"minilm": next(r for r in originals if r["recipe"] == "minilm")}
    full = {r["model"]: r for r in ablations if r["recipe"] == ""}  # the full recipe: notebook 03's seeds, by label
    for folder in sorted(set(table["model"])):
        if (parsed := models.parse_folder_name(folder)) and parsed["method"] == "pearl" and not parsed["variant"] \
                and models.label(folder) in full:
            sweep[folder] = full[models.label(folder)]
    columns = [*GROUPS, "average"]
    rows, lines = {}, ["model                 " + "".join(f"{c[:12]:>14}" for c in columns)]
    for model, sw in sweep.items():
        ex = exact_groups(table, model)
        rows[model] = {"exact": ex, "sweep": {c: float(sw[c]) for c in columns},
                       "difference": {c: round(float(sw[c]) - ex[c], 2) for c in columns}}
        lines.append(f"{model:<22}" + "".join(f"{rows[model]['difference'][c]:>+14.2f}" for c in columns))
    seeds = [m for m in rows if m != "minilm"]
    gap = {kind: {c: float(np.mean([rows[m][kind][c] for m in seeds])) - rows["minilm"][kind][c] for c in columns}
           for kind in ("exact", "sweep")}
    same = {c: bool(np.sign(gap["exact"][c]) == np.sign(gap["sweep"][c])) for c in columns}
    largest = max(abs(rows[m]["difference"]["average"]) for m in rows)
    lines[0] = "sweep minus exact, per group and average (five groups' mean):\n" + lines[0]
    lines += ["", "PEARL (mean of seeds) - MiniLM, exact vs sweep:"]
    lines += [f"  {c:<27} exact {gap['exact'][c]:+6.2f}  sweep {gap['sweep'][c]:+6.2f}  same sign: {same[c]}" for c in columns]
    lines += ["", f"largest |sweep - exact| on the average: {largest:.2f}; same sign of PEARL - MiniLM on "
              f"{sum(same[c] for c in GROUPS)} of {len(GROUPS)} groups"]
    design = (f"sweep suite: {SWEEP['retrieval']:,} queries per retrieval dictionary and at most "
              f"{SWEEP['autofj_queries']} per AutoFJ table (all 50 tables), each searched in a pool of its gold names, "
              f"its {pools.K_LEXICAL} nearest names by character 3-gram TF-IDF and its {pools.K_SEMANTIC} nearest by "
              f"the untrained {pools.REFERENCE}; PPDB with {len(SWEEP['probe_seeds'])} probe seed")
    lines = [design, "", *lines]
    text = "\n".join(lines)
    print(text)
    record = {"design": design, "models": rows, "pearl_minus_minilm": gap, "same_sign": same, "largest_average_difference": round(largest, 2),
              "sources": ["results/table1.csv", "results/08_ablations.json", "results/09_backbones.json"], "git_sha": git_sha()}
    write_json(R / "perf" / "sweep_agreement.json", record, indent=1)
    write_atomic(R / "perf" / "sweep_agreement.txt", text + "\n")
    return record


if __name__ == "__main__":
    main()
