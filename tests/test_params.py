"""Notebook parameters: a name papermill injected that the notebook does not declare stops it,
listing the declared ones; SMOKE switches the run's output root."""
import os
from pathlib import Path

import pytest
from pearl import paths
from pearl.params import ParameterError, check_params, injected

ROOT = Path(__file__).resolve().parents[1]
DECLARED = {"SMOKE": bool, "MODEL": str, "PHRASES": list}


def _papermill_namespace(**given):
    """A kernel namespace as papermill leaves it: defaults, then the injected cell in ``In``."""
    import papermill.translators as tr

    cell = tr.PythonTranslator.codify(given, "Parameters")
    return {"In": ["", "SMOKE: bool = False", cell], "SMOKE": False, "MODEL": "minilm", "PHRASES": ["a"], **given}


def test_injected_names_come_from_papermills_cell():
    assert injected(_papermill_namespace(SMOKE=True, NOT_A_PARAM=3)) == ["SMOKE", "NOT_A_PARAM"]
    assert injected({"In": ["", "x = 1"]}) == [] and injected({}) == []


def test_an_unknown_parameter_stops_with_the_declared_ones():
    with pytest.raises(ParameterError, match=r"unknown parameter NOT_A_PARAM: this notebook declares SMOKE, MODEL, PHRASES"):
        check_params(_papermill_namespace(NOT_A_PARAM=3), DECLARED)


def test_a_misspelled_parameter_suggests_the_declared_name():
    with pytest.raises(ParameterError, match=r"unknown parameter smoke \(smoke: did you mean SMOKE\?\)"):
        check_params(_papermill_namespace(smoke=True), DECLARED)


def test_declared_parameters_pass_and_smoke_sets_the_mode(monkeypatch):
    monkeypatch.delenv(paths.SMOKE_ENV, raising=False)
    assert check_params(_papermill_namespace(SMOKE=True), DECLARED)["SMOKE"] is True
    assert paths.smoke() and os.environ[paths.SMOKE_ENV] == "1"
    check_params(_papermill_namespace(SMOKE=False), DECLARED)
    assert not paths.smoke()


def test_a_smoke_run_never_writes_into_the_repository(monkeypatch):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    monkeypatch.setenv(paths.SMOKE_ENV, "1")
    assert paths.output_root() == ROOT / paths.SMOKE_ROOT
    monkeypatch.setenv("PEARL_OUTPUT", str(ROOT))  # whatever the reader sets
    assert paths.output_root() == ROOT / paths.SMOKE_ROOT
    monkeypatch.delenv(paths.SMOKE_ENV)
    assert paths.output_root() == ROOT


@pytest.mark.notebooks
def test_papermill_with_an_unknown_parameter_fails_naming_the_declared_ones(scratch_output):
    import papermill as pm

    out = scratch_output / "executed"
    out.mkdir(exist_ok=True)
    with pytest.raises(pm.PapermillExecutionError, match=r"unknown parameter NOT_A_PARAM: this notebook declares SMOKE"):
        pm.execute_notebook(str(ROOT / "notebooks" / "00_template.ipynb"), str(out / "00_unknown.ipynb"),
                            parameters={"SMOKE": True, "NOT_A_PARAM": 3}, kernel_name="pearl",
                            cwd=str(ROOT / "notebooks"), progress_bar=False)
