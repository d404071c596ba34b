"""pearl.paths' rehearsal mark: a SMOKE run that keeps the gpu profile (make rehearse)."""
from pearl import paths


def test_a_rehearsal_is_a_smoke_run_that_keeps_the_gpu_profile(monkeypatch):
    monkeypatch.setenv(paths.REHEARSAL_ENV, "1")
    assert not paths.rehearsal()  # the mark alone means nothing outside a SMOKE run
    assert paths.scaled("gpu") == "gpu" and paths.smoke_seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2, 3, 4]
    paths.set_smoke(True)
    assert paths.rehearsal()
    assert paths.scaled("gpu") == "gpu" and paths.scaled("cpu") == "smoke" and paths.scaled("full") == "smoke"
    assert paths.smoke_seeds([0, 1, 2, 3, 4], 1) == [0, 1, 2] and paths.smoke_subset([0, 1, 2]) == [0, 1]
    assert paths.rehearsal_or(300, 0) == 0
    monkeypatch.setenv(paths.REHEARSAL_ENV, "")
    assert paths.scaled("gpu") == "smoke" and paths.smoke_seeds([0, 1, 2], 1) == [0] and paths.rehearsal_or(300, 0) == 300


def test_a_rehearsal_writes_under_the_smoke_root(monkeypatch):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    monkeypatch.setenv(paths.REHEARSAL_ENV, "1")
    paths.set_smoke(True)
    assert paths.output_root() == paths.ROOT / paths.SMOKE_ROOT
