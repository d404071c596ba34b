"""The committed executed notebooks (harness.executed): labelled with the commit and profile
of the run whose record they match, stripped of widget state and oversized outputs; a SMOKE
notebook or one whose record is from another run is not kept."""
import json

from harness import executed


def _nb(start="2026-01-01T10:00:00+00:00", end="2026-01-01T10:30:00+00:00", smoke=False):
    return {"metadata": {"papermill": {"start_time": start, "end_time": end, "parameters": {"SMOKE": smoke}},
                         "widgets": {"state": {}}},
            "cells": [{"cell_type": "code", "outputs": [{"output_type": "stream", "name": "stdout", "text": "y" * 50}]}]}


def _record(finished="2026-01-01T10:29:00+0000", smoke=False):
    return {"parameters": {"SMOKE": smoke, "PROFILE": "cpu"},
            "provenance": {"commit": "abcdef0123456789", "finished": finished}}


def test_a_record_written_during_the_run_labels_it():
    assert executed.label(_nb(), _record()) == {"commit": "abcdef0", "profile": "cpu", "executed": "2026-01-01T10:30:00"}
    assert executed.label(_nb(), _record(finished="2026-01-01T11:00:00+0000")) is None  # another run's record
    assert executed.label(_nb(), _record(smoke=True)) is None and executed.label(_nb(), None) is None


def test_keep_writes_labelled_stripped_copies_only(tmp_path):
    (tmp_path / "results" / "executed").mkdir(parents=True)
    for name, finished in (("01_a", "2026-01-01T10:29:00+0000"), ("02_b", "2026-01-02T10:29:00+0000")):
        (tmp_path / "results" / "executed" / f"{name}.ipynb").write_text(json.dumps(_nb()))
        (tmp_path / "results" / f"{name}.json").write_text(json.dumps(_record(finished)))
    seen = executed.keep(tmp_path)
    assert seen["01_a.ipynb"].startswith("kept") and seen["02_b.ipynb"].startswith("not kept")
    kept = json.loads((tmp_path / "results" / "notebooks" / "01_a.ipynb").read_text())
    assert kept["metadata"]["pearl"]["commit"] == "abcdef0" and "widgets" not in kept["metadata"]
    assert not (tmp_path / "results" / "notebooks" / "02_b.ipynb").exists()


def test_an_oversized_output_is_replaced_by_a_note():
    out = executed.strip(_nb(), limit=20)["cells"][0]["outputs"][0]
    assert out["text"].startswith("[an output of") and "make reproduce" in out["text"]


def test_a_damaged_executed_notebook_names_itself_and_the_fix(tmp_path):
    """A notebook cut short (a kill while papermill saved it) used to raise a bare JSONDecodeError."""
    import pytest

    (tmp_path / "results" / "executed").mkdir(parents=True)
    (tmp_path / "results" / "executed" / "01_a.ipynb").write_text('{"cells": [{"cell_type": "co')
    with pytest.raises(ValueError, match=r"results/executed/01_a\.ipynb is a damaged notebook \(.*\): run it again "
                                         r"\(make reproduce, or papermill notebooks/01_a\.ipynb results/executed/01_a\.ipynb\), "
                                         r"or delete it"):
        executed.keep(tmp_path)
    kept = tmp_path / "results" / "notebooks" / "01_a.ipynb"
    kept.parent.mkdir()
    kept.write_text('{"metadata": {}}')  # JSON, but no cells
    with pytest.raises(ValueError, match=r"notebooks/01_a\.ipynb is a damaged notebook \(no list of cells\): restore it "
                                         r"with `git checkout -- results/notebooks/01_a\.ipynb`"):
        executed.read_notebook(kept)


def test_progress_bars_leave_and_warnings_stay():
    """tqdm's bars on stderr made a 1,500-px wall on notebook 03's page; a warning is kept."""
    nb = _nb()
    bar = "\rLoading weights:   0%|          | 0/103 [00:00<?, ?it/s]\rLoading weights: 100%|##########| 103/103 [00:00<00:00]\n"
    nb["cells"][0]["outputs"] = [{"output_type": "stream", "name": "stderr", "text": [bar, bar]},
                                 {"output_type": "stream", "name": "stderr", "text": bar + "UserWarning: careful\n"}]
    out = executed.strip(nb)["cells"][0]["outputs"]
    assert out == [{"output_type": "stream", "name": "stderr", "text": "UserWarning: careful\n"}]


def test_no_path_of_the_running_machine_is_kept():
    nb = _nb()
    nb["metadata"]["papermill"]["input_path"] = "/work/timed/main/notebooks/03_training.ipynb"
    nb["cells"][0]["outputs"] = [
        {"output_type": "stream", "name": "stdout", "text": ["wrote /work/timed/main/results/03_training.json\n"]},
        {"output_type": "execute_result", "metadata": {}, "execution_count": 1,
         "data": {"text/plain": "PosixPath('/root/repo/models/pearl-minilm-seed0')", "text/html": "<td>/tmp/xyz/cache.bin</td>"}},
        {"output_type": "error", "ename": "OSError", "evalue": "no /home/u/pearl/data/x",
         "traceback": ['File "/work/main/.venv/lib/python3.11/site-packages/a.py", line 1']}]
    nb = executed.strip(nb)
    out = nb["cells"][0]["outputs"]
    assert nb["metadata"]["papermill"]["input_path"] == "notebooks/03_training.ipynb"
    assert out[0]["text"] == "wrote results/03_training.json\n"
    assert out[1]["data"] == {"text/plain": "PosixPath('models/pearl-minilm-seed0')", "text/html": "<td><local path></td>"}
    assert out[2]["evalue"] == "no data/x" and out[2]["traceback"] == ['File ".venv/lib/python3.11/site-packages/a.py", line 1']


def test_a_large_figure_is_kept_and_a_large_text_is_not():
    """Figure 4 (472,401 characters of PNG) was cut from notebook 05's committed copy."""
    nb = _nb()
    nb["cells"][0]["outputs"] = [{"output_type": "display_data", "metadata": {}, "data": {"image/png": "A" * 500, "text/plain": "<Figure>"}},
                                 {"output_type": "stream", "name": "stdout", "text": "y" * 500}]
    out = executed.strip(nb, limit=200)["cells"][0]["outputs"]
    assert out[0]["data"]["image/png"] == "A" * 500 and out[1]["text"].startswith("[an output of")


def test_tidy_cleans_the_kept_copies_once(tmp_path):
    kept = tmp_path / "results" / "notebooks"
    kept.mkdir(parents=True)
    nb = _nb()
    nb["cells"][0]["outputs"][0]["text"] = "saved /work/x/main/figures/f.png\n"
    (kept / "01_a.ipynb").write_text(json.dumps(nb))
    assert executed.tidy(tmp_path) == ["01_a.ipynb"] and executed.tidy(tmp_path) == []
    assert json.loads((kept / "01_a.ipynb").read_text())["cells"][0]["outputs"][0]["text"] == "saved figures/f.png\n"


def test_the_committed_copies_are_tidy():
    """Every executed notebook in results/notebooks/ is as :func:`executed.strip` leaves it: no
    progress bars, no machine's paths (`python -m harness.executed --tidy` mends them)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    for path in sorted((root / "results" / "notebooks").glob("*.ipynb")):
        text = path.read_text(encoding="utf8")
        assert json.dumps(executed.strip(json.loads(text)), indent=1, ensure_ascii=False) + "\n" == text, path.name
