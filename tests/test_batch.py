""".ci/batch.py (make reproduce's and make rehearse's loop): a restarted batch skips the notebooks finished on the same inputs, says so in their
records, and runs again from the first one not finished (or changed). A stand-in runner writes
each notebook's record, so no kernel starts here; tests/test_rehearsal.py runs the real batch."""
import importlib.util
import json
from pathlib import Path

import pytest

from pearl import paths

_spec = importlib.util.spec_from_file_location("batch", Path(__file__).resolve().parents[1] / ".ci" / "batch.py")
batch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(batch)

NAMES = ["00_template.ipynb", "01_data_building.ipynb", "02_augmentation.ipynb"]


class Runner:
    """Writes ``results/<stem>.json`` like a notebook would; ``fail_at`` raises there (a killed run)."""

    def __init__(self, fail_at=None):
        self.ran, self.fail_at = [], fail_at

    def __call__(self, notebook, out, params):
        if notebook.name == self.fail_at:
            raise KeyboardInterrupt("killed")
        self.ran.append(notebook.name)
        paths.results_dir(notebook.stem + ".json").write_text(json.dumps({"notebook": notebook.stem, "n": len(self.ran)}))


@pytest.fixture
def root(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    return tmp_path


def test_a_killed_batch_restarted_skips_what_finished(root):
    first = Runner(fail_at="02_augmentation.ipynb")
    with pytest.raises(KeyboardInterrupt):
        batch.run(NAMES, {"PROFILE": "gpu"}, runner=first, log=lambda _: None)
    assert first.ran == NAMES[:2]
    again = Runner()
    outcome = batch.run(NAMES, {"PROFILE": "gpu"}, runner=again, log=lambda _: None)
    assert outcome == {NAMES[0]: "skipped", NAMES[1]: "skipped", NAMES[2]: "ran"} and again.ran == NAMES[2:]
    record = json.loads((root / "results" / "01_data_building.json").read_text())
    assert record["n"] == 2 and "skipped" in record["batch_resume"]["why"]
    assert "batch_resume" not in json.loads((root / "results" / "02_augmentation.json").read_text())
    # a third run skips everything, the records stay those of the runs that made them
    assert set(batch.run(NAMES, {"PROFILE": "gpu"}, runner=Runner(), log=lambda _: None).values()) == {"skipped"}


def test_other_parameters_or_fresh_run_everything_again(root):
    batch.run(NAMES[:2], {"PROFILE": "gpu"}, runner=Runner(), log=lambda _: None)
    other = Runner()
    batch.run(NAMES[:2], {"PROFILE": "cpu"}, runner=other, log=lambda _: None)
    assert other.ran == ["01_data_building.ipynb"]  # 00_template declares no PROFILE: same inputs, skipped
    fresh = Runner()
    batch.run(NAMES[:2], {"PROFILE": "cpu"}, fresh=True, runner=fresh, log=lambda _: None)
    assert fresh.ran == NAMES[:2]


def test_fresh_keeps_the_state_of_the_notebooks_it_does_not_run(root):
    batch.run(NAMES[:2], {"PROFILE": "cpu"}, runner=Runner(), log=lambda _: None)
    batch.run(NAMES[1:2], {"PROFILE": "cpu"}, fresh=True, runner=Runner(), log=lambda _: None)
    again = Runner()
    assert batch.run(NAMES[:1], {"PROFILE": "cpu"}, runner=again, log=lambda _: None) == {NAMES[0]: "skipped"}


def test_a_run_with_other_parameters_always_runs_apart_from_the_batchs_state(root):
    """make study: notebook 13 at another design through the batch runner (.ci/batch.py --param)."""
    batch.run(NAMES[:1], {"PROFILE": "cpu"}, runner=Runner(), log=lambda _: None)
    outs = []
    for _ in range(2):  # a second study runs again: its record is not the batch's
        batch.run(NAMES[:1], {"PROFILE": "cpu", "DESIGN": "reduced"}, tag="_reduced", log=lambda _: None,
                  runner=lambda nb, out, params: outs.append((out.name, params)))
    assert outs == [("00_template_reduced.ipynb", {})] * 2  # 00 declares neither PROFILE nor DESIGN
    state = batch.read_state()
    assert set(state) == {"00_template.ipynb", "00_template_reduced.ipynb"}
    assert batch.run(NAMES[:1], {"PROFILE": "cpu"}, runner=Runner(), log=lambda _: None) == {NAMES[0]: "skipped"}


def test_a_param_no_notebook_declares_or_without_a_value_stops_with_the_fix(root):
    with pytest.raises(SystemExit, match="declares NOPE in its parameters cell"):
        batch.main(["--param", "NOPE=1", "13_discrepancy.ipynb"])
    with pytest.raises(SystemExit, match="write NAME=VALUE, e.g. --param DESIGN=reduced"):
        batch.main(["--param", "DESIGN", "13_discrepancy.ipynb"])


def test_a_rerun_notebook_reruns_those_after_it(root, monkeypatch):
    batch.run(NAMES, {"PROFILE": "gpu"}, runner=Runner(), log=lambda _: None)
    real = batch.fingerprint
    monkeypatch.setattr(batch, "fingerprint", lambda nb, params, code, previous:
                        real(nb, params, code + ("x" if nb.name == NAMES[1] else ""), previous))
    again = Runner()
    batch.run(NAMES, {"PROFILE": "gpu"}, runner=again, log=lambda _: None)
    assert again.ran == NAMES[1:]  # its inputs changed, and so did those of every notebook after it


def test_a_record_replaced_since_runs_again(root):
    batch.run(NAMES[:1], {}, runner=Runner(), log=lambda _: None)
    (root / "results" / "00_template.json").write_text("{}")  # written by someone else since
    again = Runner()
    batch.run(NAMES[:1], {}, runner=again, log=lambda _: None)
    assert again.ran == NAMES[:1]


def test_parameters_are_those_the_notebook_declares():
    nb = paths.ROOT / "notebooks" / "03_training.ipynb"
    assert batch.parameters(nb, {"PROFILE": "gpu", "INTERACTIVE": False, "SMOKE": True}) == {"PROFILE": "gpu", "SMOKE": True}
    assert "11_methods.ipynb" not in paths.batch_notebooks() and "11_methods.ipynb" in paths.batch_notebooks(separate=True)


def test_a_rehearsal_needs_a_scratch_root(monkeypatch):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    with pytest.raises(SystemExit, match="scratch root"):
        batch.main(["--rehearse"])
