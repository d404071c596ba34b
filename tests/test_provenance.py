"""pearl.provenance: results and caches are strict JSON, written whole or not at all; the commit
a batch run records (a throwaway git repository); parameter checks; SMOKE labels on tables; and
harness.outputs: a SMOKE write never replaces a full-size record, table or figure."""
import json
import os
import re
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from harness import outputs
from pearl import paths, provenance
from pearl.provenance import dumps_strict, git_state, write_json
from harness.record import Run

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "lib" / "pearl"


def _strict_load(path):
    def refuse(name):
        raise ValueError(f"{path} holds {name}: not strict JSON")

    return json.loads(Path(path).read_text(), parse_constant=refuse)


def test_write_json_refuses_nan(tmp_path):
    with pytest.raises(ValueError):
        write_json(tmp_path / "x.json", {"x": float("nan")})
    assert not (tmp_path / "x.json").exists()
    assert dumps_strict({"p": Path("/a"), "n": np.int64(3)}) == '{"p": "/a", "n": 3}'


def _writers(tmp_path):
    """(name, call that writes ``target``, target) for every library writer of derived files."""
    from pearl.corpus import augment, hard_negatives, phrases, store

    corpus = tmp_path / "corpus" / "phrases.tsv"
    tables = tmp_path / "augment"
    return [
        ("hard_negatives", lambda: hard_negatives.write_hard_negatives({"a": ["b"]}, tmp_path / "hn.json"),
         tmp_path / "hn.json"),
        ("corpus", lambda: store.write_corpus([("new york", phrases.LABELS[0], 3, "wikitext2")], corpus), corpus),
        ("augment_tables", lambda: augment.save_lexicons(augment.AugmentLexicons(meta={"v": 1}), tables),
         tables / "meta.json"),
    ]


@pytest.mark.parametrize("which", ["hard_negatives", "corpus", "augment_tables"])
def test_a_crash_while_writing_leaves_the_old_file(tmp_path, monkeypatch, which):
    """The rename is the commit point: if it never happens the old file is intact, no temp file is left."""
    _, write, target = next(w for w in _writers(tmp_path) if w[0] == which)
    write()
    before = target.read_bytes()

    def crash(*a, **k):
        raise KeyboardInterrupt("killed mid-write")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        write()
    assert target.read_bytes() == before
    assert not [p for p in target.parent.iterdir() if p.name.endswith(".tmp")]


#: files that write without pearl.provenance, and why (the lint below covers every other Python file)
OWN_WRITERS = {
    "lib/pearl/provenance.py": "the writers themselves",
    "lib/pearl/atomic.py": "write_atomic itself",
    ".ci/lock.py": "make lock: writes requirements.lock and environment.yml from pip freeze, outside pearl's venv logic",
}


def test_no_module_writes_files_directly():
    """Every file the code writes (lib, perf, scripts, .ci, notebook sources) goes
    through atomic.write_atomic / write_json / append_jsonl, and every JSON written is
    strict (no json.dump; json.dumps into a file only with allow_nan=False)."""
    files = [p for d in ("lib", "perf", "scripts", ".ci", "notebooks/src") for p in (ROOT / d).rglob("*.py")]
    assert len(files) > 60
    offenders = []
    for path in files:
        rel = str(path.relative_to(ROOT))
        if rel in OWN_WRITERS:
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            writes = any(s in code for s in (".write_text(", ".write_bytes(", "json.dump(", '"w"', "'w'", '"wb"')) \
                or re.search(r"\.to_(csv|json|parquet)\(\s*(?!\w+=)[^)\s]", code)  # pandas writing to a path
            loose_json = "json.dumps(" in code and re.search(r"write|\.write\(", code) and "allow_nan=False" not in code
            if (writes or loose_json) and "open(tmp" not in code:  # data._download streams into a .part file, renamed when complete
                offenders.append(f"{rel}:{n}: {line.strip()}")
    assert not offenders, "write through pearl.atomic.write_atomic/write_json/append_jsonl:\n" + "\n".join(offenders)


def test_every_committed_json_result_is_strict_and_names_its_commit():
    """results/**/*.json and *.jsonl parse with NaN and Infinity refused, and every record names
    the commit it came from (git_sha, commit or provenance.git_sha) clean, or says why not
    (``provenance_note``)."""
    def refuse(name):
        raise ValueError(f"{name} is not strict JSON")

    files = sorted((ROOT / "results").rglob("*.json")) + sorted((ROOT / "results").rglob("*.jsonl"))
    files = [f for f in files if "executed" not in f.parts]
    assert len(files) > 20
    bad = []
    for path in files:
        rel = path.relative_to(ROOT)
        try:
            lines = path.read_text().splitlines() if path.suffix == ".jsonl" else [path.read_text()]
            records = [json.loads(line, parse_constant=refuse) for line in lines if line.strip()]
        except ValueError as err:
            bad.append(f"{rel}: {err}")
            continue
        for record in records if path.suffix == ".jsonl" else records[:1]:
            sha = record.get("git_sha") or record.get("commit") or (record.get("provenance") or {}).get("git_sha") \
                or (record.get("git") or {}).get("git_sha")
            if not record.get("provenance_note") and (not sha or str(sha).endswith("-dirty")):
                bad.append(f"{rel}: names no clean commit ({sha}) and no provenance_note")
                break
    assert not bad, "\n".join(bad)


#: a repository path of a script or notebook as records cite it (``perf/x.py``, ``notebooks/src/NN.py``); a
#: results path (``results/perf/x.json``) is not one: the look-behind skips a path inside another
CITED = re.compile(r"(?<![\w/.-])((?:perf|scripts|notebooks|benchmarks|experiments)/[\w./-]*\w\.(?:py|ipynb|sh))\b")


def cited_paths(text: str) -> set[str]:
    """The script and notebook paths ``text`` cites (:data:`CITED`)."""
    return set(CITED.findall(text))


def test_committed_records_cite_scripts_that_exist():
    """Every script or notebook path that a committed record (results/**/*.json, .md, .txt) cites
    exists in the repository: a record whose script moved cites its new path (and says so in its
    provenance_note), so a reader can open what wrote it."""
    files = [f for ext in ("json", "md", "txt") for f in sorted((ROOT / "results").rglob(f"*.{ext}"))
             if "executed" not in f.parts]
    assert len(files) > 50
    bad = [f"{f.relative_to(ROOT)}: {path}" for f in files for path in sorted(cited_paths(f.read_text()))
           if not (ROOT / path).exists()]
    assert not bad, "records cite paths that do not exist (cite the script's current path):\n" + "\n".join(bad)


def test_the_cited_path_scan_finds_script_paths_only():
    text = "written by benchmarks/x.py (now `perf/x.py`), see results/perf/y.json and notebooks/src/04_b.py."
    assert cited_paths(text) == {"benchmarks/x.py", "perf/x.py", "notebooks/src/04_b.py"}
    assert cited_paths("results/perf/scoring_floor.py; lib/pearl/x.py") == set()


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def repo(tmp_path):
    git(tmp_path, "init", "-q")
    git(tmp_path, "config", "user.email", "t@example.org")
    git(tmp_path, "config", "user.name", "t")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "00.json").write_text("{}\n")
    (tmp_path / "code.py").write_text("x = 1\n")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "init")
    return tmp_path


def test_working_tree_state_outside_a_batch_run(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    assert git_state(repo, env={})["git_sha"] == head
    (repo / "code.py").write_text("x = 2\n")
    state = git_state(repo, env={})
    assert state["git_sha"] == head + "-dirty"
    assert state["dirty_at_start"] == ["code.py"] and state["changed_by_run"] is None


def test_batch_run_records_the_start_commit_clean_and_what_it_changed(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "notes.txt").write_text("untracked before the run\n")
    env = {"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "", "PEARL_RUN_UNTRACKED": "notes.txt"}
    # an earlier notebook of the same run rewrote a tracked result and wrote a new figure
    (repo / "results" / "00.json").write_text('{"new": 1}\n')
    (repo / "results" / "figure.png").write_bytes(b"png")
    state = git_state(repo, env=env)
    assert state["git_sha"] == head, "results the run itself wrote must not mark it dirty"
    assert state["dirty_at_start"] == []
    assert state["changed_by_run"] == ["results/00.json", "results/figure.png"]
    # a later commit does not change which commit the run started from
    git(repo, "commit", "-qam", "later")
    assert git_state(repo, env=env)["commit"] == head


def test_batch_run_started_dirty_says_so(repo):
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "code.py").write_text("x = 3\n")
    state = git_state(repo, env={"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "code.py"})
    assert state["git_sha"] == head + "-dirty" and state["dirty_at_start"] == ["code.py"]
    assert state["changed_by_run"] == []


def test_outputs_changed_before_the_run_are_listed_but_not_dirty(repo):
    """A run timed in sittings starts its second sitting with the first one's results rewritten."""
    head = git(repo, "rev-parse", "HEAD").strip()
    (repo / "results" / "00.json").write_text('{"first sitting": 1}\n')
    state = git_state(repo, env={"PEARL_RUN_COMMIT": head, "PEARL_RUN_DIRTY": "results/00.json"})
    assert state["git_sha"] == head and state["dirty_at_start"] == ["results/00.json"]
    assert git_state(repo, env={})["git_sha"] == head


def test_outside_git_there_is_no_sha(tmp_path):
    assert git_state(tmp_path, env={})["git_sha"] is None


def test_save_table_writes_booktabs_latex_and_smoke_labels(scratch_output):
    import pandas as pd

    csv, md, tex = outputs.save_table(pd.DataFrame({"model": ["a"], "knn_accuracy": [1.234]}), "unit_table", smoke=True)
    text = tex.read_text()
    assert "\\toprule" in text and "\\midrule" in text and "\\bottomrule" in text
    assert "SMOKE" in text and "SMOKE" in md.read_text() and "smoke" in csv.read_text()
    assert "knn\\_accuracy" in text and "1.234" in text, "LaTeX-escaped names, three decimals"


def test_pearls_own_table_writer_knows_no_scale(scratch_output):
    """pearl.provenance.save_table (the default guard's) renders and writes, nothing else: no banner, no
    smoke column, no sidecar; it replaces whatever is there. The harness's labelled one is built on it."""
    from pearl.guard import OPEN

    for score in (1.0, 2.0):
        csv, md, tex = provenance.save_table(pd.DataFrame({"model": ["a"], "score": [score]}), "plain_unit")
        assert str(score) in csv.read_text() and "smoke" not in csv.read_text().lower()
        assert "SMOKE" not in md.read_text() + tex.read_text()
        assert not list(csv.parent.glob(".plain_unit*"))
    assert "b" in OPEN.table(pd.DataFrame({"model": ["b"]}), "plain_unit")[0].read_text()


@pytest.mark.parametrize("smoke", [False, True])
def test_a_table_whose_tex_fails_to_write_leaves_all_three_files_old(tmp_path, monkeypatch, smoke):
    """A table's .csv, .md and .tex are one unit: a write error on the .tex (the last written)
    used to leave the .csv and .md new beside an old .tex; now all three stay old, sidecars too."""
    from pearl import atomic

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    outputs.save_table(pd.DataFrame({"model": ["old"], "score": [1.0]}), "unit_unit", smoke=smoke)
    folder = tmp_path / "results"
    before = {p.name: p.read_bytes() for p in folder.iterdir()}
    stage = atomic._stage

    def fail_on_tex(path, raw):
        if path.suffix == ".tex":
            raise OSError(28, "No space left on device")
        return stage(path, raw)

    monkeypatch.setattr(atomic, "_stage", fail_on_tex)
    with pytest.raises(OSError, match="No space left"):
        outputs.save_table(pd.DataFrame({"model": ["new"], "score": [2.0]}), "unit_unit", smoke=smoke)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before  # no new file, no temporary file left
    monkeypatch.setattr(atomic, "_stage", stage)
    csv, md, tex = outputs.save_table(pd.DataFrame({"model": ["new"], "score": [2.0]}), "unit_unit", smoke=smoke)
    assert all("new" in p.read_text() for p in (csv, md, tex))


def test_a_figure_saved_twice_has_the_same_bytes(scratch_output):
    """No creation date in the PDF: re-running a notebook leaves an unchanged figure unchanged in git."""
    import time

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from pearl.provenance import save_figure

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3])
    first = [p.read_bytes() for p in save_figure(fig, "same_bytes_test")]
    time.sleep(1.1)  # a PDF date has one-second resolution
    assert [p.read_bytes() for p in save_figure(fig, "same_bytes_test")] == first
    plt.close(fig)


def _dead_pid() -> int:
    proc = subprocess.Popen(["true"])
    proc.wait()
    return proc.pid


def test_a_killed_writes_temp_file_is_removed_at_the_next_write(tmp_path):
    """A writer SIGKILLed between writing its temporary file and renaming it leaves the file; the
    next write of the same target removes it (and only debris: a live writer's file stays)."""
    import signal
    import sys
    import time

    target = tmp_path / "big.json"
    code = ("import os, sys, time; import pearl.atomic as a\n"
            "os.fsync = lambda fd: time.sleep(120)  # hold the write open until killed\n"
            "a.write_atomic(sys.argv[1], b'x' * 50_000_000)\n")
    child = subprocess.Popen([sys.executable, "-c", code, str(target)])
    deadline = time.time() + 60
    while not list(tmp_path.glob(".big.json.*.tmp")) or list(tmp_path.glob(".big.json.*.tmp"))[0].stat().st_size < 50_000_000:
        assert time.time() < deadline and child.poll() is None, "the writer never wrote its temporary file"
        time.sleep(0.05)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    assert len(list(tmp_path.glob(".big.json.*.tmp"))) == 1 and not target.exists()
    live = tmp_path / f".big.json.{os.getpid()}.abcdefgh.tmp"  # this process: alive
    live.write_text("in progress")
    other = tmp_path / f".other.json.{_dead_pid()}.abcdefgh.tmp"  # another target's: left to its own next write
    other.write_text("x")
    write_json(target, {"ok": True})
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["big.json", live.name, other.name])
    from pearl.atomic import remove_debris

    assert remove_debris(tmp_path) == [other]


def test_results_and_figures_are_written_with_the_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        assert (write_json(tmp_path / "a.json", {}).stat().st_mode & 0o777) == 0o644
        os.umask(0o027)
        assert (write_json(tmp_path / "b.json", {}).stat().st_mode & 0o777) == 0o640
    finally:
        os.umask(old)


def test_a_smoke_table_says_smoke_when_its_caller_says_so(scratch_output):
    """The harness's writers take the scale from their caller (``smoke=``: no default, nothing read from
    the environment); sizes and subsets are :class:`harness.scale.Scale`'s (tests/harness/test_scale.py)."""
    from harness.outputs import save_table

    import pandas as pd

    csv, md, tex = save_table(pd.DataFrame({"x": [1]}), "scale_switch_test", smoke=True)
    assert md.read_text().startswith("**SMOKE") and "smoke" in csv.read_text().splitlines()[0] and "SMOKE" in tex.read_text()
    with pytest.raises(TypeError, match="smoke"):
        save_table(pd.DataFrame({"x": [1]}), "scale_switch_test")


# --------------------------------------------------------------------------- SMOKE never replaces full-size outputs
@pytest.fixture
def full_outputs(tmp_path, monkeypatch):
    """A $PEARL_OUTPUT holding a full-size record, table and figure, written outside SMOKE."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    Run("unit_scale", {"SMOKE": False, "N": 3}).save(metrics={"x": 1})
    outputs.save_table(pd.DataFrame({"model": ["a"], "score": [1.0]}), "unit_scale", smoke=False)
    fig, ax = plt.subplots()
    ax.plot([0, 1])
    outputs.save_figure(fig, "unit_scale", smoke=False)
    plt.close(fig)
    files = sorted(p for p in tmp_path.rglob("*") if p.is_file())
    return tmp_path, {p: p.read_bytes() for p in files}


def test_full_size_outputs_have_no_sidecar_and_read_as_full(full_outputs):
    root, files = full_outputs
    assert all(outputs.scale_of(p) == "full" for p in files)
    assert not [p for p in files if p.name.endswith(".smoke")]


@pytest.mark.parametrize("write", ["record", "table", "figure"])
def test_a_smoke_write_never_replaces_a_full_size_output(full_outputs, monkeypatch, write):
    """The record's "SMOKE": false in its parameters used to pass a text-prefix check; tables and
    figures had no check. Each refuses, naming the file, and nothing changes."""
    import matplotlib.pyplot as plt

    root, files = full_outputs
    name = {"record": r"results/unit_scale\.json", "table": r"results/unit_scale\.csv",
            "figure": r"figures/unit_scale\.png"}[write]
    with pytest.raises(FileExistsError, match=rf"{name} holds a full-size output and this is a SMOKE run.*scratch folder"):
        if write == "record":
            Run("unit_scale", {"SMOKE": True}).save(metrics={"x": 2})
        elif write == "table":
            outputs.save_table(pd.DataFrame({"model": ["b"], "score": [0.0]}), "unit_scale", smoke=True)
        else:
            fig, ax = plt.subplots()
            outputs.save_figure(fig, "unit_scale", smoke=True)
            plt.close(fig)
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == files


def test_smoke_outputs_say_so_in_structured_data_and_may_be_replaced(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    for _ in range(2):  # a smoke output may be rewritten by a smoke run
        record = Run("unit_scale", {"SMOKE": True}).save(metrics={"x": 1})
        table = outputs.save_table(pd.DataFrame({"model": ["a"]}), "unit_scale", smoke=True)
        fig, _ = plt.subplots()
        figures = outputs.save_figure(fig, "unit_scale", smoke=True)
        plt.close(fig)
    for path in [record, *table, *figures]:
        assert outputs.scale_of(path) == "smoke", path
    assert json.loads(outputs.sidecar(figures[0]).read_text())["scale"] == "smoke"
    figures[0].write_bytes(figures[0].read_bytes() + b"x")  # replaced by other bytes: the sidecar no longer vouches
    assert outputs.scale_of(figures[0]) == "full"
    outputs.save_table(pd.DataFrame({"model": ["a"]}), "unit_scale", smoke=False)  # a full-size run replaces a smoke table
    assert outputs.scale_of(table[0]) == "full" and not outputs.sidecar(table[0]).exists()


def test_a_record_that_is_not_json_is_refused_by_a_smoke_run(tmp_path, monkeypatch):
    monkeypatch.setenv("PEARL_OUTPUT", str(tmp_path))
    damaged = paths.results_dir("unit_scale.json")
    damaged.write_text('{"notebook": "unit_scale", "parameters": {"SMOKE": fal')
    with pytest.raises(ValueError, match=r"unit_scale.json is not valid JSON .*scratch folder"):
        Run("unit_scale", {"SMOKE": True}).save(metrics={})
    assert damaged.read_text().endswith("fal")


def test_append_jsonl_starts_a_new_line_after_a_cut_one(tmp_path):
    log = tmp_path / "log.jsonl"
    provenance.append_jsonl(log, {"step": 1})
    with log.open("ab") as fh:
        fh.write(b'{"step": 2, "lo')  # a kill mid-line
    provenance.append_jsonl(log, {"step": 3})
    lines = log.read_text().splitlines()
    assert json.loads(lines[0]) == {"step": 1} and json.loads(lines[2]) == {"step": 3}
    assert lines[1] == '{"step": 2, "lo'  # skipped by a reader, never glued to the next record
