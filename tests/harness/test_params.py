"""Notebook parameters: a name papermill injected that the notebook does not declare stops it,
listing the declared ones; a SMOKE run's preamble switches its output root."""
import os
from pathlib import Path

import pytest
from harness.scale import SMOKE_ROOT
from pearl import paths
from harness.params import ParameterError, check_params, injected

ROOT = Path(__file__).resolve().parents[2]
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


def test_declared_parameters_pass_and_leave_the_process_alone(monkeypatch):
    """check_params only checks: the scale SMOKE implies is the preamble's (tests/harness/test_preamble.py)."""
    before = dict(os.environ)
    assert check_params(_papermill_namespace(SMOKE=True), DECLARED)["SMOKE"] is True
    assert dict(os.environ) == before


def test_a_smoke_run_never_writes_into_the_repository(monkeypatch):
    from harness.preamble import start

    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    start("unit_params", _papermill_namespace(SMOKE=True), DECLARED, env={})
    assert paths.output_root() == ROOT / SMOKE_ROOT
    monkeypatch.setenv("PEARL_OUTPUT", str(ROOT))  # whatever the reader sets
    start("unit_params", _papermill_namespace(SMOKE=True), DECLARED, env={})
    assert paths.output_root() == ROOT / SMOKE_ROOT
    monkeypatch.delenv("PEARL_OUTPUT")
    start("unit_params", _papermill_namespace(SMOKE=False), DECLARED, env={})
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


@pytest.mark.parametrize("given, match", [
    ({"SEEDS": []}, r"SEEDS = \[\] is out of range: it must be a non-empty list of distinct integers >= 0"),
    ({"SEEDS": [0, 0]}, r"SEEDS = \[0, 0\] .*distinct"),
    ({"SEEDS": [-1]}, r"SEEDS = \[-1\]"),
    ({"STEPS": 0}, r"STEPS = 0 is out of range: it must be an integer >= 1"),
    ({"LR": float("nan")}, r"LR = nan .*finite number > 0"),
    ({"AVERAGE": 2.0}, r"AVERAGE = 2.0 .*\[0, 1\]"),
    ({"HARD_NEGATIVES": -1}, r"HARD_NEGATIVES = -1 .*>= 0"),
    ({"HARD_NEGATIVES": [0, -2]}, r"HARD_NEGATIVES = \[0, -2\] .*list of integers >= 0"),
    ({"PHRASE_SHARE": 0.0}, r"PHRASE_SHARE = 0.0 .*\(0, 1\]"),
    ({"LABEL_SHARES": [0.5, 1.5]}, r"LABEL_SHARES .*shares in \(0, 1\]"),
    ({"WORKERS": 0}, r"WORKERS = 0"),
    ({"VARIANT": "../x"}, r"VARIANT = '../x' .*ASCII letters, digits, '-', '_' and '\.' only, not '\.' alone, no '\.\.'"),
    ({"VARIANT": "a/b"}, r"VARIANT = 'a/b'"),
])
def test_a_parameter_out_of_range_is_named_with_its_value_and_range(given, match):
    with pytest.raises(ParameterError, match=match):
        check_params(given, {name: type(value) if not isinstance(value, float) else float for name, value in given.items()})


def test_every_notebooks_defaults_are_in_range():
    import re

    for src in sorted((ROOT / "notebooks" / "src").glob("*.py")):
        cell = re.search(r'# %% tags=\["parameters"\]\n(.*?)\n# %%', src.read_text(), re.S).group(1)
        namespace = {"__annotations__": {}}
        exec(cell, namespace)
        check_params(namespace, namespace["__annotations__"])


def test_a_variant_that_leaves_models_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    """Notebook 03 with -p VARIANT "../x": its first code cell stops, and no folder is written."""
    import papermill as pm

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "out"))
    with pytest.raises(pm.PapermillExecutionError, match=r"VARIANT = '\.\./x' is out of range"):
        pm.execute_notebook(str(ROOT / "notebooks" / "03_training.ipynb"), str(tmp_path / "03.ipynb"),
                            parameters={"SMOKE": True, "VARIANT": "../x"}, kernel_name="pearl",
                            cwd=str(ROOT / "notebooks"), progress_bar=False)
    assert not (tmp_path / "out").exists() and not (tmp_path / "x").exists()


def test_folder_names_and_output_paths_stay_under_their_root(tmp_path, monkeypatch):
    from pearl.models import folder_name

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    for bad in ("../x", "x/../../../results/evil", "a/b", ".."):
        with pytest.raises(paths.UnsafeName, match="cannot name a folder"):
            folder_name("pearl", "minilm", 0, variant=bad)
    with pytest.raises(paths.UnsafeName, match="cannot name a folder"):
        folder_name("pearl", "models/..", 0)  # a backbone folder whose last part is ..
    with pytest.raises(paths.UnsafeName, match="leaves its output folder"):
        paths.models_dir("x/../../../results/evil")
    with pytest.raises(paths.UnsafeName, match="leaves its output folder"):
        paths.results_dir("/etc/passwd")
    assert paths.models_dir("pearl-minilm-seed0") == tmp_path / "models" / "pearl-minilm-seed0"


def test_a_folder_name_accepts_exactly_the_characters_its_message_promises():
    """The message says "ASCII letters, digits, '-', '_' and '.' only"; the check used to accept a space,
    a quote, 'é' or a control character as well. Each other character is now refused, named."""
    import string

    allowed = set(string.ascii_letters + string.digits + "-_.")
    for c in string.printable + "éß€\u200b\x7f\x00":
        name = f"a{c}b"
        if c in allowed:
            assert paths.safe_name(name) == name
        else:
            with pytest.raises(paths.UnsafeName, match=r"cannot name a folder: it holds .*; use ASCII letters, digits, "
                                                       r"'-', '_' and '\.' only \(not '\.' alone, no '\.\.'\)"):
                paths.safe_name(name, "VARIANT")
    for bad, said in (("", "it is empty"), (".", "it is '.'"), ("a..b", "it holds '..'"), ("new york", "it holds ' '")):
        with pytest.raises(paths.UnsafeName, match=said):
            paths.safe_name(bad)


def test_a_relative_pearl_output_is_taken_from_the_repository_root(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)  # a kernel's working folder is notebooks/, not the root
    monkeypatch.setenv("PEARL_OUTPUT", "scratch-relative")
    assert paths.output_root() == ROOT / "scratch-relative"
    monkeypatch.setenv("PEARL_OUTPUT", "../elsewhere")
    assert paths.output_root() == ROOT.parent / "elsewhere"


def test_check_params_names_the_fix_for_a_list_passed_as_a_string():
    with pytest.raises(ParameterError, match=r'-y "SEEDS: \[0, 1\]"'):
        check_params({"SEEDS": "[0, 1]"}, {"SEEDS": list})
    with pytest.raises(ParameterError, match="-p SMOKE True"):
        check_params({"SMOKE": "true"}, {"SMOKE": bool})
    with pytest.raises(ParameterError, match="must be a int"):
        check_params({"STEPS": True}, {"STEPS": int})


def test_check_params_accepts_defaults_none_and_ints_for_floats():
    ns = {"SEEDS": [0], "STEPS": None, "LR": 3, "NAME": "x", "OTHER": object()}
    assert check_params(ns, {"SEEDS": list, "STEPS": int, "LR": float, "NAME": str}) == \
        {"SEEDS": [0], "STEPS": None, "LR": 3, "NAME": "x"}


def test_a_name_too_long_for_a_folder_is_refused_naming_its_length():
    """Before: a 300-character VARIANT passed the check and failed at mkdir (ENAMETOOLONG)."""
    assert paths.safe_name("v" * paths.MAX_NAME) == "v" * paths.MAX_NAME
    with pytest.raises(paths.UnsafeName, match=r"VARIANT 'v{60}'\.\.\. cannot name a folder: it is 300 characters long;"
                                               r".*at most 100 characters"):
        paths.safe_name("v" * 300, "VARIANT")
