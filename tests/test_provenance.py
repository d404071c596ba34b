"""pearl.provenance: the commit a batch run records (a throwaway git repository), parameter
checks, and the SMOKE labels on tables."""
import subprocess
from pathlib import Path

import pytest

from pearl import provenance
from pearl.provenance import ParameterError, check_params, git_state


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.org")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "00.json").write_text("{}\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def test_working_tree_state_outside_a_batch_run(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    assert git_state(repo, env={})["git_sha"] == head
    (repo / "code.py").write_text("x = 2\n")
    state = git_state(repo, env={})
    assert state["git_sha"] == head + "-dirty"
    assert state["dirty_at_start"] == ["code.py"] and state["changed_by_run"] is None


def test_batch_run_records_the_start_commit_clean_and_what_it_changed(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "notes.txt").write_text("untracked before the run\n")
    env = {"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "", "PEARL_RUN_UNTRACKED": "notes.txt"}
    # an earlier notebook of the same run rewrote a tracked result and wrote a new figure
    (repo / "results" / "00.json").write_text('{"new": 1}\n')
    (repo / "results" / "figure.png").write_bytes(b"png")
    state = git_state(repo, env=env)
    assert state["git_sha"] == head, "results the run itself wrote must not mark it dirty"
    assert state["dirty_at_start"] == []
    assert state["changed_by_run"] == ["results/00.json", "results/figure.png"]
    # a later commit does not change which commit the run started from
    git(repo, "commit", "-qam", "later")
    assert git_state(repo, env=env)["commit"] == head


def test_batch_run_started_dirty_says_so(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "code.py").write_text("x = 3\n")
    state = git_state(repo, env={"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "code.py"})
    assert state["git_sha"] == head + "-dirty" and state["dirty_at_start"] == ["code.py"]
    assert state["changed_by_run"] == []


def test_outside_git_there_is_no_sha(tmp_path):
    assert git_state(tmp_path, env={})["git_sha"] is None


def test_run_save_records_git_state_and_smoke(scratch_output):
    path = provenance.Run("unit_test", {"SMOKE": True}).save(metrics={"x": 1})
    import json

    record = json.loads(path.read_text())
    assert record["SMOKE"].startswith("smoke-size")
    assert {"git_sha", "commit", "dirty_at_start", "changed_by_run"} <= set(record["provenance"])


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


def test_save_table_writes_booktabs_latex_and_smoke_labels(scratch_output):
    import pandas as pd

    csv, md, tex = provenance.save_table(pd.DataFrame({"model": ["a"], "knn_accuracy": [1.234]}), "unit_table", smoke=True)
    text = tex.read_text()
    assert "\\toprule" in text and "\\midrule" in text and "\\bottomrule" in text
    assert "SMOKE" in text and "SMOKE" in md.read_text() and "smoke" in csv.read_text()
    assert "knn\\_accuracy" in text and "1.234" in text, "LaTeX-escaped names, three decimals"
