"""harness.preamble.start: every notebook's first cell checks its parameters, resolves its scale
(SMOKE; a rehearsal only when the batch asks for one) and returns the Run recording them."""
import json

import pytest
from pearl import paths
from harness.params import ParameterError
from harness.preamble import REHEARSAL_ENV, requested_scale, start
from harness.scale import FULL, REHEARSAL, SMOKE, SMOKE_ROOT

DECLARED = {"SMOKE": bool, "PROFILE": str, "SEEDS": list}


def test_start_checks_the_parameters_and_records_them_all():
    run = start("unit_preamble", {"SMOKE": False, "PROFILE": "cpu", "SEEDS": [0, 1, 2]}, DECLARED, env={})
    assert run.name == "unit_preamble" and run.scale == FULL
    assert run.params == {"SMOKE": False, "PROFILE": "cpu", "SEEDS": [0, 1, 2]}
    with pytest.raises(ParameterError, match="SEEDS must be a list"):
        start("unit_preamble", {"SMOKE": False, "PROFILE": "cpu", "SEEDS": "[0]"}, DECLARED, env={})


def test_resolved_values_are_recorded_in_place_of_the_given_ones(scratch_output):
    run = start("unit_preamble", {"SMOKE": True, "PROFILE": "cpu", "SEEDS": [0, 1, 2]}, DECLARED, env={})
    assert run.scale == SMOKE
    profile, seeds = run.resolve(PROFILE=run.scale.scaled("cpu"), SEEDS=run.scale.subset([0, 1, 2]))
    assert (profile, seeds) == ("tiny", [0, 1]) and run.resolve(extra=3) == 3
    record = json.loads(run.save(metrics={}).read_text())
    assert record["parameters"] == {"SMOKE": True, "PROFILE": "tiny", "SEEDS": [0, 1], "extra": 3}
    assert list(record)[:4] == ["SMOKE", "notebook", "parameters", "metrics"]
    assert {"timings_s", "wall_time_s", "provenance"} <= set(record)


def test_a_rehearsal_needs_smoke_and_the_batchs_request():
    assert requested_scale({"SMOKE": True}, {REHEARSAL_ENV: "1"}) == REHEARSAL
    assert requested_scale({"SMOKE": True}, {REHEARSAL_ENV: "0"}) == SMOKE
    assert requested_scale({"SMOKE": False}, {REHEARSAL_ENV: "1"}) == FULL  # the request alone means nothing
    assert requested_scale({}, {}) == FULL


def test_a_smoke_start_moves_the_output_root_out_of_the_repository(monkeypatch):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    start("unit_preamble", {"SMOKE": False}, {"SMOKE": bool}, env={})
    assert paths.output_root() == paths.ROOT
    start("unit_preamble", {"SMOKE": True}, {"SMOKE": bool}, env={})
    assert paths.output_root() == paths.ROOT / SMOKE_ROOT  # and the workers it starts inherit it
    monkeypatch.setenv("PEARL_OUTPUT", str(paths.ROOT))  # whatever the reader sets
    start("unit_preamble", {"SMOKE": True}, {"SMOKE": bool}, env={})
    assert paths.output_root() == paths.ROOT / SMOKE_ROOT
