"""pearl.paths' output root: ``$PEARL_OUTPUT`` or the repository; the scale never enters here."""
from pearl import paths
from pearl.scale import SMOKE


def test_the_output_root_reads_only_pearl_output(monkeypatch, tmp_path):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    assert paths.output_root() == paths.ROOT
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    assert paths.output_root() == tmp_path.resolve()
    monkeypatch.setenv("PEARL_OUTPUT", "smoke-output")  # relative: to the repository root, not the working folder
    assert paths.output_root() == paths.ROOT / "smoke-output"


def test_use_output_and_output_at_move_the_root_for_workers_too(monkeypatch, tmp_path):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    with paths.output_at(SMOKE.output_root()) as root:
        assert root == paths.output_root() == paths.ROOT / paths.SMOKE_ROOT
        assert paths.os.environ["PEARL_OUTPUT"] == str(root)  # what a spawned worker inherits
    assert "PEARL_OUTPUT" not in paths.os.environ
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    with paths.output_at(paths.ROOT):
        assert paths.output_root() == paths.ROOT and "PEARL_OUTPUT" not in paths.os.environ
    assert paths.output_root() == tmp_path.resolve()


def test_an_unusable_pearl_output_is_named_with_the_fix(monkeypatch, tmp_path):
    """A file, a path under a file, or a folder this user cannot write: each used to surface later as a
    bare FileExistsError / NotADirectoryError / PermissionError from a mkdir deep in a run."""
    import pytest

    afile = tmp_path / "results.txt"
    afile.write_text("not a folder")
    fix = r"Point \$PEARL_OUTPUT at a folder you can write \(it is created when absent\), or unset it"
    for value, problem in ((afile, "is a file, not a folder"), (afile / "out", f"lies under {afile}, which is a file")):
        monkeypatch.setenv("PEARL_OUTPUT", str(value))
        with pytest.raises(NotADirectoryError, match=rf"^\$PEARL_OUTPUT={value} \({value}\) {problem}\. {fix}"):
            paths.results_dir("04_benchmark.json")
    with pytest.raises(NotADirectoryError, match=r"is a file, not a folder\. Point \$PEARL_OUTPUT"):
        paths.use_output(afile)
    locked = tmp_path / "locked"
    locked.mkdir()
    real = paths.os.access
    monkeypatch.setattr(paths.os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode))
    monkeypatch.setenv("PEARL_OUTPUT", str(locked / "out"))  # absent: its nearest folder must be writable
    with pytest.raises(PermissionError, match=rf"cannot be written: {locked} is not writable by this user\. {fix}"):
        paths.output_root()
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "fresh" / "out"))  # absent under a writable folder: fine
    assert paths.results_dir("x.json") == tmp_path / "fresh" / "out" / "results" / "x.json"
