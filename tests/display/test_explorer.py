"""The similarity explorer's logic, without a browser: typing updates the ranking,
edits are debounced, encodings are cached."""
import re
import threading

import numpy as np
import pytest
from pearl.display.explorer import Explorer, measure_latency
from pearl.display.similarity import Debouncer, EmbeddingCache, NeighbourIndex, check_query, variant_scores

CANDIDATES = ["New York Post", "nytimes.com", "aspirin", "Eiffel Tower"]


class ManualTimer:
    """A threading.Timer look-alike that fires only when the test says so."""

    made = []

    def __init__(self, wait, fn):
        self.wait, self.fn, self.cancelled, self.started = wait, fn, False, False
        ManualTimer.made.append(self)

    def start(self):
        self.started = True

    def cancel(self):
        self.cancelled = True


def page_order(app, model="minilm"):
    """The candidates in the order the ranking HTML shows them for ``model``."""
    block = app.ranking.value.split(f'data-model="{model}"')[1].split("</table>")[0]
    return re.findall(r'class="pearl-candidate">([^<]*)<', block)


def test_typing_updates_the_ranking(minilm):
    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES, debounce_s=0)
    assert page_order(app)[0] in {"nytimes.com", "New York Post"}
    app.query.value = "painkiller"
    assert page_order(app)[0] == "aspirin"
    app.query.value = "Paris landmark"
    assert page_order(app)[0] == "Eiffel Tower"
    app.candidates.value = "ibuprofen\nLouvre"
    assert page_order(app) == ["Louvre", "ibuprofen"]
    app.query.value = "   "
    assert "type a query" in app.ranking.value


def test_models_side_by_side(minilm):
    app = Explorer({"a": minilm, "b": minilm}, "painkiller", CANDIDATES, debounce_s=0)
    assert page_order(app, "a") == page_order(app, "b")
    assert app.ranking.value.count('class="pearl-ranking"') == 2


def test_edits_are_debounced_into_one_update(minilm):
    ManualTimer.made.clear()
    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES, debounce_s=0.3, timer=ManualTimer)
    before = app.updates
    for text in ["p", "pa", "pai", "painkiller"]:
        app.query.value = text
    assert app.updates == before, "no update while the user is still typing"
    assert [t.cancelled for t in ManualTimer.made] == [True, True, True, False]
    assert app.debounce.pending
    ManualTimer.made[-1].fn()  # the wait is over
    assert app.updates == before + 1 and not app.debounce.pending
    assert page_order(app)[0] == "aspirin"


def test_real_timer_debounce_calls_once():
    calls, done = [], threading.Event()
    debounce = Debouncer(0.2, lambda: (calls.append(1), done.set()))
    for _ in range(5):
        debounce()
    assert done.wait(5)
    assert calls == [1]


def test_cache_encodes_each_phrase_once(minilm):
    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES, debounce_s=0)
    cache = app.caches["minilm"]
    misses, hits = cache.misses, cache.hits
    app.query.value = "painkiller"
    assert cache.misses == misses + 1, "only the new query is encoded"
    assert cache.hits == hits + len(CANDIDATES)
    app.query.value = "The New York Times"
    assert cache.misses == misses + 1, "a query seen before is a cache hit"


def test_cache_is_lru_and_matches_encode(minilm):
    from pearl.encode import encode

    cache = EmbeddingCache(minilm, maxsize=2)
    v = cache(["a cat", "a dog"])
    assert np.allclose(v, encode(minilm, ["a cat", "a dog"]), atol=1e-5)
    cache(["a cat"])          # "a dog" is now the least recently used
    cache(["a bird"])
    assert len(cache) == 2
    misses = cache.misses
    cache(["a cat"])
    assert cache.misses == misses
    cache(["a dog"])
    assert cache.misses == misses + 1
    assert cache([]).shape == (0, minilm.dim)


def test_nearest_neighbour_candidates(minilm):
    vocab = ["aspirin", "ibuprofen", "paracetamol", "Eiffel Tower", "Louvre", "Big Ben", "painkiller"]
    index = NeighbourIndex(EmbeddingCache(minilm), vocab)
    near = index.search("painkiller", k=3)
    assert "painkiller" not in near and len(near) == 3
    assert set(near) <= {"aspirin", "ibuprofen", "paracetamol"}
    app = Explorer({"minilm": minilm}, "Paris landmark", ["x"], vocabulary=vocab, k=2, debounce_s=0)
    app.source.value = "nearest in vocabulary"
    assert set(page_order(app)) <= {"Eiffel Tower", "Louvre", "Big Ben"}
    with pytest.raises(ValueError, match="empty"):
        NeighbourIndex(EmbeddingCache(minilm), [])


def test_teaching_view_scores_each_variant(minilm):
    def variants(q):  # a deterministic stand-in for pearl.corpus.augment.Augmenter.variants
        return {"identity": q, "char: swap": q[1] + q[0] + q[2:], "phrase: unrelated": "quantum chromodynamics",
                "empty": ""}

    caches = {"minilm": EmbeddingCache(minilm)}
    rows = variant_scores(caches, "The New York Times", variants("The New York Times"))
    scores = {op: s["minilm"] for op, _, s in rows}
    assert "empty" not in scores
    assert scores["identity"] == pytest.approx(1.0, abs=1e-5)
    assert scores["phrase: unrelated"] < scores["char: swap"] < 1.0
    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES, augment=variants, debounce_s=0)
    assert "quantum chromodynamics" in app.teaching.value
    assert "quantum chromodynamics" in app.snapshot().data


def test_bad_queries_and_models():
    assert check_query("  hi  ") == "hi" and check_query("\t") is None
    assert len(check_query("x" * 10_000)) == 500
    with pytest.raises(ValueError, match="string"):
        check_query(None)
    with pytest.raises(ValueError, match="model"):
        Explorer({}, "q", [])


def test_measure_latency_reports_every_update(minilm):
    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES, debounce_s=0)
    out = measure_latency(app, ["a", "ab", "abc"], repeats=2)
    assert out["updates"] == 6 and 0 < out["median_ms"] <= out["p90_ms"] <= out["max_ms"]
    app.query.value = "painkiller"  # still live after timing
    assert page_order(app)[0] == "aspirin"


def test_query_variants_come_from_pearl_augment_and_are_stable():
    from pearl.corpus.augment import LEVELS
    from pearl.display.similarity import QueryVariants

    variants = QueryVariants(seed=0, lexicons=None)
    a = variants("The New York Times")
    assert a == variants("The New York Times"), "same query, same variants"
    ops = {op for names in LEVELS.values() for op in names}
    assert set(a) <= ops and {"char_swap", "token_swap"} <= set(a)
    assert all(v != "The New York Times" for v in a.values())


def test_torch_threads_restores_the_thread_count():
    import torch
    from pearl.encode import torch_threads

    before = torch.get_num_threads()
    with pytest.raises(RuntimeError):
        with torch_threads(1):
            assert torch.get_num_threads() == 1
            raise RuntimeError("boom")
    assert torch.get_num_threads() == before
    with torch_threads(0):  # 0: leave torch's setting alone
        assert torch.get_num_threads() == before


def test_a_failing_update_is_shown_not_swallowed(minilm):
    def broken(_query):
        raise RuntimeError("augmentation lexicons are corrupt")

    app = Explorer({"minilm": minilm}, "", CANDIDATES, augment=broken, debounce_s=0)  # empty query: no variants
    app.query.value = "painkiller"
    assert "augmentation lexicons are corrupt" in app.status.value


def test_keystrokes_bypass_the_disk_cache(tmp_path):
    """A query typed into the explorer is encoded by the model itself: never written to the on-disk
    cache, and forgotten by keep_only, so a timed cold query really is cold."""
    from _tiny import tiny_backbone

    from pearl.cache import cached
    from pearl.display.similarity import EmbeddingCache
    from pearl.encode import Encoder

    backbone, tok = tiny_backbone(dropout=0.0)
    model = cached(Encoder(name="tiny", dim=32, model=backbone.eval(), tokenizer=tok, max_length=32),
                   tmp_path / "e.sqlite")
    cache = EmbeddingCache(model)
    first = cache(["The New York Times", "NYTimes"])
    cache.keep_only([])
    np.testing.assert_array_equal(cache(["The New York Times", "NYTimes"]), first)
    assert model.extra["vectors"].encoded == 0 and model.extra["vectors"].store.count() == 0
    assert cache.misses == 4


def test_views_summary_and_no_latency_study_in_a_live_session(minilm):
    from pearl.display import explorer, similarity

    app = Explorer({"minilm": minilm}, "The New York Times", CANDIDATES)
    assert "New York Post" in app.view(static=True).data and app.view(static=False) is not None
    variants = similarity.QueryVariants(lexicons=None)
    line = explorer.summary_line(["a", "b"], variants)
    assert line == "Vocabulary: 2 AutoFJ names · augmentation lexicons: absent (make model builds them)"

    class NoRun:
        def save(self, *_):
            raise AssertionError("a live session saves nothing")

    assert explorer.latency_study(NoRun(), app, {"minilm": minilm}, ["a"], variants, 1, repeats=1, static=False) is None


def test_the_models_line_names_the_models_and_the_command_that_adds_pearl(monkeypatch, tmp_path):
    """Without a PEARL model the page says where none was found and that `make model` adds one;
    with one, that PEARL ranks beside its backbone."""
    from pearl.display.explorer import models_line
    from pearl.models import label

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    alone = models_line(["minilm"])
    assert alone.startswith(f"Models found: {label('minilm')}, and no PEARL model in {tmp_path / 'models'}")
    assert "run `make model`" in alone and "reload this page" in alone
    assert "notebook 09" in models_line(["mlm-wiki"], "raw-lm")
    both = models_line(["minilm", str(tmp_path / "models" / "pearl-minilm-seed0")])
    assert both == (f"Models found: {label('minilm')}, PEARL seed 0 (MiniLM backbone). Each ranks the candidates in "
                    "its own column, PEARL beside its backbone.")


def test_the_raw_lm_preset_lists_the_lm_then_its_trained_models(monkeypatch, tmp_path):
    """The preset names what exists: the raw LM always, its PEARL and SimCSE seed-0 folders once trained."""
    import pytest

    from pearl.display.explorer import preset_models

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    assert preset_models("raw-lm") == ["mlm-wiki"]
    import shutil

    from _tiny import tiny_exported

    _, _, made = tiny_exported(tmp_path / "models" / "simcse-mlmwiki-seed0")  # folders that verify
    for name in ("pearl-mlmwiki-seed0", "pearl-mlmwiki-seed1"):
        shutil.copytree(made, tmp_path / "models" / name)
    got = preset_models("raw-lm")
    assert got[0] == "mlm-wiki" and [p.rsplit("/", 1)[-1] for p in got[1:]] == ["pearl-mlmwiki-seed0",
                                                                              "simcse-mlmwiki-seed0"]
    with pytest.raises(ValueError, match="raw-lm"):
        preset_models("bert")


def _hashed_encoder():
    """A model that costs nothing: each phrase's vector from its hash (the explorer's bounds, not its ranking)."""
    import zlib

    from pearl.encode import Encoder

    def fn(phrases):
        return np.stack([np.random.default_rng(zlib.crc32(p.encode())).normal(size=8) for p in phrases]).astype(np.float32)
    return Encoder(name="hashed", dim=8, device="cpu", fn=fn, extra={"fingerprint": "hashed"})


def test_pasted_candidates_are_capped_and_the_page_says_so():
    """Before: 50,000 pasted candidates blocked one update for 101 s and drew 21.5 MB of HTML. Now the
    first MAX_CANDIDATES are ranked, MAX_ROWS drawn per model, and the status line says what was left out."""
    from pearl.display.similarity import MAX_CANDIDATES, MAX_ROWS

    pasted = [f"name {i}" for i in range(MAX_CANDIDATES + 500)]
    app = Explorer({"hashed": _hashed_encoder()}, "name 7", pasted, debounce_s=0)
    assert len(app.current_candidates("name 7")) == MAX_CANDIDATES
    assert len(page_order(app, "hashed")) == MAX_ROWS and f"and {MAX_CANDIDATES - MAX_ROWS:,} more ranked" in app.ranking.value
    assert "500 left out" in app.status.value and len(app.ranking.value) < 100_000


def test_a_smoke_model_is_labelled_so(monkeypatch, tmp_path):
    """Before: the explorer presented a SMOKE model as PEARL. Now its label carries the note of its pearl.json."""
    import json

    from pearl.display.explorer import models_line
    from pearl.models import noted_label

    folder = tmp_path / "models" / "pearl-minilm-seed0"
    folder.mkdir(parents=True)
    (folder / "pearl.json").write_text(json.dumps({"smoke": True, "note": "SMOKE run: tiny sizes; not a result"}))
    assert noted_label(folder) == "PEARL seed 0 (MiniLM backbone) [SMOKE run]"
    assert "PEARL seed 0 (MiniLM backbone) [SMOKE run]" in models_line(["minilm", str(folder)])
    assert noted_label("minilm") == noted_label("minilm").split(" [")[0]


def test_the_explorer_page_asks_no_cdn_for_its_fonts():
    """Before: Voila's lab template asked cdn.jsdelivr.net for Font Awesome twice; offline both failed.
    make explorer serves notebook 06 with pearl-offline, lab's template without those two links."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    template = root / "notebooks" / "jupyter" / "voila" / "templates" / "pearl-offline"
    text = (template / "index.html.j2").read_text()
    body = text.split("-#}", 1)[1]  # after the comment that names what was left out
    assert "http" not in body and "extends 'lab/index.html.j2'" in body and "super.super()" in body
    make = (root / "Makefile").read_text()
    assert "JUPYTER_PATH=$(CURDIR)/notebooks/jupyter" in make and "--template=pearl-offline" in make
