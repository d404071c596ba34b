"""The task registry: every task is data, the sweep suite is deterministic and keeps the gold
names of its queries, and each task's ``texts`` lists every phrase its evaluator encodes (so
Table 1 can encode them all once, up front)."""
import numpy as np
import pytest

from pearl import paths
from pearl.benchmark import pools, scoring
from pearl.benchmark.tasks import GROUPS, SUITES, SWEEP, TASKS, task
from pearl.data import read_ppdb, read_retrieval
from pearl.encode import Encoder


def test_every_task_is_in_one_group_of_the_paper_and_one_suite():
    assert sorted(d for names in GROUPS.values() for d in names) == sorted(SUITES["table1"])
    assert all(TASKS[d].group == g for g, names in GROUPS.items() for d in names)
    assert all(TASKS[d].group == "short text" for d in SUITES["table2"])
    assert sorted(d for suite in SUITES.values() for d in suite) == sorted(TASKS)


def test_unknown_sizes_and_tasks_name_the_choices():
    with pytest.raises(ValueError, match="sweep"):
        TASKS["bird"].run(None, size="huge")
    with pytest.raises(ValueError, match="ppdb_filtered"):
        task("sts")


def _hash_vectors(phrases):
    """A fast stand-in for the reference encoder: 8 numbers from each phrase's md5."""
    import hashlib

    return np.array([np.frombuffer(hashlib.md5(p.encode()).digest()[:8], dtype=np.uint8) for p in phrases],
                    dtype=np.float32) - 127.5


@pytest.fixture
def fake_reference(monkeypatch):
    """Pools built with a hash encoder instead of MiniLM (which would encode 86,000 UMLS names)."""
    monkeypatch.setattr(pools, "REFERENCE", "hash-test")
    monkeypatch.setattr(pools, "reference_encoder", lambda: Encoder(name="hash", dim=8, fn=_hash_vectors))


def test_sweep_retrieval_is_deterministic_and_keeps_the_gold_names(fake_reference):
    first, again = TASKS["umls"].load("sweep"), TASKS["umls"].load("sweep")
    assert first["pairs"] == again["pairs"] and first["dictionary"] == again["dictionary"]
    assert len(first["pairs"]) == SWEEP["retrieval"]
    names = set(first["dictionary"])
    assert {g for _, g in first["pairs"]} <= names  # every sampled query's gold name
    assert "sweep" in first["info"] and first["info"]["pool"]["reference"] == "hash-test"
    full = TASKS["umls"].load("full")["dictionary"]
    assert names <= set(full) and len(names) < len(full) / 4
    # each query's nearest names under the reference are in the pool, so it keeps the hard ones
    near = pools.semantic_neighbours([m for m, _ in first["pairs"][:50]], full, pools.K_SEMANTIC,
                                     pools.reference_encoder())
    assert all(full[i] in names for i in near.ravel())


def test_pools_keep_gold_names_and_each_references_nearest():
    names = ["Paris", "Parish", "Paris Hilton", "Rome", "Romania", "Oslo", "Lisbon"]
    parts = {"t": (["Pariss", "Rom"], [["Paris"], ["Lisbon"]], names)}
    lengths = Encoder(name="len", dim=2, fn=lambda ps: np.array([[len(p), 1.0] for p in ps], dtype=np.float32))
    pooled = pools.pool(parts, lengths, k_lexical=1, k_semantic=0)["t"]
    assert pooled == ["Paris", "Rome", "Lisbon"]  # golds, and "Rom"'s nearest 3-grams; dictionary order
    assert pools.pool(parts, lengths, k_lexical=0, k_semantic=0)["t"] == ["Paris", "Lisbon"]
    semantic = {names[i] for i in pools.semantic_neighbours(["Pariss", "Rom"], names, 1, lengths).ravel()}
    assert "Parish" in semantic  # same length as "Pariss": the toy encoder's nearest
    assert set(pools.pool(parts, lengths, 1, 1)["t"]) == {"Paris", "Rome", "Lisbon"} | semantic


def test_cached_pool_is_built_once(fake_reference, monkeypatch):
    parts = {"t": (["Pariss"], [["Paris"]], ["Paris", "Parish", "Rome"])}
    first, info = pools.cached_pool("toy", parts)
    monkeypatch.setattr(pools, "pool", lambda *a, **k: pytest.fail("rebuilt a cached pool"))
    assert pools.cached_pool("toy", parts) == (first, info) and info["queries"] == 1


def test_a_damaged_pool_file_is_rebuilt_not_read(fake_reference):
    parts = {"t": (["Pariss"], [["Paris"]], ["Paris", "Parish", "Rome"])}
    first, _ = pools.cached_pool("damaged", parts)
    (path,) = paths.derived_dir("dictionaries").glob("damaged_pool_*.json")
    path.write_text('{"pools": ')  # cut short
    with pytest.warns(UserWarning, match="not a pool file"):
        assert pools.cached_pool("damaged", parts)[0] == first


def test_sweep_ppdb_takes_every_pair_and_table1_adds_the_paper_probe():
    sweep, full = TASKS["ppdb_filtered"].load("sweep"), TASKS["ppdb_filtered"].load("full")
    assert sweep["pairs"] == full["pairs"] == read_ppdb(True) and sweep["seeds"] == SWEEP["probe_seeds"]
    assert full["paper_probe"] and "paper_probe" not in sweep and TASKS["ppdb"].load("tiny")["paper_probe"]


def test_sweep_autofj_keeps_every_table_and_pools_each(fake_reference):
    sweep, again, full = TASKS["autofj"].load("sweep"), TASKS["autofj"].load("sweep"), TASKS["autofj"].load("full")
    assert sweep["sets"] == again["sets"] and list(sweep["sets"]) == list(full["sets"])  # all 50 tables
    for name, (left, right, truth) in sweep["sets"].items():
        full_left, _, full_truth = full["sets"][name]
        assert 0 < len(right) <= SWEEP["autofj_queries"] and set(left) <= set(full_left)
        assert {l for r, l in full_truth if r in set(right)} <= set(left)  # every gold left record
        assert set(truth) == {(r, l) for r, l in full_truth if r in set(right)}


class Recorder:
    """A fake encoder function that records every phrase asked for."""

    def __init__(self):
        self.seen = set()

    def __call__(self, phrases):
        self.seen.update(phrases)
        rng = np.random.default_rng(len(phrases))
        return rng.normal(size=(len(phrases), 8)).astype(np.float32)


@pytest.mark.parametrize("name", list(TASKS))
def test_texts_cover_everything_the_evaluator_encodes(name):
    recorder = Recorder()
    inputs = TASKS[name].load("tiny")
    TASKS[name].run(Encoder(name="fake", dim=8, fn=recorder), inputs=inputs)
    assert recorder.seen <= set(TASKS[name].texts(inputs))


def test_sweep_rows_say_so(monkeypatch):
    rows = scoring.run_model("fake", Encoder(name="fake", dim=8, fn=Recorder(), extra={"fingerprint": "x"}),
                            ["bird"], size="sweep", log=lambda _: None)
    assert rows[0]["note"].startswith("sweep size") and rows[0]["size"] == "sweep"
