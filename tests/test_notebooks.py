"""Every notebook of notebooks/ORDER runs end to end at SMOKE size through papermill,
in order (later notebooks read what earlier ones derived), into the scratch output root."""
import importlib.util
import json
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
ORDER = (ROOT / "notebooks" / "ORDER").read_text().split()
#: notebooks that read only committed files (results/), so none of the notebooks before them needs to run first
STANDALONE = {"12_claims.ipynb"}


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")))
def test_notebook_is_clean_and_generated(name):
    """Committed without outputs, with a parameters cell, and equal to its source in notebooks/src
    as jupytext reads it (percent format): the same cells, kinds, sources and tags (``make notebooks``
    regenerates them; cell ids are kept from the committed notebook, so they are not compared)."""
    import jupytext

    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    assert any("parameters" in c.metadata.get("tags", []) for c in nb.cells), "no parameters cell"
    assert not any(c.get("outputs") for c in nb.cells if c.cell_type == "code"), "committed with outputs"
    assert nb.metadata.get("kernelspec", {}).get("name") == "pearl", "the kernel is the project's: make notebooks"
    src = ROOT / "notebooks" / "src" / name.replace(".ipynb", ".py")
    assert src.is_file(), f"{src} missing: notebooks are generated from notebooks/src"
    fresh = jupytext.read(src, fmt="py:percent")

    def cells(book):
        return [(c.cell_type, c.source, c.metadata.get("tags", [])) for c in book.cells]

    assert cells(fresh) == cells(nb), "stale: run make notebooks"
    ids = [c.get("id") for c in nb.cells]
    assert all(ids) and len(set(ids)) == len(ids), "every cell has an id of its own: run make notebooks"


@pytest.fixture(scope="session")
def smoke_run(scratch_output):
    """``smoke_run(name)`` executes notebook ``name`` at SMOKE size, after the notebooks before it
    in ORDER that it reads from (each once per session), so any one notebook test runs alone."""
    import papermill as pm

    done: dict[str, Path] = {}
    out_dir = scratch_output / "executed"
    out_dir.mkdir(exist_ok=True)

    def run(name: str) -> Path:
        for before in [name] if name in STANDALONE else ORDER[: ORDER.index(name) + 1]:
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
def test_a_rerun_reuses_every_model_and_score(smoke_run, scratch_output):
    """make reproduce resumes: run again on unchanged inputs, the ablation notebook trains and
    scores nothing and writes the same table."""
    import papermill as pm

    smoke_run("08_ablations.ipynb")
    first = (scratch_output / "results" / "table3.csv").read_text()
    out = scratch_output / "executed" / "08_again.ipynb"
    pm.execute_notebook(str(ROOT / "notebooks" / "08_ablations.ipynb"), str(out), parameters={"SMOKE": True},
                        kernel_name="pearl", cwd=str(ROOT / "notebooks"), progress_bar=False)
    outputs = [o.get("text", "") for c in json.loads(out.read_text())["cells"] for o in c.get("outputs", [])]
    text = "".join("".join(t) if isinstance(t, list) else t for t in outputs)
    assert "reuse pearl-minilm-seed0" in text and "train pearl" not in text
    assert "encoded every phrase" not in text and "(reused: model, data and scoring code unchanged)" in text
    assert (scratch_output / "results" / "table3.csv").read_text() == first


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
def _params_tool():
    spec = importlib.util.spec_from_file_location("params", ROOT / ".ci" / "params.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    return tool


@pytest.mark.parametrize("name", ORDER)
def test_papermill_parses_every_parameter(name):
    """``papermill.inspect_notebook`` reads every assignment of the parameters cell, with no
    "Unable to parse line" warning (an ``=`` in a trailing comment trips it)."""
    import ast

    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    cell = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    assigned = {node.target.id for node in ast.parse(cell.source).body if isinstance(node, ast.AnnAssign)}
    assert not [n for n in ast.parse(cell.source).body if isinstance(n, ast.Assign)], "annotate every parameter"
    assert _params_tool().declared(str(ROOT / "notebooks" / name)) == assigned


@pytest.mark.parametrize("name", ORDER)
def test_first_code_cell_is_the_preamble(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    at = next(i for i, c in enumerate(code) if "parameters" in c.metadata.get("tags", []))
    assert f'run = start("{Path(name).stem}", globals(), __annotations__)' in code[at + 1].source


def test_reproduce_offers_profile_only_to_notebooks_that_declare_it():
    tool = _params_tool()
    offered = ["PROFILE=cpu", "INTERACTIVE=False"]
    assert tool.arguments(str(ROOT / "notebooks" / "00_template.ipynb"), offered) == []
    assert tool.arguments(str(ROOT / "notebooks" / "03_training.ipynb"), offered) == ["-p", "PROFILE", "cpu"]
    assert tool.arguments(str(ROOT / "notebooks" / "06_explorer.ipynb"), offered) == ["-p", "INTERACTIVE", "False"]


def test_a_list_passed_with_p_stops_the_notebook_with_the_fix(tmp_path):
    """``papermill -p PHRASES "[...]"`` passes a string: the first code cell stops with the fix."""
    import papermill as pm

    with pytest.raises(pm.PapermillExecutionError, match=r'-y \\?"PHRASES: \[a, b\]'):
        pm.execute_notebook(str(ROOT / "notebooks" / "00_template.ipynb"), str(tmp_path / "out.ipynb"),
                            parameters={"PHRASES": "[a, b]"}, kernel_name="pearl",
                            cwd=str(ROOT / "notebooks"), progress_bar=False)


@pytest.mark.parametrize("name", ORDER)
def test_one_preamble_decides_a_notebooks_scale(name):
    """One notion of scale: the preamble (harness.preamble.start) checks the parameters, turns SMOKE
    into the run's harness.scale.Scale and returns the Run recording them; every writer is told the
    scale (smoke=, or the scale's guard=), every size or profile goes through the Scale, and no
    notebook builds a Run, re-lists its parameters or reads a process-wide SMOKE mark."""
    import re

    stem = name.replace(".ipynb", "")
    src = (ROOT / "notebooks" / "src" / f"{stem}.py").read_text()
    assert f'run = start("{stem}", globals(), __annotations__)' in src, "the preamble is one call"
    assert "check_params" not in src and "Run(" not in src, "no second parameter check, no Run re-listing them"
    calls = re.findall(r"(?:save_table|save_figure|table\.report|report\.save|update_cards)\((?:[^()]|\([^()]*\))*\)",
                       src, re.S)
    assert [c for c in calls if "smoke" not in c and "guard" not in c] == [], "every writer is told its scale"
    assert not re.search(r"""["']smoke["'] if SMOKE""", src), "sizes and profiles go through the Scale"
    assert not re.search(r"paths\.(?:smoke|scaled|rehearsal|set_smoke)", src), "no process-wide SMOKE mark"


@pytest.mark.slow
def test_a_batch_run_records_its_start_commit_clean(tmp_path):
    """The reproduce loop's environment (commit recorded at the start) on notebook 00 at full
    size: the record names that commit, without -dirty when the tree was clean at the start."""
    import os
    import subprocess

    import papermill as pm

    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    env = {"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "", "PEARL_RUN_UNTRACKED": ""}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        pm.execute_notebook(str(ROOT / "notebooks" / "00_template.ipynb"), str(tmp_path / "00.ipynb"),
                            kernel_name="pearl", cwd=str(ROOT / "notebooks"), progress_bar=False)
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    record = json.loads(Path(os.environ["PEARL_OUTPUT"], "results", "00_template.json").read_text())
    assert record["provenance"]["git_sha"] == head and record["provenance"]["commit"] == head
    assert "SMOKE" not in record


def _tree_state(root: Path) -> dict:
    """What a run must not change in the checkout: git's view of tracked and untracked files,
    and the stat of every file in the full-size output folders (ignored ones included)."""
    import subprocess

    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=root,
                            capture_output=True, text=True, check=True).stdout
    files = {str(p.relative_to(root)): (p.stat().st_size, p.stat().st_mtime_ns)
             for d in ("results", "figures", "models", "data/derived") if (root / d).is_dir()
             for p in (root / d).rglob("*") if p.is_file() and "executed" not in p.parts}
    return {"status": status, "files": files}


@pytest.mark.notebooks
def test_smoke_notebooks_never_touch_the_checkouts_outputs(monkeypatch):
    """Notebooks 01-03 at SMOKE size, as the README tells a reader to run them (no PEARL_OUTPUT):
    no tracked file changes, no full-size result, figure, derived file or model folder is touched,
    and what they wrote is under smoke-output/ and says SMOKE."""
    import papermill as pm

    from harness.scale import SMOKE_ROOT

    monkeypatch.delenv("PEARL_OUTPUT", raising=False)
    before = _tree_state(ROOT)
    out = ROOT / SMOKE_ROOT
    (out / "executed").mkdir(parents=True, exist_ok=True)
    for name in ORDER[ORDER.index("01_data_building.ipynb"): ORDER.index("03_training.ipynb") + 1]:
        pm.execute_notebook(str(ROOT / "notebooks" / name), str(out / "executed" / name), parameters={"SMOKE": True},
                            kernel_name="pearl", cwd=str(ROOT / "notebooks"), progress_bar=False)
    assert _tree_state(ROOT) == before
    info = json.loads((out / "models" / "pearl-minilm-seed0" / "pearl.json").read_text())
    assert info["note"].startswith("SMOKE run") and "SMOKE run" in (out / "models" / "pearl-minilm-seed0" / "README.md").read_text()
    assert json.loads((out / "results" / "01_data_building.json").read_text())["SMOKE"]


@pytest.mark.notebooks
def test_smoke_notebooks_never_replace_full_size_outputs_in_pearl_output(monkeypatch, tmp_path):
    """$PEARL_OUTPUT holding full-size results and figures (the checkout's committed ones): notebooks
    00 and 01 at SMOKE size each stop naming the full-size file they would have replaced (00 its
    record, 01 Figure A1), and every full-size file is byte-identical afterwards."""
    import shutil

    import papermill as pm

    out = tmp_path / "output"
    tracked = [p for p in (ROOT / "results").glob("*") if p.is_file()] + \
        [p for p in (ROOT / "figures").glob("*") if p.is_file()]
    for p in tracked:
        (out / p.parent.name).mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, out / p.parent.name / p.name)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert out / "results" / "00_template.json" in before and out / "figures" / "figureA1.png" in before
    monkeypatch.setenv("PEARL_OUTPUT", str(out))
    for name, file in (("00_template.ipynb", r"results/00_template\.json"), ("01_data_building.ipynb", r"figures/figureA1\.\w+")):
        with pytest.raises(pm.PapermillExecutionError, match=rf"{file} holds a full-size output and this is a SMOKE run"):
            pm.execute_notebook(str(ROOT / "notebooks" / name), str(tmp_path / name), parameters={"SMOKE": True},
                                kernel_name="pearl", cwd=str(ROOT / "notebooks"), progress_bar=False)
    assert {p: p.read_bytes() for p in before} == before
    assert not [p for p in out.rglob("*.smoke") if p.parent.name in ("results", "figures")
                and p.with_name(p.name[1:-len(".smoke")]) in before]


@pytest.mark.notebooks
def test_smoke_data_notebooks_leave_a_full_size_root_byte_identical(monkeypatch, tmp_path):
    """A $PEARL_OUTPUT holding full-size derived data (corpus.json says no scale: full size; augmentation
    tables, hard negatives, a Wikipedia build) beside the committed results and figures. Before:
    notebook 01 at SMOKE size rewrote phrases.tsv, corpus.json and the build's runs.json, and only
    then stopped, on Figure A1; 02 rewrote augment/meta.json. Now 01 and 02 stop before writing,
    naming the derived file, 03 on its figure; every file under data/, results/ and figures/ is
    byte-identical and none is added (about 20 s: each notebook stops in its first cells)."""
    import shutil

    import papermill as pm
    from _outputs import _derived

    out = tmp_path / "output"
    for folder in ("results", "figures"):
        shutil.copytree(ROOT / folder, out / folder)
    monkeypatch.setenv("PEARL_OUTPUT", str(out))
    _derived(smoke=False)
    before = {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}
    stops = {"01_data_building.ipynb": r"data/derived/phrases\.tsv", "02_augmentation.ipynb": r"data/derived/augment/\w+\.json",
             "03_training.ipynb": r"figures/figure2\.png"}
    for name, file in stops.items():
        with pytest.raises(pm.PapermillExecutionError, match=rf"{file} holds a full-size output"):
            pm.execute_notebook(str(ROOT / "notebooks" / name), str(tmp_path / name), parameters={"SMOKE": True},
                                kernel_name="pearl", cwd=str(ROOT / "notebooks"), progress_bar=False)
        assert {p: p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()} == before, name
