"""A notebook run's record (harness.record.Run): its metrics with undefined ones as null and their
reasons, its own record or only a named one, the git state and the scale it ran at, and the times
measured elsewhere."""
import json
from pathlib import Path

import numpy as np
import pytest
from harness.record import Run


def _strict_load(path):
    def refuse(name):
        raise ValueError(f"{path} holds {name}: not strict JSON")

    return json.loads(Path(path).read_text(), parse_constant=refuse)


def test_undefined_metric_is_null_with_its_reason(scratch_output):
    path = Run("test_undefined", {"alpha": float("inf")}).save(
        metrics={"f1": float("nan"), "acc": np.float32("nan"), "ok": np.float64(0.5), "per_seed": [1.0, float("nan")]},
        undefined={"f1": "no positive examples in the split"})
    record = _strict_load(path)
    assert record["metrics"] == {"f1": None, "acc": None, "ok": 0.5, "per_seed": [1.0, None]}
    assert record["undefined"]["f1"] == "no positive examples in the split"
    assert set(record["undefined"]) == {"f1", "acc", "per_seed/1", "parameters/alpha"}


def test_a_clean_record_has_no_undefined_map(scratch_output):
    assert "undefined" not in _strict_load(Run("test_clean").save(metrics={"x": 1.0}))


def test_a_run_can_write_only_its_named_record(scratch_output):
    from pearl import paths

    both = Run("test_own", {}).save(metrics={"x": 1.0}, also="test_own_design")
    assert both.name == "test_own.json" and paths.results_dir("test_own_design.json").is_file()
    paths.results_dir("test_own.json").unlink()
    only = Run("test_own", {}).save(metrics={"x": 2.0}, also="test_own_design", own=False)
    assert only.name == "test_own_design.json" and not paths.results_dir("test_own.json").exists()
    with pytest.raises(ValueError, match="pass also="):
        Run("test_own", {}).save(metrics={"x": 3.0}, own=False)


def test_a_batch_run_writing_only_its_named_record_lists_that_one(scratch_output, monkeypatch):
    # in a batch run (changed_by_run known) under the repository root: own=False must still hold
    from harness import record
    from pearl import paths

    monkeypatch.setattr(paths, "ROOT", scratch_output)
    monkeypatch.setattr(record, "git_state", lambda: {"git_sha": "abc", "changed_by_run": ["x.csv"]})
    path = Run("test_batch_own", {}).save(metrics={"x": 1.0}, also="test_batch_design", own=False)
    assert path.name == "test_batch_design.json" and not paths.results_dir("test_batch_own.json").exists()
    assert _strict_load(path)["provenance"]["changed_by_run"] == ["results/test_batch_design.json", "x.csv"]


def test_run_save_records_git_state_and_smoke(scratch_output):
    path = Run("unit_test", {"SMOKE": True}).save(metrics={"x": 1})
    record = json.loads(path.read_text())
    assert record["SMOKE"].startswith("smoke-size")
    assert {"git_sha", "commit", "dirty_at_start", "changed_by_run"} <= set(record["provenance"])


def test_times_measured_elsewhere(scratch_output):
    run = Run("time_all_test")
    run.time_all({"train_seed0": 1.23456, "train_seed1": 2})
    assert run.timings == {"train_seed0": 1.235, "train_seed1": 2.0}
