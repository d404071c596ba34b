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
