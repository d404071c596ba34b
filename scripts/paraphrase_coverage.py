"""How many phrases the phrase level can change: the offline rules against rules + rewrites.

Usage::

    .venv/bin/python scripts/paraphrase_coverage.py [--phrases 2000] [--seed 0]

Draws ``--phrases`` phrases at random from the training corpus (``data/derived/phrases.tsv``,
notebook 01's) and runs :class:`pearl.corpus.rewrite.RewriteParaphraser` on them once. Reports,
for the sample and for each lexical class: the share the offline rules alone change (notebook
02's phrase level today), what the format rewrites add, and what the word rewrites add at each
cosine threshold; with a binomial 95 % interval on the sample. It also writes
``--judge N`` pairs drawn at random among the word rewrites the default threshold keeps, for a
person to mark as paraphrase or not (``results/paraphrase_judged.csv``: columns phrase,
paraphrase, cosine, true_paraphrase; an existing file's judgements are kept and summarised).
Writes ``results/paraphrase_coverage.json``.
"""
from __future__ import annotations

import argparse
import csv
import io
import random

THRESHOLDS = (0.7, 0.75, 0.8, 0.85, 0.9)


def _interval(k: int, n: int) -> list[float]:
    from scipy.stats import binomtest

    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    return [round(100 * float(ci.low), 1), round(100 * float(ci.high), 1)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--phrases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", type=int, default=80, help="word rewrites to write out for judging")
    args = parser.parse_args()

    from pearl import paths
    from pearl.corpus.rewrite import RewriteParaphraser
    from pearl.corpus.store import read_corpus
    from pearl.atomic import write_atomic
    from harness.record import Run

    rows = read_corpus()
    rng = random.Random(args.seed)
    sample = rng.sample(rows, min(args.phrases, len(rows)))
    run = Run("paraphrase_coverage", vars(args))
    para = RewriteParaphraser()
    with run.timer("rewrite_and_score"):
        scored = para.scored([r[0] for r in sample])
    groups = {"all": sample}
    for r in sample:
        groups.setdefault(r[1].split("-", 1)[0], []).append(r)
    table = {}
    for name, members in groups.items():
        n = len(members)
        rules = sum(bool(scored[r[0]]["rules"]) for r in members)
        fmt = sum(bool(scored[r[0]]["rules"] or scored[r[0]]["formats"]) for r in members)
        entry = {"phrases": n, "rules_pct": round(100 * rules / n, 1), "rules_formats_pct": round(100 * fmt / n, 1)}
        for t in THRESHOLDS:
            k = sum(bool(scored[r[0]]["rules"] or scored[r[0]]["formats"] or
                         any(s >= t for s, _ in scored[r[0]]["words"])) for r in members)
            entry[f"with_words_{t}_pct"] = round(100 * k / n, 1)
            if name == "all":
                entry[f"with_words_{t}_ci95"] = _interval(k, n)
        table[name] = entry
    kept = [(p, c, s) for p, v in scored.items() for s, c in v["words"] if s >= para.threshold]
    judged_path = paths.results_dir("paraphrase_judged.csv")
    judged = []
    if judged_path.is_file():
        with open(judged_path, newline="", encoding="utf8") as fh:
            judged = list(csv.DictReader(fh))
    else:
        pick = random.Random(args.seed).sample(kept, min(args.judge, len(kept)))
        buf = io.StringIO()
        w = csv.writer(buf)
        w.writerow(["phrase", "paraphrase", "cosine", "true_paraphrase"])
        w.writerows([p, c, f"{s:.3f}", ""] for p, c, s in pick)
        write_atomic(judged_path, buf.getvalue())
    marks = [j["true_paraphrase"] for j in judged if j["true_paraphrase"] in ("yes", "no")]
    precision = {"judged": len(marks), "true": marks.count("yes"),
                 "share_pct": round(100 * marks.count("yes") / len(marks), 1) if marks else None,
                 "ci95": _interval(marks.count("yes"), len(marks)) if marks else None}
    for name, e in table.items():
        print(f"{name:5} n={e['phrases']:5}  rules {e['rules_pct']:5.1f}  +formats {e['rules_formats_pct']:5.1f}  " +
              "  ".join(f"+words@{t} {e[f'with_words_{t}_pct']:5.1f}" for t in THRESHOLDS))
    print("judged word rewrites:", precision)
    run.save(metrics={"coverage_pct": table, "threshold": para.threshold, "word_rewrites_kept": len(kept),
                      "judged_precision": precision},
             data_sources={"phrases": "data/derived/phrases.tsv (notebook 01's training corpus)",
                           "judgements": "results/paraphrase_judged.csv"})


if __name__ == "__main__":
    main()
