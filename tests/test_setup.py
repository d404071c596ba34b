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
