"""Fault test of the batch run: notebooks 01-03 at SMOKE size, 03 SIGKILLed mid-run (papermill,
its kernel and all) and run again, export the same model as an uninterrupted run.

Slow (several minutes of papermill on 2 cores): runs under ``make test-all``, not ``make test``."""
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MODEL = "models/pearl-minilm-seed0"


def _papermill(name, output_root, scratch):
    env = {**os.environ, "PEARL_OUTPUT": str(output_root),
           "PYTHONPATH": os.pathsep.join([str(ROOT / "lib"), str(ROOT / "tests"), os.environ.get("PYTHONPATH", "")])}
    cmd = [sys.executable, "-m", "papermill", str(ROOT / "notebooks" / name), str(scratch / f"{output_root.name}-{name}"),
           "-p", "SMOKE", "True", "-k", "pearl", "--cwd", str(ROOT / "notebooks"), "--no-progress-bar"]
    # own session: SIGKILL reaches papermill and the kernel it started, as a killed batch job would
    return subprocess.Popen(cmd, env=env, start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _run(name, output_root, scratch):
    proc = _papermill(name, output_root, scratch)
    out, _ = proc.communicate(timeout=900)
    assert proc.returncode == 0, out.decode()[-3000:]


@pytest.mark.slow
@pytest.mark.notebooks
def test_batch_run_killed_mid_training_exports_the_same_model(tmp_path):
    from safetensors.torch import load_file

    first, second = tmp_path / "uninterrupted", tmp_path / "killed"
    for name in ("01_data_building.ipynb", "02_augmentation.ipynb"):
        _run(name, first, tmp_path)
    shutil.copytree(first, second)  # the same derived data for both
    start = time.perf_counter()
    _run("03_training.ipynb", first, tmp_path)
    wall = time.perf_counter() - start
    delay = random.Random(0).uniform(0.4, 0.8) * wall  # seeded: somewhere mid-notebook
    proc = _papermill("03_training.ipynb", second, tmp_path)
    try:
        proc.wait(timeout=delay)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, f"03 finished within {delay:.0f} s: not killed mid-run"
    _run("03_training.ipynb", second, tmp_path)
    for part in ("model.safetensors", "char_encoder.safetensors", "type_head.safetensors"):
        a, b = load_file(first / MODEL / part), load_file(second / MODEL / part)
        assert a.keys() == b.keys()
        for k in a:
            assert (a[k] == b[k]).all(), f"{part}:{k} differs after the killed run"
