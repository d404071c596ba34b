"""Sentences on the experiments: the PPDB probe, Table 3's ablations, Figure 5's curves, the four
methods of notebook 11, the Phrase-BERT / PAUSE check, and the sentences that set one of ours
beside a number of the paper (both from files).

Each function returns ``{key: sentence}`` (see :mod:`harness.report.timings`).
"""
from __future__ import annotations

import pandas as pd

from pearl import paths
from pearl.experiments.tables import ALPHA
from .common import exists, num, read_json, results, strict

PAPER_DATA = paths.ROOT / "lib" / "pearl" / "benchmark"


def probe() -> dict[str, str]:
    """``probe.*``: ``results/perf/probe_convergence.json``."""
    d = read_json("perf/probe_convergence.json")
    rules, chosen = d["rules"], d["rules"][d["chosen_rule"]]["criteria"]
    p5 = rules["paper: patience 5, at most 100 epochs"]["scores"]["minilm"]["ppdb_filtered"]["glorot"]
    p20 = rules["paper: patience 20, at most 300 epochs"]["scores"]["minilm"]["ppdb_filtered"]["glorot"]
    shift = d["summary"]["chosen_init_shift"]
    ba = {m: {t: (v["before"]["score"], v["after"]["score"]) for t, v in x.items()} for m, x in d["before_after"].items()}
    group = d["paraphrase_group"]["pearl_minus_backbone_mean_over_pearl_seeds"]
    return {
        "probe.plateau": (f"still rising at epoch 300 ({num(p20['mean'], '.1f')} ± {num(p20['std'], '.1f')} with "
                          "patience 20), and the "
                          f"patience-5 rule stops on an early plateau ({num(p5['mean'], '.1f')} ± "
                          f"{num(p5['std'], '.1f')})"),
        "probe.stops": f"it stops by its own rule in {num(round(chosen['self_stopped_share'] * 40))} of 40 recorded "
                       "runs",
        "probe.std": f"Over 5 probe seeds its std is at most {num(d['summary']['chosen_max_seed_std'], '.2f')} points",
        "probe.init": (f"moves the PPDB-filtered mean by {num(abs(shift['minilm/ppdb_filtered']), '.2f')} (MiniLM) and "
                       f"{num(abs(shift['pearl-minilm-seed0/ppdb_filtered']), '.2f')} (PEARL seed 0)"),
        "probe.before_after": "; ".join(
            f"{label}: PPDB {num(ba[m]['ppdb'][0], '.1f')} → {num(ba[m]['ppdb'][1], '.1f')}, PPDB-filtered "
            f"{num(ba[m]['ppdb_filtered'][0], '.1f')} → {num(ba[m]['ppdb_filtered'][1], '.1f')}"
            for m, label in (("minilm", "MiniLM"), ("pearl-minilm-seed0", "PEARL seed 0"),
                             ("pearl-minilm-seed1", "PEARL seed 1"))),
        "probe.group": f"PEARL − MiniLM on the paraphrase group goes from {num(group['before'], '+.2f')} to "
                       f"{num(group['after'], '+.2f')}",
    }


def ablations() -> dict[str, str]:
    """``table3.*`` (notebook 08) and ``figure5.curves`` (notebook 10)."""
    out = {}
    if exists("08_ablations.json"):
        a = {**read_json("08_ablations.json")["metrics"]}
        a.update(retest(a["models"], ""))  # the tables' test (Welch), from the per-seed scores
        out["table3.average"] = (f"{num(a['lower_average'])} of the {num(a['ablations'])} ablations lower the average, "
                                 f"{num(a['lower_average_beyond_noise'])} of them beyond the seed noise (pooled seed "
                                 "std of the "
                                 f"average {num(a['seed_std_average'], '.2f')})")
        cells = [r["arrow"] for r in a["table"] if r["recipe"] and r["column"] != "average"]
        out["table3.cells"] = (f"Over the {len(cells)} cells of the five groups, "
                               f"{sum(c.startswith('↓') for c in cells)} "
                               f"point down, {cells.count('↓*')} of them beyond the noise, and {cells.count('↑*')} "
                               "point "
                               f"up beyond the noise")
        out["table3.beyond"] = beyond_noise(a["table"])
    if exists("10_hyperparameters.json"):
        h = read_json("10_hyperparameters.json")["metrics"]
        pts = pd.DataFrame(h["points"])
        lr, hn = (pts[pts.parameter == k].set_index("value")["score"] for k in ("lr", "hard_negatives"))
        out["figure5.curves"] = ("BIRD by learning rate: "
                                 "" + ", ".join(f"{num(v, 'g')} → {num(s, '.1f')}" for v, s in lr.items())
                                 + "; by hard negatives: "
                                   "" + ", ".join(f"{num(v, '.0f')} → {num(s, '.1f')}" for v, s in hn.items())
                                 + f"; the full recipe's seed std on BIRD is {num(h['bird_seed_std'], '.2f')}")
    return out


def retest(models: list[dict], reference: str, columns=None) -> dict:
    """Notebook 08's / 11's comparison recomputed from a record's per-seed scores (``models``) by
    :func:`pearl.experiments.tables.compare`, the test the tables and the ledger share (Welch's t),
    so a sentence never reads a p that an older run computed another way: ``table`` (its rows),
    and for the ablations the counts of :func:`pearl.experiments.tables.ablation_summary`.

    >>> seeds = [{"recipe": r, "average": v} for r, vs in (("", (60, 61, 62)), ("-x", (55, 56, 57.0))) for v in vs]
    >>> out = retest(seeds, "", ["average"])   # Welch: t = 5 / sqrt(1/3 + 1/3), 4 dof
    >>> [(r["recipe"], r["arrow"], round(r["p"], 4)) for r in out["table"] if r["recipe"]]
    [('-x', '↓*', 0.0036)]
    >>> out["lower_average"], out["lower_average_beyond_noise"]
    (1, 1)
    """
    from pearl.experiments import tables

    groups = pd.DataFrame(models)
    comparison = tables.compare(groups, reference, columns or [c for c in (*tables.COLUMNS, tables.SHORT_TEXT)
                                                                if c in groups])
    summary = tables.ablation_summary(comparison, groups, reference) if "average" in comparison["column"].values else {}
    return {**summary, "table": comparison.to_dict("records")}


def versus(table: list[dict], names: dict, reference: str = "PEARL") -> str:
    """Per method, the columns where it differs from the reference beyond the seed noise (Welch's
    p < 0.05, :func:`retest`) and those within it, each with its difference: the sentence a reader
    would otherwise write by hand beside the methods table.

    >>> rows = [{"recipe": "simcse", "column": "average", "delta": 0.64, "p": 0.02},
    ...         {"recipe": "simcse", "column": "entity clustering", "delta": -2.1, "p": 0.001},
    ...         {"recipe": "simcse", "column": "fuzzy join", "delta": 0.3, "p": 0.4},
    ...         {"recipe": "backbone", "column": "average", "delta": -0.1, "p": float("nan")}]
    >>> versus(rows, {"simcse": "SimCSE", "backbone": "the untrained backbone"})
    'SimCSE against PEARL: above it beyond the seed noise on the average (+0.64, p = 0.020); below it beyond the seed noise on entity clustering (-2.10, p = 0.001); within the noise on fuzzy join (+0.30, p = 0.400). The untrained backbone against PEARL: one model, not tested: the average (-0.10)'
    """
    from .ledger_lines import _pv

    said = []
    for key, label in names.items():
        rows = [r for r in table if r["recipe"] == key]
        if not rows:
            continue
        where = lambda r: "the average" if r["column"] == "average" else r["column"]  # noqa: E731
        cell = lambda r, p=True: (f"{where(r)} ({num(r['delta'], '+.2f')}"  # noqa: E731
                                  + (f", {_pv(r['p'])})" if p else ")"))
        untested = [r for r in rows if r["p"] != r["p"]]
        up = [cell(r) for r in rows if r["p"] == r["p"] and r["p"] < ALPHA and r["delta"] > 0]
        down = [cell(r) for r in rows if r["p"] == r["p"] and r["p"] < ALPHA and r["delta"] < 0]
        level = [cell(r) for r in rows if r["p"] == r["p"] and r["p"] >= ALPHA]
        parts = ([f"above it beyond the seed noise on {', '.join(up)}"] if up else []) + \
                ([f"below it beyond the seed noise on {', '.join(down)}"] if down else []) + \
                ([f"within the noise on {', '.join(level)}"] if level else []) + \
                ([f"one model, not tested: {', '.join(cell(r, False) for r in untested)}"] if untested else [])
        said.append(f"{label[0].upper() + label[1:]} against {reference}: " + "; ".join(parts))
    return ". ".join(said)


def beyond_noise(table: list[dict]) -> str:
    """Each ablation's cells beyond the seed noise, as words: ``− X lowers a and b, raises c``.

    >>> beyond_noise([{"recipe": "no-token-aug", "column": "fuzzy join", "arrow": "↓*"},
    ...               {"recipe": "no-token-aug", "column": "average", "arrow": "↑*"},
    ...               {"recipe": "no-hard-negatives", "column": "fuzzy join", "arrow": "↓"}])
    '− token augmentation lowers fuzzy join, raises the average; − hard negatives moves no cell beyond the noise'
    """
    from pearl.experiments.runner import ABLATION_LABELS

    parts = []
    for recipe in dict.fromkeys(r["recipe"] for r in table if r["recipe"]):
        rows = [r for r in table if r["recipe"] == recipe]
        moves = [(verb, [("the average" if r["column"] == "average" else r["column"]) for r in rows
                         if r["arrow"] == arrow]) for verb, arrow in (("lowers", "↓*"), ("raises", "↑*"))]
        said = [f"{verb} {' and '.join(cols) if len(cols) < 3 else ', '.join(cols[:-1]) + ' and ' + cols[-1]}"
                for verb, cols in moves if cols]
        parts.append(f"{ABLATION_LABELS.get(recipe, recipe)} "
                     f"{', '.join(said) if said else 'moves no cell beyond the noise'}")
    return "; ".join(parts)


def methods() -> dict[str, str]:
    """``methods.*``: notebook 11's record."""
    if not exists("11_methods.json"):
        return {}
    m = read_json("11_methods.json")["metrics"]
    rows = retest(m["models"], "pearl")["table"]  # the tables' test (Welch), from the per-seed scores
    table = {(r["recipe"], r["column"]): r for r in rows}
    names = {"backbone": "the untrained backbone", "simcse": "SimCSE", "phrase_bert": "Phrase-BERT", "pause": "PAUSE"}

    def test(p) -> str:
        return "one model, no test" if p is None or p != p else "p < 0.001" if p < 0.001 else f"p = {num(p, '.3f')}"

    def against(column: str) -> str:
        return "; ".join(f"{label} {num(table[(k, column)]['delta'], '+.1f')} ({test(table[(k, column)]['p'])})"
                         for k, label in names.items() if (k, column) in table)

    pearl, short = table[("pearl", "average")], table[("pearl", "short-text average")]
    by_share: dict[float, list[float]] = {}
    for (share, _), avg in sorted({(r["share"], r["model"]): r["average"] for r in m["label_efficiency"]}.items()):
        by_share.setdefault(share, []).append(avg)
    return {"methods.average": (f"PEARL's average over the five groups is {num(pearl['mean'], '.1f')} ± "
                                f"{num(pearl['std'], '.1f')}; against "
                                f"it: " + against("average") + " (pooled seed std "
                                                               f"{num(m['seed_std_average'], '.2f')})"),
            "methods.short_text": (f"PEARL's mean short-text accuracy is {num(short['mean'], '.1f')} ± "
                                   f"{num(short['std'], '.1f')}; against "
                                   f"it: " + against("short-text average")
                                   + f" (pooled seed std {num(m['seed_std_short_text'], '.2f')})"),
            "methods.versus": versus(rows, {k: v for k, v in names.items() if k != "backbone"}),
            # the report's first screen: the neighbour that wins or loses the average, by the same test
            "methods.simcse": versus([r for r in rows if r["column"] == "average"], {"simcse": "SimCSE"}),
            "methods.labels": "PAUSE's average by labelled share: " + ", ".join(
                f"{num(share, '.0%')} → {num(sum(v) / len(v), '.1f')}" for share, v in by_share.items())}


def neighbours() -> dict[str, str]:
    """``neighbours.*``: the Phrase-BERT / PAUSE check (``scripts/neighbours/check.py``)."""
    if not exists("neighbours_check.json"):
        return {}
    rows = {(r["method"], r["run"]): r for r in read_json("neighbours_check.json")["metrics"]["table"]}
    base = rows[("untrained backbone (all-MiniLM-L6-v2)", "no training")]
    pu = rows[("PAUSE", "PU risk alone (paper's binary form)")]
    nb = rows[("PAUSE", "cpu profile (notebook 11)")]
    nb_base = rows[("untrained backbone (all-MiniLM-L6-v2)", "no training (notebook 11)")]
    out = {"neighbours.pu_only": (
        f"PAUSE trained on the PU risk alone (seed 0, {num(pu['steps'])} steps) averages {num(pu['average'], '.1f')} "
        "against "
        f"{num(base['average'], '.1f')} for the untrained backbone scored with it ({num(pu['vs backbone'], '+.1f')}), "
        "where notebook 11's "
        f"PAUSE, with the supervised term, averages {num(nb['average'], '.1f')} against "
        f"{num(nb_base['average'], '.1f')} "
        f"({num(nb['vs backbone'], '+.1f')})")}
    pb, pa = rows.get(("Phrase-BERT", "longer run")), rows.get(("PAUSE", "longer run"))
    if pb and pa:
        out["neighbours.longer"] = (
            f"Trained longer (seed 0, {num(pb['steps'])} steps instead of 150, the trainer's two epochs), Phrase-BERT "
            "averages "
            f"{num(pb['average'], '.1f')} ({num(pb['vs backbone'], '+.1f')}) and PAUSE {num(pa['average'], '.1f')} "
            f"({num(pa['vs backbone'], '+.1f')}) "
            f"against the same backbone")
    return out


def paper_side() -> dict[str, str]:
    """``paper.*``: one of ours beside a number of the paper (``lib/pearl/benchmark/paper_*.csv``)."""
    t1 = pd.read_csv(results() / "table1.csv")
    bird = t1[(t1["model"] == "minilm") & (t1["dataset"] == "bird")]["score"].iloc[0]
    chosen = pd.read_csv(PAPER_DATA / "paper_figure5.csv").set_index("parameter")["chosen"]
    best = read_json("10_hyperparameters.json")["metrics"]["best"]
    lr = lambda x: f"{num(x, '.0e')}".replace("e-0", "e-")  # noqa: E731  3e-05 -> 3e-5, as the paper writes it
    m = {(r["recipe"], r["column"]): r["mean"] for r in read_json("11_methods.json")["metrics"]["table"]}
    slips = pd.read_csv(PAPER_DATA / "paper_slips.csv", dtype=str)
    slips = slips[slips["where"].isin(["Table 1", "§5.1"])]
    return {
        "paper.bird": f"the untrained backbone's BIRD score, {num(bird, '.1f')}",
        "paper.figure5_chosen": (f"The paper chose a learning rate of {lr(chosen['lr'])} and "
                                 f"{num(chosen['hard_negatives'], 'g')} "
                                 f"hard negatives"),
        "paper.figure5_best": f"the best are lr {lr(best['lr'])} and {num(best['hard_negatives'], 'g')} hard negatives",
        "paper.methods_below": below_backbone(m),
        "paper.slips": "; ".join(f"{r.quantity} printed {r.printed}, {r.from_rows} from its "
                                 "rows" for r in slips.itertuples()),
    }


def below_backbone(means: dict) -> str:
    """The trained methods whose mean average is under the untrained backbone's (``{(recipe, column):
    mean}`` of notebook 11's table), with the means; the backbone is one deterministic model and
    these are means over seeds, so the sentence says "mean", not "beyond the noise".

    >>> below_backbone({("backbone", "average"): 66.0, ("pause", "average"): 64.2, ("simcse", "average"): 66.5,
    ...                 ("pearl", "average"): 66.1})
    "Of the trained methods, PAUSE has a mean average under the untrained backbone's (64.2 against 66.0)"
    """
    names = {"pearl": "PEARL", "simcse": "SimCSE", "phrase_bert": "Phrase-BERT", "pause": "PAUSE"}
    base = means[("backbone", "average")]
    under = {names[k]: means[(k, "average")] for k in names if (k, "average") in means and means[(k, "average")] < base}
    if not under:
        return f"No trained method has a mean average under the untrained backbone's ({num(base, '.1f')})"
    who = " and ".join(under)
    return (f"Of the trained methods, {who} {'has' if len(under) == 1 else 'have'} a mean average under the untrained "
            f"backbone's ({' and '.join(num(v, '.1f') for v in under.values())} against {num(base, '.1f')})")


def table1_delta(t1: pd.DataFrame, model: str = "pearl-minilm-seed0", backbone: str = "minilm",
                 step: float = 1.0) -> str:
    """PEARL − its backbone on Table 1's nine datasets (``results/table1.csv``): the average and
    the datasets that move by ``step`` points or more, each way.

    >>> t1 = pd.DataFrame({"model": ["m"] * 3 + ["p"] * 3, "dataset": ["ppdb", "bird", "yago"] * 2,
    ...                    "score": [90.0, 60.0, 50.0, 90.5, 62.0, 48.0]})
    >>> table1_delta(t1, "p", "m")
    'PEARL − the backbone averages +0.2 over the 3 datasets; up by a point or more: BIRD (+2.0); down by a point or more: YAGO (-2.0); within a point: PPDB'
    """
    from pearl.benchmark.tasks import TASKS

    score = lambda m: t1[t1["model"] == m].set_index("dataset")["score"].astype(float)  # noqa: E731
    delta = (score(model) - score(backbone)).dropna()
    delta = delta[[d for d in TASKS if d in delta.index]]
    name = lambda ds: ", ".join(f"{TASKS[d].column} ({num(v, '+.1f')})" for d, v in ds.items()) or "none"  # noqa: E731
    within = ", ".join(TASKS[d].column for d in delta[delta.abs() < step].index) or "none"
    return (f"PEARL − the backbone averages {num(delta.mean(), '+.1f')} over the {len(delta)} datasets; up by a point "
            "or more: "
            f"{name(delta[delta >= step].sort_values(ascending=False))}; down by a point or more: "
            f"{name(delta[delta <= -step].sort_values())}; within a point: {within}")


def table4_gains(t4: pd.DataFrame) -> str:
    """Each backbone's PEARL gain in ``results/table4.csv``: mean over seeds with a 95 % interval
    (Student's t), and SimCSE's where the backbone has that arm.

    >>> t4 = pd.DataFrame({"backbone": ["a"], "original": [60.0], "pearl": [61.0], "pearl_std": [0.5], "n": [3],
    ...                    "gain": [1.0], "p": [0.04], "control": [60.5], "control_std": [0.1], "control_n": [3],
    ...                    "control_gain": [0.5]})
    >>> table4_gains(t4)
    'a +1.0 (95 % CI -0.2 to +2.2, p = 0.040; SimCSE +0.5)'
    """
    from pearl.claims.rule import interval
    from .ledger_lines import _pv

    parts = []
    for r in t4.itertuples():
        low, high = interval(r.gain, r.pearl_std / r.n ** 0.5, r.n - 1)
        simcse = f"; SimCSE {num(r.control_gain, '+.1f')}" if r.control_n > 0 else ""  # 0 seeds: no SimCSE arm
        parts.append(f"{r.backbone} {num(r.gain, '+.1f')} (95 % CI {num(low, '+.1f')} to {num(high, '+.1f')}, "
                     f"{_pv(r.p)}{simcse})")
    return "; ".join(parts)


def all_sentences() -> dict[str, str]:
    """Every sentence above; those of a function whose results file lacks a number are *no result* (:func:`strict`)."""
    out = {**strict(probe, "probe.", sources=("probe_convergence.json",)),
           **strict(ablations, "table3.", "figure5.", sources=("08_ablations.json", "10_hyperparameters.json")),
           **strict(methods, "methods.", sources=("11_methods.json",)),
           **strict(neighbours, "neighbours.", sources=("neighbours_check.json",)),
           **strict(paper_side, "paper.", sources=("table1.csv", "10_hyperparameters.json", "11_methods.json"))}
    if exists("table1.csv"):
        out.update(strict(lambda: {"table1.delta": table1_delta(pd.read_csv(results() / "table1.csv"))}, "table1.",
                          sources=("table1.csv",)))
    if exists("table4.csv"):
        out.update(strict(lambda: {"table4.gains": table4_gains(pd.read_csv(results() / "table4.csv"))}, "table4.",
                          sources=("table4.csv",)))
    return out
