"""The records notebooks 04 and 07 save from scored rows, keyed model/dataset."""
import pandas as pd
from pearl.benchmark import scoring


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
