"""pearl.paths' output root: a ``root`` passed down, else ``$PEARL_OUTPUT`` or the repository; the
scale never enters here, and nothing in pearl writes the variable."""
import re

from pearl import paths


def test_the_output_root_reads_only_pearl_output(monkeypatch, tmp_path):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    assert paths.output_root() == paths.ROOT
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    assert paths.output_root() == tmp_path.resolve()
    monkeypatch.setenv("PEARL_OUTPUT", "smoke-output")  # relative: to the repository root, not the working folder
    assert paths.output_root() == paths.ROOT / "smoke-output"


def test_a_root_passed_down_places_every_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "default"))
    for folder, where in ((paths.results_dir, "results"), (paths.figures_dir, "figures"), (paths.models_dir, "models"),
                          (paths.derived_dir, "data/derived")):
        assert folder("x.json", root=tmp_path / "given") == tmp_path / "given" / where / "x.json"
        assert folder("x.json") == tmp_path / "default" / where / "x.json"
    assert paths.os.environ["PEARL_OUTPUT"] == str(tmp_path / "default")


def test_nothing_in_pearl_writes_the_output_root_variable():
    """The root is decided once by the caller (the harness's preamble, a script's start), never rewritten
    by the library mid-run: no module of pearl assigns, pops or sets ``$PEARL_OUTPUT``."""
    writes = re.compile(r"environ\[[^]]*\]\s*=|environ\.(?:pop|setdefault|update)\(|putenv\(|unsetenv\(")
    found = [f"{p.relative_to(paths.ROOT)}:{n}" for p in sorted((paths.ROOT / "lib" / "pearl").rglob("*.py"))
             for n, line in enumerate(p.read_text().splitlines(), 1)
             if writes.search(line) and ("OUTPUT" in line or "environ.update" in line)]
    assert found == []


def test_an_unusable_pearl_output_is_named_with_the_fix(monkeypatch, tmp_path):
    """A file, a path under a file, or a folder this user cannot write: each used to surface later as a
    bare FileExistsError / NotADirectoryError / PermissionError from a mkdir deep in a run."""
    import pytest
    from harness.scale import use_output

    afile = tmp_path / "results.txt"
    afile.write_text("not a folder")
    fix = r"Point \$PEARL_OUTPUT at a folder you can write \(it is created when absent\), or unset it"
    for value, problem in ((afile, "is a file, not a folder"), (afile / "out", f"lies under {afile}, which is a file")):
        monkeypatch.setenv("PEARL_OUTPUT", str(value))
        with pytest.raises(NotADirectoryError, match=rf"^\$PEARL_OUTPUT={value} \({value}\) {problem}\. {fix}"):
            paths.results_dir("04_benchmark.json")
    with pytest.raises(NotADirectoryError, match=r"is a file, not a folder\. Point \$PEARL_OUTPUT"):
        use_output(afile)
    locked = tmp_path / "locked"
    locked.mkdir()
    real = paths.os.access
    monkeypatch.setattr(paths.os, "access", lambda p, mode: False if str(p) == str(locked) else real(p, mode))
    monkeypatch.setenv("PEARL_OUTPUT", str(locked / "out"))  # absent: its nearest folder must be writable
    with pytest.raises(PermissionError, match=rf"cannot be written: {locked} is not writable by this user\. {fix}"):
        paths.output_root()
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path / "fresh" / "out"))  # absent under a writable folder: fine
    assert paths.results_dir("x.json") == tmp_path / "fresh" / "out" / "results" / "x.json"
