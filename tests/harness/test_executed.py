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
