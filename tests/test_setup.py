"""The two descriptions of the environment agree, and lib/ is really tracked."""
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_matches_lock():
    lock = {l.strip() for l in (ROOT / "requirements.lock").read_text().splitlines()
            if l.strip() and not l.startswith("#")}
    env = {l.strip()[2:] for l in (ROOT / "environment.yml").read_text().splitlines()
           if l.strip().startswith("- ") and "==" in l}
    assert lock == env
    assert "torch==2.13.0" in lock


def test_lib_is_tracked_by_git():
    out = subprocess.run(["git", "ls-files", "lib/pearl"], cwd=ROOT, capture_output=True, text=True).stdout
    assert "lib/pearl/encode.py" in out, "lib/ is not tracked: check .gitignore"


def test_the_makefile_declares_what_it_has_and_runs_notebooks_through_the_batch_runner():
    """Every .PHONY target has a rule and every named rule is .PHONY; no recipe starts papermill
    itself: notebooks run through harness.batch (provenance, resume, parameters by declaration)."""
    import re

    text = (ROOT / "Makefile").read_text()
    phony = {t for m in re.finditer(r"^\.PHONY:(.*)$", text, re.M) for t in m[1].split()}
    rules = set(re.findall(r"^([\w-]+):(?!=)", text, re.M))
    assert phony - rules == set(), "declared .PHONY without a rule"
    assert rules - phony == set(), "targets that are no file: declare them .PHONY"
    recipes = [ln for ln in text.splitlines() if ln.startswith("\t")]
    assert not [ln for ln in recipes if "papermill" in ln], "run notebooks through harness.batch, not papermill"
