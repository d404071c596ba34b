"""The records notebooks 04 and 07 save from scored rows, keyed model/dataset; the one
many-model scorer, run_models, with its models grouped by recipe and in worker processes, and
run_model_sets, several sets of groups in one pool."""
import pandas as pd
import pytest

import pearl.workers
from pearl.benchmark import scoring, short_text
from pearl.benchmark.scoring import run_model_sets, run_models
from pearl.benchmark.tasks import SUITES


@pytest.fixture
def thread_workers(monkeypatch):
    """Workers as threads (they see the test's fakes); the notebooks' smoke runs use real processes."""
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(pearl.workers, "executor", lambda n: ThreadPoolExecutor(n))


def _rows():
    return [{"model": "m", "dataset": "bird", "score": 60.0, "seconds": 2.0,
             "details": {"dictionary": "standin", "n": 3, "runs": [1], "fingerprint": "f", "encode_all_s": 0.5}},
            {"model": "m", "dataset": "turney", "score": 50.0, "seconds": 1.0,
             "details": {"n": 4, "runs": [2], "fingerprint": "f"}}]


def test_table1_record_splits_the_dictionary_from_the_other_details():
    tbl = pd.DataFrame({"model": ["m", "m"], "dataset": ["bird", "average"], "score": [60.0, 55.0]})
    record = scoring.table1_record(tbl, _rows())
    assert record["metrics"] == {"m/bird": 60.0, "m/average": 55.0}
    assert record["dictionaries"] == {"m/bird": "standin"}
    assert record["details"]["m/bird"] == {"n": 3, "runs": [1], "fingerprint": "f", "encode_all_s": 0.5}
    assert record["seconds"] == {"m/bird": 2.0, "m/turney": 1.0}


def test_table2_record_keeps_runs_and_per_model_encoding():
    tbl = pd.DataFrame({"model": ["m"], "dataset": ["bird"], "score": [60.0], "std": [0.5]})
    record = scoring.table2_record(tbl, _rows(), [{"set": "x"}], 7)
    assert list(record) == ["metrics", "std", "sets", "atis_train_queries_up_to_3_tokens", "runs", "seconds",
                            "encode_s", "fingerprints"]  # the order of notebook 07's results file
    assert record["std"] == {"m/bird": 0.5} and record["runs"] == {"m/bird": [1], "m/turney": [2]}
    assert record["encode_s"] == {"m": 0.5} and record["fingerprints"] == {"m": "f"}
    assert (record["sets"], record["atis_train_queries_up_to_3_tokens"]) == ([{"set": "x"}], 7)


def test_workers_score_the_same(thread_workers):
    folders = {"baseline": ["char3gram-jaccard"], "again": ["char3gram-jaccard"]}
    one = run_models(folders, size="tiny", datasets=["bird", "turney"], log=lambda _: None)
    two = run_models(folders, size="tiny", datasets=["bird", "turney"], log=lambda _: None, workers=2)
    cols = ["group", "folder", "dataset", "score"]
    assert [[r[c] for c in cols] for r in one] == [[r[c] for c in cols] for r in two]
    assert [r["group"] for r in one] == ["baseline", "baseline", "again", "again"]


def test_sets_in_one_pool_score_as_each_set_alone(thread_workers):
    originals = {"a": ["char3gram-jaccard"]}
    trained = {"a": ["char3gram-jaccard", "glove"], "b": ["glove"]}  # group names shared across sets
    logged = []
    both = run_model_sets({"originals": originals, "trained": trained, "control": {}}, size="tiny",
                          datasets=["bird"], log=logged.append, workers=2)
    cols = ["group", "folder", "model", "dataset", "score"]
    for name, groups in (("originals", originals), ("trained", trained)):
        alone = run_models(groups, size="tiny", datasets=["bird"], log=lambda _: None)
        assert [[r[c] for c in cols] for r in both[name]] == [[r[c] for c in cols] for r in alone]
    assert both["control"] == [] and sum("scored in a worker process" in line for line in logged) == 4


def test_workers_pass_the_scorers_log_back(thread_workers):
    folders = {"baseline": ["char3gram-jaccard"], "again": ["char3gram-jaccard"]}
    logged = []
    run_models(folders, size="tiny", datasets=["bird"], log=logged.append, workers=2)
    assert any("bird" in line for line in logged) and sum("scored in a worker process" in line for line in logged) == 2


def test_the_short_text_suite_gives_one_row_per_model_and_set(thread_workers):
    folders = {"baseline": ["glove"], "again": ["glove"]}
    logged = []
    out = pd.DataFrame(run_models(folders, size="tiny", datasets=SUITES["table2"], log=logged.append, workers=2))
    assert list(out.groupby("group", sort=False).size()) == [4, 4] and set(out["dataset"]) == set(short_text.SETS)
    assert out[out["group"] == "again"]["score"].tolist() == out[out["group"] == "baseline"]["score"].tolist()
    assert sum("scored in a worker process" in line for line in logged) == 2
