"""The whole offline Wikipedia copy built and counted once: the paper-scale phrase count.

Usage::

    .venv/bin/python scripts/whole_corpus.py [--n-process 2] [--batch-size 32]

Builds the gpu profile's sample (every one of the 30,729 articles, about 65M tokens) with
:func:`pearl.corpus.build.build`, the same settings as notebook 01 (chunks of 50 articles,
phrases of at most 6 tokens), then merges it at the paper's frequency filter of 2. The build is
resumable: killed, run it again and it parses only the missing chunks; its folder is the one a
``PROFILE="gpu"`` run of notebook 01 uses, so that run then only merges. About 2.6 hours on 2
cores here, a quarter of an hour on 16 (notebook 01's projection).

Writes ``results/wikipedia_whole_corpus.json``: the sample, distinct phrases, those seen at
least twice (the paper keeps 3.8M) and their share, the gpu profile's training corpus (those and
WordNet's multi-word lemmas, as notebook 01 merges them), class shares beside the paper's and each
class's most frequent phrases, phrase types present, the shares as the corpus grows (merges of
its first 1/16 ... 1/1 of the chunks: ``--by-size``), every build call that parsed chunks (time,
processes, load, peak memory) and the merge's time and peak memory. Notebook 01 reports the
count from that record (:func:`harness.committed.whole_corpus`).
Left out: the phrase list itself (tens of MB; rebuild it with this script).
"""
from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n-process", type=int, default=2, help="spaCy worker processes (the machine's cores)")
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--min-freq", type=int, default=2, help="the paper's frequency filter")
    parser.add_argument("--by-size", type=int, nargs="*", default=[16, 8, 4, 2],
                        help="also merge the first 1/N of the chunks for each N (class shares as the corpus grows)")
    parser.add_argument("--max-articles", type=int, default=0,
                        help="a check of this script on the first articles only (needs $PEARL_OUTPUT: a scratch folder)")
    args = parser.parse_args()
    if args.max_articles and not os.environ.get("PEARL_OUTPUT"):
        parser.error("--max-articles writes a partial record: set PEARL_OUTPUT to a scratch folder")

    from pearl import wikipedia
    from pearl.corpus import build, summary
    from pearl.corpus.store import merge_sources
    from pearl.display.data_figures import PAPER_CLASS_SHARES
    from harness.committed import WHOLE_CORPUS
    from harness.record import Run

    sample = build.PROFILE_SAMPLES["gpu"]
    if args.max_articles:
        sample = wikipedia.Sample(max_articles=args.max_articles)
    run = Run(WHOLE_CORPUS, {"sample": sample.as_dict(), "chunk_articles": 50, "max_tokens": 6,
                                     "n_process": args.n_process, "batch_size": args.batch_size,
                                     "min_freq": args.min_freq, "by_size": args.by_size})
    with run.timer("build_this_call"):
        folder = build.build(sample, chunk_articles=50, max_tokens=6, n_process=args.n_process,
                             batch_size=args.batch_size)
    build_rss = build.peak_rss_mb()
    start = time.perf_counter()
    rows, stats = build.merge(folder, min_freq=args.min_freq)
    run.time("merge", time.perf_counter() - start)
    counts = summary.sample_counts(stats, rows, args.min_freq, PAPER_CLASS_SHARES)
    # the gpu profile's training corpus as notebook 01 writes it: these phrases and WordNet's multi-word
    # lemmas, one row a distinct phrase (a lemma the corpus holds counts once)
    training_phrases = len(merge_sources(rows, summary.wordnet_rows(True, False, run.timer), corpus="wikipedia"))
    del rows
    with run.timer("shares_by_size"):
        by_size = build.shares_by_size(folder, args.min_freq, parts=tuple(args.by_size)) if args.by_size else []
    runs = summary.parsing_runs(folder)
    print(f"{sample.describe()}: {counts['tokens']:,} tokens, {counts['distinct_phrases']:,} distinct phrases, "
          f"{counts['kept_phrases']:,} ({counts['kept_share_pct']} %) seen at least {args.min_freq} times (paper: 3.8M)")
    run.save(metrics={"corpus": wikipedia.SOURCE, "sample": sample.as_dict(), "description": sample.describe(),
                      **counts, "training_corpus_phrases": training_phrases, "class_shares_kept_by_sample_size": by_size + [
                          {"chunks": counts["chunks"], "tokens": counts["tokens"], "kept": counts["kept_phrases"],
                           **counts["class_shares_pct"]["kept"]}],
                      "build_runs": runs, "parse_tokens_per_s": summary.parse_rate(runs),
                      "parse_tokens_per_s_per_process": summary.per_process_rate(runs),
                      "peak_rss_mb": {"after_build_call": build_rss, "after_merge": build.peak_rss_mb()}},
             data_sources={"wikipedia": f"{wikipedia.SOURCE}/{{AA,AB,AC,AD}}.txt.xz (pearl.wikipedia)",
                           "build_folder": str(folder.relative_to(folder.parents[3]))})


if __name__ == "__main__":
    main()
