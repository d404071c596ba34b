"""harness.scale: the scale as a value (SMOKE, a rehearsal), the one place it becomes pearl's
``"tiny"`` size and profile, its guard, and the output root decided once."""
import os
import pickle

import pytest
from harness.outputs import ScaleGuard
from harness.scale import FULL, REHEARSAL, SMOKE, SMOKE_ROOT, TINY, Scale, use_output
from pearl import paths
from pearl.benchmark.tasks import SIZES
from pearl.training.profiles import PROFILES


def test_full_size_keeps_everything():
    assert (FULL.scaled("sweep"), FULL.scaled("cpu"), FULL.subset([3, 1, 2])) == ("sweep", "cpu", [3, 1, 2])
    assert FULL.smoke_or(300_000, 300) == 300_000 and FULL.seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2, 3, 4]
    assert FULL.workers(2) == 2


def test_smoke_size_shrinks_every_size_and_list():
    assert (SMOKE.scaled("sweep"), SMOKE.scaled("gpu"), SMOKE.subset([3, 1, 2]), SMOKE.subset("abc", 1)) == \
        ("tiny", "tiny", [3, 1], ["a"])
    assert SMOKE.smoke_or(300_000, 300) == 300 and SMOKE.smoke_or([0, 1, 2], [2]) == [2]
    assert SMOKE.seeds([0, 1, 2], 1) == [0] and SMOKE.rehearsal_or(300, 0) == 300 and SMOKE.workers(2) == 2


def test_a_rehearsal_is_a_smoke_run_that_keeps_the_gpu_profile():
    assert REHEARSAL.scaled("gpu") == "gpu" and REHEARSAL.scaled("cpu") == "tiny" and REHEARSAL.scaled("full") == "tiny"
    assert REHEARSAL.seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2] and REHEARSAL.subset([0, 1, 2]) == [0, 1]
    # a rehearsal reaches pearl as a profile size, as a SMOKE run reaches it as the size "tiny"
    assert (REHEARSAL.profile_size, SMOKE.profile_size, FULL.profile_size) == ("small", "full", "full")
    assert REHEARSAL.rehearsal_or(300, 0) == 0 and REHEARSAL.workers(2) == 1  # the GPU's process layout
    with pytest.raises(ValueError, match="a rehearsal is a SMOKE run"):
        Scale(smoke=False, rehearsal=True)


def test_a_smoke_scale_never_writes_into_the_repository(tmp_path):
    assert SMOKE.output_root(paths.ROOT) == REHEARSAL.output_root(paths.ROOT) == paths.ROOT / SMOKE_ROOT
    assert SMOKE.output_root(tmp_path) == tmp_path and FULL.output_root(paths.ROOT) == paths.ROOT


def test_a_smoke_scale_is_pearls_tiny_size_and_profile():
    """The harness's one mapping: what a SMOKE run asks of pearl is a size and a profile pearl names."""
    assert TINY in SIZES and TINY in PROFILES
    assert SMOKE.scaled("full") == SMOKE.scaled("cpu") == TINY


def test_the_guard_of_a_scale_travels_to_worker_processes_pickled():
    assert pickle.loads(pickle.dumps(REHEARSAL)) == REHEARSAL
    guard = pickle.loads(pickle.dumps(SMOKE.guard))
    assert isinstance(guard, ScaleGuard) and guard.smoke and guard.note["smoke"] is True
    assert FULL.guard.note == {} and not FULL.guard.smoke


def test_use_output_sets_the_default_root_once(tmp_path, monkeypatch):
    monkeypatch.delenv(paths.OUTPUT_ENV, raising=False)
    assert use_output(tmp_path / "out") == tmp_path / "out" and os.environ[paths.OUTPUT_ENV] == str(tmp_path / "out")
    assert paths.output_root() == tmp_path / "out"
    assert use_output(paths.ROOT) == paths.ROOT and paths.OUTPUT_ENV not in os.environ
