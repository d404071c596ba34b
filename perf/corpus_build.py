"""The Wikipedia phrase build (``pearl.corpus.build``) against spaCy's plain single-process
``nlp.pipe`` on the same text, in one run; peak memory of each.

    .venv/bin/python perf/corpus_build.py [--articles 60] [--n-process 2] [--batch-size 64]
                                                [--out results/perf/corpus_build.json]

The text is the first ``--articles`` articles of the offline Wikipedia copy (their paragraphs).
Each method runs in its own fresh process, so its peak RSS (``ru_maxrss`` of the process and,
for the build, of its largest worker) is its own:

- ``parse``: ``nlp.pipe(texts)`` in one process, parse only (the floor per core: the build can
  at best run ``n_process`` times faster);
- ``plain``: the same plus phrase extraction and counting in that process
  (``pearl.corpus.phrases.count_phrases``, what notebook 01 ran on WikiText-2);
- ``build``: :func:`pearl.corpus.build.build` with ``--n-process`` workers, from the ``.xz``
  stream, into a fresh folder, chunks written and merged (its time includes decompression and
  the merge, the plain one's does not).

Tokens are whitespace tokens of the paragraphs. The script checks that the build keeps the same
phrases (frequency >= 2) as ``plain``, and records the load average before and after: the
machine's cores may be shared, which slows every method and changes the ratios: the CPU
seconds of each method (its process and its workers, model loading included) say what it
costs whatever the load, and tokens per CPU-second compare methods on a busy machine.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _texts(articles: int) -> list[str]:
    from pearl import wikipedia

    return [p for a in wikipedia.articles(wikipedia.Sample(max_articles=articles)) for p in a.paragraphs]


def _digest(rows) -> str:
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


def child(method: str, articles: int, n_process: int, batch_size: int) -> dict:
    """One method, timed in this process; returns its record."""
    from pearl import wikipedia
    from pearl.corpus import build, phrases

    out = {"method": method}
    if method == "build":
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            folder = build.build(wikipedia.Sample(max_articles=articles), chunk_articles=10, n_process=n_process,
                                 batch_size=batch_size, build_dir=Path(tmp), progress=False)
            rows, stats = build.merge(folder, min_freq=2)
            out["seconds"] = time.perf_counter() - start
            out["tokens"] = stats["tokens"]
    else:
        texts = _texts(articles)
        nlp = phrases.load_nlp()
        out["tokens"] = sum(len(t.split()) for t in texts)
        start = time.perf_counter()
        if method == "parse":
            for _ in nlp.pipe(texts, batch_size=batch_size):
                pass
            rows = None
        else:
            rows = phrases.select(phrases.count_phrases(texts, nlp, batch_size=batch_size, progress=False), 2)
        out["seconds"] = time.perf_counter() - start
    out["tokens_per_s"] = out["tokens"] / out["seconds"]
    import resource

    cpu = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    out["cpu_seconds"] = sum(r.ru_utime + r.ru_stime for r in cpu)  # model loading and reading included
    out["tokens_per_cpu_s"] = out["tokens"] / out["cpu_seconds"]
    out["rows_digest"] = _digest(rows) if rows is not None else None
    out["kept_phrases"] = len(rows) if rows is not None else None
    out["peak_rss_mb"] = build.peak_rss_mb()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--articles", type=int, default=60)
    parser.add_argument("--n-process", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--out", default=None, help="a JSON file for the figures")
    parser.add_argument("--child", choices=("parse", "plain", "build"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.articles, args.n_process, args.batch_size)))
        return
    from pearl.provenance import git_sha, hardware, write_json

    record = {"hardware": hardware(), "git_sha": git_sha(), "cpu_count": os.cpu_count(),
              "articles": args.articles, "n_process": args.n_process, "batch_size": args.batch_size,
              "load_average_start": os.getloadavg(), "methods": {},
              "note": "the machine's cores are shared with other work: see the load averages"}
    for method in ("parse", "plain", "build"):
        cmd = [sys.executable, __file__, "--child", method, "--articles", str(args.articles),
               "--n-process", str(args.n_process), "--batch-size", str(args.batch_size)]
        res = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines()[-1])
        res["load_average_after"] = os.getloadavg()
        record["methods"][method] = res
        print(f"{method:6s} {res['tokens']:,} tokens in {res['seconds']:.1f} s: {res['tokens_per_s']:,.0f} tokens/s, "
              f"{res['tokens_per_cpu_s']:,.0f} tokens per CPU-second, peak RSS {res['peak_rss_mb']['parent']:.0f} MB (largest worker {res['peak_rss_mb']['largest_child']:.0f} MB), "
              f"load {res['load_average_after'][0]:.2f}")
    m = record["methods"]
    record["speedup_build_vs_plain"] = m["build"]["tokens_per_s"] / m["plain"]["tokens_per_s"]
    record["build_vs_ideal"] = m["build"]["tokens_per_s"] / (args.n_process * m["parse"]["tokens_per_s"])
    record["same_phrases"] = m["build"]["rows_digest"] == m["plain"]["rows_digest"]
    record["load_average_end"] = os.getloadavg()
    print(f"build / plain: {record['speedup_build_vs_plain']:.2f}x; build / ({args.n_process} x parse-only): "
          f"{record['build_vs_ideal']:.2f}; same phrases at freq >= 2: {record['same_phrases']}; "
          f"load average {record['load_average_start'][0]:.2f} -> {record['load_average_end'][0]:.2f} "
          f"on {os.cpu_count()} cores (shared with other work)")
    if args.out:
        write_json(args.out, record)


if __name__ == "__main__":
    main()
