"""The chunked corpus build: same phrases as the one-pass pipeline, atomic chunks, kill and resume."""
import signal
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from _wiki_tiny import make
from pearl import wikipedia
from pearl.corpus import build, phrases

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return make(tmp_path_factory.mktemp("wiki"))


@pytest.fixture(scope="module")
def reference(corpus, tmp_path_factory):
    """An uninterrupted build of the tiny corpus (10 articles, 5 chunks of 2)."""
    return build.build(wikipedia.Sample(), chunk_articles=2, batch_size=4, folder=corpus,
                       build_dir=tmp_path_factory.mktemp("ref"), progress=False)


def _child(corpus, build_dir, *args):
    return subprocess.run([sys.executable, str(HERE / "_killable_build.py"), str(corpus), str(build_dir),
                           *map(str, args)], capture_output=True, text=True, timeout=300)


def test_build_counts_what_the_one_pass_pipeline_counts(corpus, reference):
    texts = [p for a in wikipedia.articles(folder=corpus) for p in a.paragraphs]
    expected = phrases.select(phrases.count_phrases(texts, phrases.load_nlp(), progress=False), 2)
    rows, stats = build.merge(reference, min_freq=2)
    assert rows == expected and stats["kept"] == len(rows) > 10
    assert stats["articles"] == 10 and stats["chunks"] == 5 and stats["paragraphs"] == len(texts)
    assert stats["tokens"] == sum(len(t.split()) for t in texts)
    every, _ = build.merge(reference, min_freq=1)
    assert stats["distinct"] == len(every) and stats["occurrences"] == sum(r[2] for r in every)
    part, part_stats = build.merge(reference, min_freq=1, first_chunks=1)
    assert part_stats["articles"] == 2 and part_stats["distinct"] < stats["distinct"]
    sizes = build.shares_by_size(reference, min_freq=1, parts=(5, 1))
    assert [r["chunks"] for r in sizes] == [1, 5] and sizes[1]["kept"] == len(every)
    assert sum(sizes[1][c] for c in phrases.CLASSES) == pytest.approx(100, abs=0.05)
    assert build.titles(reference)[0] == ("10", "Topic 0 & Co", "http://en.wikipedia.org/wiki?curid=10")


def test_chunks_are_sorted_and_name_their_articles(reference):
    first = build.chunk_path(reference, 0)
    assert [a[0] for a in build.read_header(first)["articles"]] == ["10", "11"]
    lines = list(build._chunk_lines(first))
    assert lines == sorted(lines) and all(n >= 1 for _, _, n in lines)


@pytest.mark.parametrize("kill_in, kill_at", [("parse", 8), ("write", 3)])
def test_killed_build_resumes_to_the_same_corpus(corpus, reference, tmp_path, kill_in, kill_at):
    """Killed mid-chunk (paragraph 8 of 30 is in chunk 1) or while writing chunk 3, then run again."""
    target = tmp_path / "killed"
    proc = _child(corpus, target, "--kill-at", kill_at, "--kill-in", kill_in)
    assert proc.returncode == -signal.SIGKILL, proc.stderr[-2000:]
    left = [p.name for p in build.chunks(target)]
    assert left == [f"{k:05d}.tsv.gz" for k in range(1 if kill_in == "parse" else 3)]  # whole chunks only
    assert kill_in == "parse" or list((target / "chunks").glob(".*.tmp"))  # the half-written temp file
    proc = _child(corpus, target)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not list((target / "chunks").glob(".*.tmp"))
    for a, b in zip(build.chunks(reference), build.chunks(target), strict=True):
        assert a.read_bytes() == b.read_bytes(), f"{a.name} differs after a kill in {kill_in}"
    assert build.merge(target) == build.merge(reference)
    log = build.runs(target)  # the killed run left no record; the resumed one parsed the rest
    assert len(log) == 1 and log[0]["chunks_parsed"] == 5 - len(left)
    assert log[0]["tokens_parsed"] == sum(build.read_header(p)["tokens"] for p in build.chunks(target)[len(left):])


def test_settings_name_the_folder():
    a = build.Settings(wikipedia.Sample(stride=30)).folder()
    assert a == build.Settings(wikipedia.Sample(stride=30)).folder()
    assert a != build.Settings(wikipedia.Sample(stride=31)).folder()
    assert a != build.Settings(wikipedia.Sample(stride=30), max_tokens=5).folder()


@pytest.mark.slow
def test_two_processes_give_the_same_chunks(corpus, reference, tmp_path):
    two = build.build(wikipedia.Sample(), chunk_articles=2, n_process=2, batch_size=3, folder=corpus,
                      build_dir=tmp_path / "two", progress=False)
    for a, b in zip(build.chunks(reference), build.chunks(two), strict=True):
        assert a.read_bytes() == b.read_bytes()


def test_merge_without_chunks_says_what_to_run(tmp_path):
    with pytest.raises(FileNotFoundError, match="build.build"):
        build.merge(tmp_path)


def test_peak_rss_is_reported():
    rss = build.peak_rss_mb()
    assert rss["parent"] > 10 and set(rss) == {"parent", "largest_child"}


def test_counter_of_a_chunk_round_trips(tmp_path):
    counts = Counter({("in 2008", "PP-DATE"): 3, ("the war", "NP-OTHER"): 1})
    path = tmp_path / "00000.tsv.gz"
    build._write_chunk(path, counts, {"articles": [], "paragraphs": 1, "tokens": 5})
    assert Counter({(p, lab): n for p, lab, n in build._chunk_lines(path)}) == counts
    assert build.read_header(path)["tokens"] == 5


def test_disjoint_samples_merge_as_one_corpus(corpus, reference, tmp_path):
    """Two interleaved samples (even and odd articles) merged give the whole corpus's counts."""
    halves = [build.build(wikipedia.Sample(stride=2, offset=o), chunk_articles=2, batch_size=4, folder=corpus,
                          build_dir=tmp_path / str(o), progress=False) for o in (0, 1)]
    rows, stats = build.merge(halves, min_freq=2)
    whole, whole_stats = build.merge(reference, min_freq=2)
    assert rows == whole and stats["articles"] == 10 and stats["tokens"] == whole_stats["tokens"]
