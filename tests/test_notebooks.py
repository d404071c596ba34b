"""Every notebook of notebooks/ORDER runs end to end at SMOKE size through papermill,
in order (later notebooks read what earlier ones derived), into the scratch output root."""
import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = (ROOT / "notebooks" / "ORDER").read_text().split()


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebook_is_clean_and_generated(name):
    """Committed without outputs, with a parameters cell, and equal to its source in notebooks/src."""
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), "no parameters cell"
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed with outputs"
    src = ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")
    assert src.is_file(), f"{src} missing: notebooks are generated from notebooks/src"
    spec = importlib.util.spec_from_file_location("nb", ROOT / ".ci" / "nb.py")
    nbtool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(nbtool)
    fresh = nbtool.build(src)
    assert [c.source for c in fresh.cells] == [c.source for c in nb.cells], "stale: run .ci/nb.py"


@pytest.fixture(scope="session")
def smoke_run(scratch_output):
    """``smoke_run(name)`` executes notebook ``name`` at SMOKE size, after the notebooks before it
    in ORDER that it reads from (each once per session), so any one notebook test runs alone."""
    import papermill as pm

    done: dict[str, Path] = {}
    out_dir = scratch_output / "executed"
    out_dir.mkdir(exist_ok=True)

    def run(name: str) -> Path:
        for before in ORDER[: ORDER.index(name) + 1]:
            if before not in done:
                pm.execute_notebook(str(ROOT / "notebooks" / before), str(out_dir / before),
                                    parameters={"SMOKE": True}, kernel_name="pearl",
                                    cwd=str(ROOT / "notebooks"), progress_bar=False)
                done[before] = out_dir / before
        return done[name]

    return run


@pytest.mark.notebooks
@pytest.mark.parametrize("name", ORDER)
def test_notebook_runs_at_smoke_size(name, smoke_run, scratch_output):
    smoke_run(name)
    record = json.loads((scratch_output / "results" / f"{Path(name).stem}.json").read_text())
    assert record["parameters"]["SMOKE"] is True
    assert record["SMOKE"].startswith("smoke-size run")
    assert record["provenance"]["versions"]["torch"]
    assert record["wall_time_s"] > 0


@pytest.mark.notebooks
def test_template_with_one_phrase_writes_strict_json(scratch_output):
    """One phrase: the mean over pairs is undefined, so it is saved as null with its reason
    (it used to be written as NaN, which strict JSON readers refuse)."""
    import papermill as pm

    out = scratch_output / "executed"
    out.mkdir(exist_ok=True)
    pm.execute_notebook(str(ROOT / "notebooks" / "00_template.ipynb"), str(out / "00_one_phrase.ipynb"),
                        parameters={"SMOKE": True, "PHRASES": ["The New York Times"]}, kernel_name="pearl",
                        cwd=str(ROOT / "notebooks"), progress_bar=False)

    def refuse(name):
        raise ValueError(f"results/00_template.json holds {name}: not strict JSON")

    record = json.loads((scratch_output / "results" / "00_template.json").read_text(), parse_constant=refuse)
    assert record["metrics"]["mean_offdiagonal_cosine"] is None
    assert "at least two phrases" in record["undefined"]["mean_offdiagonal_cosine"]
