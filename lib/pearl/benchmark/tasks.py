"""The nine benchmark tasks as data: ``TASKS[name] = Task(load, evaluate, group, ...)``.

Each results table is a suite of tasks (:data:`SUITES`): Table 1's nine, Table 2's four
short-text sets (group "short text"); one runner scores any of them
(:mod:`pearl.benchmark.scoring`). The experiments (ablations, backbones, methods) report the
paper's five task groups of Table 1 (:data:`GROUPS`, the columns of the paper's Table 3); the
benchmark scripts reuse the same loaders instead of subsets of their own.

>>> [t.column for t in TASKS.values()][:4]
['PPDB', 'PPDB filtered', 'Turney', 'BIRD']
>>> TASKS["yago"].group
'entity retrieval'

Each task's ``load(size)`` returns the keyword arguments of its ``evaluate(model, **inputs)``
(plus ``info`` describing a stand-in dictionary, which the runner reports and does not pass
on). Sizes:

- ``"full"``: the benchmark as Table 1 reports it;
- ``"sweep"``: the **sweep suite**, the same nine tasks at a fraction of the cost, for the
  experiments that score many models (ablations, backbones, hyper-parameters, methods):
  fixed, seeded samples of the retrieval queries (YAGO, UMLS, and up to 40 per AutoFJ table,
  all 50 tables) searched in a **pool** of each query's gold names and hardest candidates
  (:mod:`pearl.benchmark.pools`), not the whole dictionary; every PPDB pair with one probe
  seed (on a 4,000-pair sample the paper's probe stopped at chance). Its scores are for
  comparing models with each other; ``perf/sweep_agreement.py`` measures how far they
  sit from the full ones; the short-text sets keep 5,000 texts of each Twitter set;
- ``"tiny"``: a small deterministic subset for tests, seconds on a CPU.

The short-text sets are built once per size (:func:`pearl.benchmark.short_text.build` with its
defaults: tweets drawn with seed 0, ATIS ranges of at least 1,000 training queries, a
multi-intent query under its first intent) and classified with :data:`SHORT_TEXT_SEEDS`.

What it leaves out: scoring itself (:mod:`pearl.benchmark.evaluate`) and tables
(:mod:`pearl.benchmark.scoring`, :mod:`pearl.benchmark.table`).
"""
from __future__ import annotations

import functools
import random
from dataclasses import dataclass
from typing import Callable

from .. import data
from . import dictionaries, evaluate, pools, short_text

SIZES = ("full", "sweep", "tiny")

#: the paper's task groups (Table 3 columns), in the paper's order
GROUPS = {
    "paraphrase classification": ("ppdb", "ppdb_filtered"),
    "phrase similarity": ("turney", "bird"),
    "entity retrieval": ("yago", "umls"),
    "entity clustering": ("conll", "bc5cdr"),
    "fuzzy join": ("autofj",),
}

#: tiny subset sizes: enough rows for every code path
TINY = {"ppdb": 300, "turney": 100, "bird": 200, "retrieval": 200, "distractors": 1000, "clustering": 300}
#: sweep-suite sizes: probe seeds (on every PPDB pair), retrieval queries, queries per AutoFJ table
#: (each searched in its pool, :mod:`pearl.benchmark.pools`)
SWEEP = {"probe_seeds": (0,), "retrieval": 2000, "autofj_queries": 40}
#: Table 2's classifier seeds at each size (the paper: 10 runs)
SHORT_TEXT_SEEDS = {"full": tuple(range(10)), "sweep": tuple(range(10)), "tiny": (0, 1)}
#: the two smallest AutoFJ tables (324 and 555 left records)
TINY_AUTOFJ = ("TennisTournament", "Galaxy")


@dataclass(frozen=True)
class Task:
    name: str
    column: str  # the paper's column header
    group: str  # one of GROUPS
    load: Callable[[str], dict]  # size -> evaluate's keyword arguments
    evaluate: Callable[..., dict]  # (model, **inputs) -> {"score": percent, ...}
    metric: str

    texts: Callable[[dict], list[str]]  # inputs -> every phrase the evaluator will encode

    def run(self, model, size: str = "full", inputs: dict | None = None) -> tuple[dict, dict | None]:
        """(evaluator result, dictionary info or None) on this task's data at ``size`` (or on ``inputs``)."""
        inputs = dict(self.load(_check_size(size)) if inputs is None else inputs)
        info = inputs.pop("info", None)
        return self.evaluate(model, **inputs), info


def _check_size(size: str) -> str:
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; choose from {', '.join(SIZES)}")
    return size


def _sample(rows: list, n: int, seed: int = 0) -> list:
    return rows if len(rows) <= n else random.Random(seed).sample(rows, n)


def _ppdb(filtered: bool):
    def load(size: str) -> dict:
        pairs = data.read_ppdb(filtered)
        if size == "sweep":  # the converged probe alone, one seed
            return {"pairs": pairs, "seeds": SWEEP["probe_seeds"]}
        # Table 1 also scores the same vectors with the paper's patience-5 probe (a column of its own)
        return {"pairs": _sample(pairs, TINY["ppdb"]) if size == "tiny" else pairs, "paper_probe": True}
    return load


def _turney(size: str) -> dict:
    items = data.read_turney()
    return {"items": _sample(items, TINY["turney"]) if size == "tiny" else items}


def _bird(size: str) -> dict:
    rows = data.read_bird()
    return {"rows": _sample(rows, TINY["bird"]) if size == "tiny" else rows}


def _retrieval(name: str):
    def load(size: str) -> dict:
        pairs = data.read_retrieval(name)
        if size == "sweep":  # fewer queries, each against its pool of gold and hardest names
            names, info = dictionaries.load_dictionary(name, [g for _, g in pairs])
            sample = _sample(pairs, SWEEP["retrieval"])
            pooled, pool_info = pools.cached_pool(name, {name: ([m for m, _ in sample], [[g] for _, g in sample], names)})
            info = {**info, "pool": pool_info, "sweep": f"{len(sample):,} of {len(pairs):,} queries against a pool of "
                    f"{len(pooled[name]):,} of the {len(names):,} names ({_POOLED})"}
            return {"pairs": sample, "dictionary": pooled[name], "info": info}
        tiny = size == "tiny"
        pairs = _sample(pairs, TINY["retrieval"]) if tiny else pairs
        names, info = dictionaries.load_dictionary(name, [g for _, g in pairs], TINY["distractors"] if tiny else None)
        return {"pairs": pairs, "dictionary": names, "info": info}
    return load


def _clustering(name: str):
    def load(size: str) -> dict:
        mentions = data.read_typed_mentions(name, "test")
        return {"mentions": _sample(mentions, TINY["clustering"]) if size == "tiny" else mentions}
    return load


_POOLED = (f"each query's gold names, its {pools.K_LEXICAL} nearest names by character 3-grams and its "
           f"{pools.K_SEMANTIC} nearest by the untrained {pools.REFERENCE}")


def _autofj(size: str) -> dict:
    names = list(TINY_AUTOFJ) if size == "tiny" else data.autofj_names()
    sets = {n: data.read_autofj(n) for n in names}
    if size != "sweep":
        return {"sets": sets}
    # every table (a sample of tables moved the mean by 6 points), fewer queries each, pooled
    parts = {}
    for name, (left, right, truth) in sets.items():
        gold: dict[str, list] = {}
        for r, l in truth:
            gold.setdefault(r, []).append(l)
        queries = _sample(list(dict.fromkeys(r for r in right if r in gold)), SWEEP["autofj_queries"])
        parts[name] = (queries, [gold[q] for q in queries], left)
    pooled, pool_info = pools.cached_pool("autofj", parts)
    sampled = {n: set(queries) for n, (queries, _, _) in parts.items()}
    sets = {n: (pooled[n], parts[n][0], [(r, l) for r, l in sets[n][2] if r in sampled[n]]) for n in parts}
    return {"sets": sets, "info": {"kind": "pooled", "pool": pool_info, "sweep": f"all {len(sets)} tables, at most "
                                   f"{SWEEP['autofj_queries']} queries each, against pools ({_POOLED})"}}


@functools.lru_cache(maxsize=None)
def _short_text_sets(size: str) -> dict:
    return short_text.build(size)


def _short_text(name: str):
    def load(size: str) -> dict:
        return {"parts": _short_text_sets(size)[name].parts, "seeds": SHORT_TEXT_SEEDS[size]}
    return load


def _parts_texts(inputs: dict) -> list[str]:
    return [t for texts, _ in inputs["parts"].values() for t in texts]


def _pair_texts(inputs: dict) -> list[str]:
    key = "pairs" if "pairs" in inputs else "rows"
    return [r[0] for r in inputs[key]] + [r[1] for r in inputs[key]]


def _turney_texts(inputs: dict) -> list[str]:
    return [p for b, cands in inputs["items"] for p in (b, *cands)]


def _retrieval_texts(inputs: dict) -> list[str]:
    return [m for m, _ in inputs["pairs"]] + list(inputs["dictionary"]) + [g for _, g in inputs["pairs"]]


def _mention_texts(inputs: dict) -> list[str]:
    return [m for m, _ in inputs["mentions"]]


def _autofj_texts(inputs: dict) -> list[str]:
    out = []
    for left, right, truth in inputs["sets"].values():
        queries = {r for r, _ in truth}
        out += [*left, *(r for r in right if r in queries)]
    return out


TASKS: dict[str, Task] = {t.name: t for t in (
    Task("ppdb", "PPDB", "paraphrase classification", _ppdb(False), evaluate.evaluate_ppdb, "accuracy (MLP probe)",
         _pair_texts),
    Task("ppdb_filtered", "PPDB filtered", "paraphrase classification", _ppdb(True), evaluate.evaluate_ppdb,
         "accuracy (MLP probe)", _pair_texts),
    Task("turney", "Turney", "phrase similarity", _turney, evaluate.evaluate_turney, "accuracy", _turney_texts),
    Task("bird", "BIRD", "phrase similarity", _bird, evaluate.evaluate_bird, "Pearson r", _pair_texts),
    Task("yago", "YAGO", "entity retrieval", _retrieval("yago"), evaluate.evaluate_retrieval, "top-1 accuracy",
         _retrieval_texts),
    Task("umls", "UMLS", "entity retrieval", _retrieval("umls"), evaluate.evaluate_retrieval, "top-1 accuracy",
         _retrieval_texts),
    Task("conll", "CoNLL", "entity clustering", _clustering("conll"), evaluate.evaluate_clustering, "NMI",
         _mention_texts),
    Task("bc5cdr", "BC5CDR", "entity clustering", _clustering("bc5cdr"), evaluate.evaluate_clustering, "NMI",
         _mention_texts),
    Task("autofj", "AutoFJ", "fuzzy join", _autofj, evaluate.evaluate_autofj, "accuracy", _autofj_texts),
    *(Task(name, short_text.COLUMNS[name], "short text", _short_text(name), evaluate.evaluate_short_text,
           "accuracy (MLP classifier)", _parts_texts) for name in short_text.SETS),
)}
#: the tasks of each results table, in the paper's column order
SUITES = {"table1": ("ppdb", "ppdb_filtered", "turney", "bird", "yago", "umls", "conll", "bc5cdr", "autofj"),
          "table2": tuple(short_text.SETS)}
#: Table 1's nine tasks (the experiments' default suite)
DATASETS = SUITES["table1"]


def task(name: str) -> Task:
    """The task called ``name``, or a ``ValueError`` listing the names."""
    if name not in TASKS:
        raise ValueError(f"unknown dataset {name!r}; choose from {', '.join(TASKS)}")
    return TASKS[name]
