"""The task registry: every task is data, the sweep suite is deterministic and keeps every gold
name, and each task's ``texts`` lists every phrase its evaluator encodes (so Table 1 can encode
them all once, up front)."""
import numpy as np
import pytest

from pearl.benchmark import table1
from pearl.benchmark.tasks import GROUPS, SWEEP, TASKS, task
from pearl.data import read_ppdb, read_retrieval
from pearl.encode import Encoder


def test_every_task_is_in_one_group_of_the_paper():
    assert sorted(d for names in GROUPS.values() for d in names) == sorted(TASKS)
    assert all(TASKS[d].group == g for g, names in GROUPS.items() for d in names)


def test_unknown_sizes_and_tasks_name_the_choices():
    with pytest.raises(ValueError, match="sweep"):
        TASKS["bird"].run(None, size="huge")
    with pytest.raises(ValueError, match="ppdb_filtered"):
        task("sts")


def test_sweep_retrieval_is_deterministic_and_keeps_every_gold_name():
    first, again = TASKS["umls"].load("sweep"), TASKS["umls"].load("sweep")
    assert first["pairs"] == again["pairs"] and first["dictionary"] == again["dictionary"]
    assert len(first["pairs"]) == SWEEP["retrieval"]
    names = set(first["dictionary"])
    assert {g for _, g in read_retrieval("umls")} <= names  # every gold name, not only the sampled queries'
    assert "sweep" in first["info"]
    full = set(TASKS["umls"].load("full")["dictionary"])
    assert names <= full and len(names) < len(full)


def test_sweep_ppdb_takes_every_pair_and_table1_adds_the_paper_probe():
    sweep, full = TASKS["ppdb_filtered"].load("sweep"), TASKS["ppdb_filtered"].load("full")
    assert sweep["pairs"] == full["pairs"] == read_ppdb(True) and sweep["seeds"] == SWEEP["probe_seeds"]
    assert full["paper_probe"] and "paper_probe" not in sweep and TASKS["ppdb"].load("smoke")["paper_probe"]


def test_sweep_autofj_is_a_seeded_subset():
    sets = TASKS["autofj"].load("sweep")["sets"]
    assert list(sets) == list(TASKS["autofj"].load("sweep")["sets"]) and len(sets) == SWEEP["autofj_tables"]


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
    inputs = TASKS[name].load("smoke")
    TASKS[name].run(Encoder(name="fake", dim=8, fn=recorder), inputs=inputs)
    assert recorder.seen <= set(TASKS[name].texts(inputs))


def test_sweep_rows_say_so(monkeypatch):
    rows = table1.run_model("fake", Encoder(name="fake", dim=8, fn=Recorder(), extra={"fingerprint": "x"}),
                            ["bird"], size="sweep", log=lambda _: None)
    assert rows[0]["note"].startswith("sweep size") and rows[0]["size"] == "sweep"
