"""harness.batch (make reproduce's and make rehearse's loop): a restarted batch skips the notebooks finished on the same inputs, says so in their
records, and runs again from the first one not finished (or changed). A stand-in runner writes
each notebook's record, so no kernel starts here; tests/test_rehearsal.py runs the real batch."""
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pearl import paths

from harness import batch

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


class Readers(Runner):
    """Also reads and writes derived files as the notebooks do: 01 writes the corpus, 02 builds
    the hard negatives from it, 03 trains a model on both; ``also(name)`` runs after ``name`` wrote."""

    def __init__(self, fail_at=None, also=None):
        super().__init__(fail_at)
        self.also = also or (lambda name: None)

    def __call__(self, notebook, out, params):
        derived, models = paths.derived_dir(), paths.models_dir()
        if notebook.name == "01_data_building.ipynb":
            (derived / "phrases.tsv").write_text("new york\tGPE\n")
        elif notebook.name == "02_augmentation.ipynb":
            rows = (derived / "phrases.tsv").read_text().splitlines()
            (derived / "hard_negatives.json").write_text(json.dumps({r: [] for r in rows}))
        elif notebook.name == "03_training.ipynb":
            weights = (derived / "phrases.tsv").read_bytes() + (derived / "hard_negatives.json").read_bytes()
            (models / "pearl-minilm-seed0").mkdir(exist_ok=True)
            (models / "pearl-minilm-seed0" / "model.safetensors").write_bytes(weights)
        self.also(notebook.name)
        super().__call__(notebook, out, params)


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
    """make study: notebook 13 at another design through the batch runner (harness.batch --param)."""
    batch.run(NAMES[:1], {"PROFILE": "cpu"}, runner=Runner(), log=lambda _: None)
    outs = []
    for _ in range(2):  # a second study runs again: its record is not the batch's
        batch.run(NAMES[:1], {"PROFILE": "cpu", "DESIGN": "reduced"}, tag="_reduced", log=lambda _: None,
                  runner=lambda nb, out, params: outs.append((out.name, params)))
    assert outs == [("00_template_reduced.ipynb", {})] * 2  # 00 declares neither PROFILE nor DESIGN
    state = batch.read_state()
    assert set(state) == {"00_template.ipynb", "00_template_reduced.ipynb", batch.FILES}
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
    assert "11_methods.ipynb" not in batch.batch_notebooks() and "11_methods.ipynb" in batch.batch_notebooks(separate=True)


def test_a_rehearsal_needs_a_scratch_root(monkeypatch):
    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    with pytest.raises(SystemExit, match="scratch root"):
        batch.main(["--rehearse"])


FOUR = NAMES + ["03_training.ipynb"]


def test_a_row_appended_to_a_derived_input_reruns_its_readers(root, monkeypatch):
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None)
    with open(root / "data" / "derived" / "phrases.tsv", "a") as fh:
        fh.write("hard rock\tO\n")  # after 02 finished: its hard negatives lack the row
    again, lines = Readers(), []
    outcome = batch.run(FOUR, {"PROFILE": "gpu"}, runner=again, log=lines.append)
    assert again.ran == FOUR[2:]  # 01 wrote the file (it does not read it), 02 and 03 read it
    assert outcome[FOUR[1]] == "skipped" and any("02_augmentation.ipynb runs again" in l and "phrases.tsv" in l
                                                  for l in lines)
    assert "hard rock\tO" in json.loads((root / "data" / "derived" / "hard_negatives.json").read_text())
    # the same inputs again: nothing runs, and no file unchanged since is read to know it
    monkeypatch.setattr(batch.batch_inputs, "sha256", lambda path: pytest.fail(f"{path} read again"))
    assert set(batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None).values()) == {"skipped"}


def test_a_rerun_notebook_that_rewrites_an_input_reruns_the_readers_after_it(root):
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None)
    (root / "results" / "02_augmentation.json").write_text("{}")  # 02 runs again, and its output changes

    def other_negatives(name):
        if name == "02_augmentation.ipynb":
            paths.derived_dir("hard_negatives.json").write_text('{"other": []}')
    again = Readers(also=other_negatives)
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=again, log=lambda _: None)
    assert again.ran == FOUR[2:]


def test_a_later_notebooks_writes_are_not_an_earlier_ones_changed_input(root):
    """03 rewrites the corpus that 02 read: killed after that write, the resume runs 03 alone,
    and once 03 finished, nothing."""
    def rewrite(name):
        if name == "03_training.ipynb":
            paths.derived_dir("phrases.tsv").write_text("rewritten by 03\tO\n")
    with pytest.raises(KeyboardInterrupt):
        batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(fail_at="03_training.ipynb", also=rewrite),
                  log=lambda _: None)
    again = Readers(also=rewrite)
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=again, log=lambda _: None)
    assert again.ran == FOUR[3:]
    assert set(batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None).values()) == {"skipped"}


def test_a_notebook_whose_outputs_were_deleted_runs_again(root):
    """The models deleted after a batch: the resume runs 03 again (it wrote them), and 04 after it,
    instead of skipping 03 and scoring no PEARL model."""
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None)
    import shutil

    shutil.rmtree(root / "models" / "pearl-minilm-seed0")
    again, lines = Readers(), []
    batch.run(FOUR, {"PROFILE": "gpu"}, runner=again, log=lines.append)
    assert again.ran == FOUR[3:] and (root / "models" / "pearl-minilm-seed0" / "model.safetensors").is_file()
    assert any("03_training.ipynb runs again" in line and "pearl-minilm-seed0/model.safetensors" in line for line in lines)
    assert set(batch.run(FOUR, {"PROFILE": "gpu"}, runner=Readers(), log=lambda _: None).values()) == {"skipped"}


def test_a_wrong_typed_state_entry_names_the_file_and_the_fix(root):
    batch.run(NAMES[:1], {}, runner=Runner(), log=lambda _: None)
    state = root / "results" / "executed" / "batch_state.json"
    data = json.loads(state.read_text())
    data["00_template.ipynb"]["inputs"] = ["data/derived/phrases.tsv"]
    state.write_text(json.dumps(data))
    with pytest.raises(batch.StateError, match=r"batch_state.json is damaged: 00_template.ipynb's 'inputs'.*FRESH=1"):
        batch.run(NAMES[:1], {}, runner=Runner(), log=lambda _: None)


def test_a_damaged_state_file_names_itself_and_the_fix(root):
    batch.run(NAMES[:1], {}, runner=Runner(), log=lambda _: None)
    state = root / "results" / "executed" / "batch_state.json"
    for damage in ('{"00_template.ipynb": {"fingerprint": "ab', '["not", "an", "object"]', '{"00_template.ipynb": 3}'):
        state.write_text(damage)
        with pytest.raises(batch.StateError) as err:
            batch.run(NAMES[:1], {}, runner=Runner(), log=lambda _: None)
        assert str(state) in str(err.value) and "Delete it" in str(err.value) and "FRESH=1" in str(err.value)
    fresh = Runner()  # the fix it names works: --fresh ignores and rewrites it
    batch.run(NAMES[:1], {}, fresh=True, runner=fresh, log=lambda _: None)
    assert fresh.ran == NAMES[:1] and "00_template.ipynb" in json.loads(state.read_text())
    state.write_text("{")
    with pytest.raises(SystemExit, match="batch_state.json is damaged"):
        batch.main(["00_template.ipynb"])


def test_a_sigterm_records_the_running_notebooks_writes_as_its_own(root):
    """SIGTERM (a kill of the batch's group) is taken as Ctrl-C: what notebook 02 wrote before it
    is recorded as 02's, not as a change made outside the batch (which would rerun its readers)."""
    started = root / "started"
    driver = f"""
import json, pathlib, time
from harness import batch
from pearl import paths

def runner(notebook, out, params):
    if notebook.name == "01_data_building.ipynb":
        paths.derived_dir("phrases.tsv").write_text("new york\\tGPE\\n")
    else:
        paths.derived_dir("phrases.tsv").write_text("rewritten by 02\\tO\\n")
        pathlib.Path({str(started)!r}).write_text("")
        time.sleep(600)
    paths.results_dir(notebook.stem + ".json").write_text("{{}}")

batch.stop_on_sigterm()
batch.run({NAMES[1:]!r}, {{}}, runner=runner, log=print)
"""
    proc = subprocess.Popen([sys.executable, "-c", driver], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        deadline = time.monotonic() + 120
        while not started.is_file() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        out = proc.communicate(timeout=120)[0]
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "stopped by signal" in out, out[-2000:]
    state = json.loads((root / "results" / "executed" / "batch_state.json").read_text())
    assert state["files"]["data/derived/phrases.tsv"]["by"] == "02_augmentation.ipynb"


def test_a_rehearsal_keeps_its_param(root, monkeypatch):
    """Before: --param was dropped in a rehearsal, while the executed copy was named with it."""
    seen = {}
    monkeypatch.setattr(batch, "run", lambda names, offered, **kw: seen.update(offered=offered, **kw) or {})
    monkeypatch.delenv(batch.REHEARSAL_ENV, raising=False)
    batch.main(["--rehearse", "--param", "DESIGN=reduced", "13_discrepancy.ipynb"])
    assert seen["offered"]["DESIGN"] == "reduced" and seen["offered"]["SMOKE"] is True and seen["tag"] == "_reduced"


def test_an_unknown_notebook_or_profile_stops_at_once_naming_the_choices(root):
    """Before: an unknown notebook name failed reading the file, and --profile gpuu with a KeyError inside a notebook."""
    with pytest.raises(SystemExit, match=r"no notebook '04_benchmrk.ipynb' in .*did you mean '04_benchmark.ipynb'"):
        batch.main(["04_benchmrk.ipynb"])
    with pytest.raises(SystemExit, match=r"--profile 'gpuu' is not a training profile; choose one of tiny, cpu, gpu"):
        batch.main(["--profile", "gpuu"])
    from harness.params import ParameterError, check_range

    with pytest.raises(ParameterError, match=r"PROFILE = 'gpuu' is out of range: .*'tiny', 'cpu' or 'gpu'"):
        check_range("PROFILE", "gpuu")
