"""Sentences of the discrepancy study (notebook 13, ``make study``; ``results/discrepancy.json``):
the factor that moves PEARL's gain most, pair by pair, the paper's gain beside ours, the largest
single-dataset move and the study's cost. Returns ``{key: sentence}`` (see :mod:`harness.report.timings`).
"""
from __future__ import annotations

import statistics

from .common import exists, num, read_json, strict


def _pair(q: dict) -> str:
    fixed = ", ".join(str(q[c]) for c in ("backbone", "corpus", "budget") if c != q["factor"] and q.get(c))
    p = "" if q["p"] is None else (", p < 0.001" if q["p"] < 0.001 else f", p = {num(q['p'], '.3f')}")
    return (f"{fixed} {num(q['delta_gain'], '+.2f')} ± {num(q['se'], '.2f')} "
            f"({num(q['n_from'])} → {num(q['n_to'])} seeds{p})")


def _s(n: int) -> str:
    return "s" if n != 1 else ""


def sentences() -> dict[str, str]:
    """``study.*``; nothing when notebook 13 has not written its record, *no result* when it lacks a number."""
    return strict(_sentences, "study.", sources=("discrepancy.json",)) if exists("discrepancy.json") else {}


def _sentences() -> dict[str, str]:
    m = read_json("discrepancy.json")["metrics"]
    top, pg = m["largest_factor"], m["paper_gains"]
    mine = [q for q in m["pairs"] if q["factor"] == top["factor"] and q["to"] == top["to"]]
    best = max(m["table"], key=lambda r: r["average_gain"])
    out = {
        "study.top_factor": (f"the factor that moves the gain most is the {top['factor']} ({top['from']} → "
                             f"{top['to']}): "
                             f"{num(top['delta_gain'], '+.2f')} ± {num(top['se'], '.2f')} points on the average gain "
                             f"({num(top['pairs'])} pair{_s(top['pairs'])} of configurations)"),
        "study.pairs": "pair by pair: " + "; ".join(_pair(q) for q in mine),
        "study.paper_gain": (f"The paper's PEARL-small gains {num(pg['printed Avg'], '+.1f')} over E5-small on Table "
                             "1's printed "
                             f"nine-dataset average, {num(pg['average'], '+.2f')} on the average of our five task "
                             "groups"),
        "study.best": (f"The largest average gain, {num(best['average_gain'], '+.2f')} ({best['backbone']}, "
                       f"{best['corpus']}, "
                       f"{best['budget']} budget, {num(best['seeds'])} seed{_s(best['seeds'])}), is "
                       f"{num(100 * best['average_gain'] / pg['average'], '.0f')} % of the paper's "
                       f"{num(pg['average'], '+.2f')} on the "
                       f"same five-group average"),
    }
    t = {(r["backbone"], r["corpus"], r["budget"]): r for r in m["table"]}
    if base := t.get(("minilm", "wikitext2", "cpu")):
        out["study.cpu_profile"] = (f"the cpu profile's own configuration (MiniLM, WikiText-2) gains "
                                    f"{num(base['average_gain'], '+.2f')} (std {num(base['std'], '.2f')}, p = "
                                    f"{num(base['p'], '.3f')}, "
                                    f"{num(base['seeds'])} seeds)")
    for b in dict.fromkeys(r["backbone"] for r in m["table"]):
        rows = [r for r in m["table"] if r["backbone"] == b]
        lo, hi = min(rows, key=lambda r: r["average_gain"]), max(rows, key=lambda r: r["average_gain"])
        out[f"study.range_{b}"] = (f"{b}'s average gain runs from {num(lo['average_gain'], '+.2f')} ({lo['corpus']}, "
                                   f"{lo['budget']}) to {num(hi['average_gain'], '+.2f')} ({hi['corpus']}, "
                                   f"{hi['budget']}) over "
                                   f"its {len(rows)} configurations")
    if m.get("datasets"):
        from pearl.benchmark.tasks import TASKS  # the paper's column name of each dataset

        w = min(m["datasets"], key=lambda r: r["gain"])
        out["study.worst_dataset"] = (
            f"{TASKS[w['dataset']].column} for {w['backbone']} trained on {w['corpus']} ({w['budget']} budget) "
            f"{'falls' if w['gain'] < 0 else 'rises'} from {num(w['backbone_score'], '.1f')} untrained to "
            f"{num(w['pearl'], '.1f')} "
            f"trained ({num(w['gain'], '+.1f')}, mean of {num(w['seeds'])} seed{_s(w['seeds'])}), the largest move of "
            "any single dataset")
    seeds = [r for r in m["per_seed"] if r["budget"] == "cpu"]
    worst = min(dict.fromkeys(r["backbone"] for r in seeds),
                key=lambda b: statistics.mean(r["entity clustering"] for r in seeds if r["backbone"] == b))
    per: dict[str, list[str]] = {}
    for r in seeds:
        if r["backbone"] == worst:
            per.setdefault(r["corpus"], []).append(f"{num(r['entity clustering'], '+.1f')}")
    out["study.worst_seeds"] = (f"{worst}'s entity-clustering gain seed by seed (cpu budget): "
                                + "; ".join(f"{c} {', '.join(v)}" for c, v in per.items()))
    out["study.gpu_point"] = "; ".join(f"{g['label']}: {num(g['average'], '+.2f')} on the "
                                       "average" for g in m.get("gpu_point") or [])
    out["study.cost"] = (f"{len(m['table'])} configurations, {len(m['per_seed'])} trained models; their training took "
                         f"{num(m['train_s_total'] / 60, '.0f')} minutes in one-thread processes")
    return out
