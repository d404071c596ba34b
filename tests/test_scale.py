"""pearl.scale: the scale as a value (SMOKE, a rehearsal), passed down as ``scale=``."""
import pickle

import pytest
from pearl import paths
from pearl.scale import FULL, REHEARSAL, SMOKE, Scale


def test_full_size_keeps_everything():
    assert (FULL.scaled("sweep"), FULL.scaled("cpu"), FULL.subset([3, 1, 2])) == ("sweep", "cpu", [3, 1, 2])
    assert FULL.smoke_or(300_000, 300) == 300_000 and FULL.seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2, 3, 4]
    assert FULL.workers(2) == 2


def test_smoke_size_shrinks_every_size_and_list():
    assert (SMOKE.scaled("sweep"), SMOKE.scaled("gpu"), SMOKE.subset([3, 1, 2]), SMOKE.subset("abc", 1)) == \
        ("smoke", "smoke", [3, 1], ["a"])
    assert SMOKE.smoke_or(300_000, 300) == 300 and SMOKE.smoke_or([0, 1, 2], [2]) == [2]
    assert SMOKE.seeds([0, 1, 2], 1) == [0] and SMOKE.rehearsal_or(300, 0) == 300 and SMOKE.workers(2) == 2


def test_a_rehearsal_is_a_smoke_run_that_keeps_the_gpu_profile():
    assert REHEARSAL.scaled("gpu") == "gpu" and REHEARSAL.scaled("cpu") == "smoke" and REHEARSAL.scaled("full") == "smoke"
    assert REHEARSAL.seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2] and REHEARSAL.subset([0, 1, 2]) == [0, 1]
    assert REHEARSAL.rehearsal_or(300, 0) == 0 and REHEARSAL.workers(2) == 1  # the GPU's process layout
    with pytest.raises(ValueError, match="a rehearsal is a SMOKE run"):
        Scale(smoke=False, rehearsal=True)


def test_a_smoke_scale_never_writes_into_the_repository(tmp_path):
    assert SMOKE.output_root(paths.ROOT) == REHEARSAL.output_root(paths.ROOT) == paths.ROOT / paths.SMOKE_ROOT
    assert SMOKE.output_root(tmp_path) == tmp_path and FULL.output_root(paths.ROOT) == paths.ROOT


def test_a_scale_travels_to_worker_processes_pickled():
    assert pickle.loads(pickle.dumps(REHEARSAL)) == REHEARSAL
    assert Scale.of_profile("smoke") == SMOKE and Scale.of_profile("cpu") == FULL
