"""make rehearse: every notebook of notebooks/ORDER on the gpu profile's code paths at SMOKE size
(python -m harness.batch --rehearse), in a scratch output root.

- CI (``make test``, marker ``notebooks``) runs the data and training notebooks (01-03) of the
  rehearsal: the whole-corpus Wikipedia build on a few articles, every phrase mined, the
  epochs-based schedule with DataLoader workers in the GPU's process layout (one seed);
- ``slow``: the whole rehearsal, and a rehearsal killed in the middle of training (notebook 03)
  and again in the middle of a later notebook, restarted each time, that ends with the same
  tables as an uninterrupted one."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = (ROOT / "notebooks" / "ORDER").read_text().split()


def _env(root: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("PEARL_SMOKE", "PEARL_REHEARSAL")}
    return {**env, "PEARL_OUTPUT": str(root), "PYTHONHASHSEED": "0"}


def _batch(root: Path, *args: str) -> subprocess.Popen:
    """The rehearsal (``args``: its first notebooks, ``--record``) as make rehearse runs it, in a process
    group of its own."""
    return subprocess.Popen([sys.executable, "-m", "harness.batch", "--rehearse", *args], cwd=ROOT,
                            env=_env(root), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True)


def _finish(proc: subprocess.Popen, timeout: float = 1500) -> str:
    out, _ = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, out[-3000:]
    return out


def _kill_when(proc: subprocess.Popen, ready, after: float = 0, timeout: float = 1200) -> None:
    """Kill the batch and every process it started (kernel, DataLoader workers) ``after`` seconds
    once ``ready()``."""
    t0 = time.monotonic()
    while not ready():
        assert proc.poll() is None, "the batch ended before the point to kill it"
        assert time.monotonic() - t0 < timeout, "the point to kill the batch never came"
        time.sleep(0.5)
    time.sleep(after)
    assert proc.poll() is None, "the batch ended before the point to kill it"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _record(root: Path, name: str) -> dict:
    return json.loads((root / "results" / f"{Path(name).stem}.json").read_text())


def _tables(root: Path) -> dict:
    """Every table the batch wrote (results/*.csv), by name, less the ``seconds`` column that
    Tables 1 and 2 carry (a wall time: it differs between any two runs)."""
    import pandas as pd

    return {p.name: pd.read_csv(p).drop(columns="seconds", errors="ignore").to_csv(index=False)
            for p in sorted((root / "results").glob("*.csv"))}


@pytest.mark.notebooks
def test_the_rehearsal_trains_on_the_gpu_profiles_branches(tmp_path, monkeypatch):
    """Notebooks 01-03 of the rehearsal, one seed (CI's time; the slow test trains the three)."""
    from harness import batch

    for key, value in _env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("PEARL_REHEARSAL", "1")
    names = ["01_data_building.ipynb", "02_augmentation.ipynb", "03_training.ipynb"]
    batch.run(names, {"SMOKE": True, "PROFILE": "gpu", "SEEDS": [0]}, log=lambda _: None)
    data = _record(tmp_path, "01_data_building.ipynb")
    assert data["parameters"]["PROFILE"] == "gpu" and data["metrics"]["training_corpus"] == "wikipedia"
    assert data["metrics"]["wikipedia_sample"]["sample"]["stride"] == 1  # the gpu profile's whole-corpus sample
    assert data["parameters"]["N_PROCESS"] == 2  # the multi-process build
    mined = _record(tmp_path, "02_augmentation.ipynb")
    assert mined["parameters"]["HN_ANCHORS"] == 0 and mined["parameters"]["MAX_PHRASES"] == 0  # every phrase
    trained = _record(tmp_path, "03_training.ipynb")
    config = trained["parameters"]["config"]
    assert trained["parameters"]["PROFILE"] == "gpu" and trained["parameters"]["SEEDS"] == [0]
    assert config["steps"] is None and config["epochs"] == 2 and config["num_workers"] > 0  # epochs-based, workers
    assert [m["steps"] for m in trained["metrics"]["models"]] == [8]
    assert (tmp_path / "models" / "pearl-minilm-seed0" / "pearl.json").is_file()


@pytest.mark.slow
def test_the_whole_rehearsal_and_a_killed_one_resumed_end_alike(tmp_path):
    whole = tmp_path / "whole"
    # with make rehearse RECORD=1's record of its wall time, notebook by notebook (read, not asserted:
    # a wall time depends on the machine's load; results/perf/rehearsal.json is the measurement)
    _finish(_batch(whole, "--record", str(tmp_path / "rehearsal.json")))
    timed = json.loads((tmp_path / "rehearsal.json").read_text())
    print(f"the whole rehearsal: {timed['wall_time_s']:.0f} s")
    assert list(timed["notebooks"]) == ORDER and timed["what"] == "make rehearse"
    assert all((whole / "results" / f"{Path(n).stem}.json").is_file() for n in ORDER)
    assert {r["parameters"].get("PROFILE") for n in ORDER for r in [_record(whole, n)]} <= {"gpu", None}

    killed = tmp_path / "killed"
    proc = _batch(killed)  # killed mid-training: seed 1's first checkpoint is written, its model is not
    _kill_when(proc, lambda: (killed / "models" / "runs" / "pearl-minilm-seed1" / "checkpoint.pt").is_file())
    assert not (killed / "models" / "pearl-minilm-seed1").exists()
    proc = _batch(killed)  # killed again in the middle of notebook 08, after it started training or scoring
    state = killed / "results" / "executed" / "batch_state.json"
    _kill_when(proc, lambda: state.is_file() and "07_short_text.ipynb" in json.loads(state.read_text())
               and (killed / "results" / "executed" / "08_ablations.ipynb").is_file(), after=10)
    out = _finish(_batch(killed))
    assert "-- 07_short_text.ipynb skipped" in out and "== 08_ablations.ipynb" in out
    assert "batch_resume" in _record(killed, "03_training.ipynb")
    assert _tables(killed) == _tables(whole)
