"""harness.batch_inputs: the files a notebook of the batch read, kept by size, mtime and digest; what
changed since, and who wrote it. tests/harness/test_batch.py runs it inside the batch's loop."""
import os

import pytest

from harness import batch_inputs

ORDER = ["01_data_building.ipynb", "02_augmentation.ipynb", "03_training.ipynb"]


@pytest.fixture
def root(tmp_path):
    (tmp_path / "data" / "derived").mkdir(parents=True)
    (tmp_path / "models").mkdir()
    (tmp_path / "data" / "derived" / "phrases.tsv").write_text("new york\tGPE\n")
    return tmp_path


def test_caches_checkpoints_and_temporary_files_are_not_inputs(root):
    derived, models = root / "data" / "derived", root / "models"
    for rel in ("embeddings.sqlite", "embeddings.sqlite-wal", ".phrases.tsv.123.x.tmp", ".mlm-wiki.run/step.pt"):
        (derived / rel).parent.mkdir(parents=True, exist_ok=True)
        (derived / rel).write_text("x")
    (models / "runs" / "pearl-minilm-seed0").mkdir(parents=True)
    (models / "runs" / "pearl-minilm-seed0" / "checkpoint.pt").write_text("x")
    (models / "pearl-minilm-seed0").mkdir()
    (models / "pearl-minilm-seed0" / "model.safetensors").write_text("w")
    (root / "results").mkdir()
    (root / "results" / "01_data_building.json").write_text("{}")
    assert sorted(batch_inputs.files(root)) == ["data/derived/phrases.tsv", "models/pearl-minilm-seed0/model.safetensors"]


def test_an_unchanged_file_keeps_its_digest_unread_and_a_changed_one_is_read(root, monkeypatch):
    first = batch_inputs.scan(root, {}, writer="01_data_building.ipynb")
    entry = first["data/derived/phrases.tsv"]
    assert entry["by"] == "01_data_building.ipynb" and len(entry["sha256"]) == 64
    monkeypatch.setattr(batch_inputs, "sha256", lambda path: pytest.fail(f"{path} read again"))
    assert batch_inputs.scan(root, first) == first
    monkeypatch.undo()
    path = root / "data" / "derived" / "phrases.tsv"
    os.utime(path, ns=(1, 1))  # touched, same bytes: same digest, same writer
    assert batch_inputs.scan(root, first)["data/derived/phrases.tsv"]["by"] == "01_data_building.ipynb"
    path.write_text("new york\tGPE\nhard rock\tO\n")
    now = batch_inputs.scan(root, first)  # changed outside the batch
    assert now["data/derived/phrases.tsv"]["by"] is None and now["data/derived/phrases.tsv"]["sha256"] != entry["sha256"]
    path.unlink()
    gone = batch_inputs.scan(root, now, writer="02_augmentation.ipynb")["data/derived/phrases.tsv"]
    assert gone["sha256"] is None and gone["by"] == "02_augmentation.ipynb"


def test_inputs_are_what_was_there_less_what_the_notebook_or_a_later_one_wrote(root):
    start = batch_inputs.scan(root, {}, writer="01_data_building.ipynb")
    (root / "models" / "old.bin").write_text("trained by 03 in an earlier batch")
    start = batch_inputs.scan(root, start, writer="03_training.ipynb")
    (root / "data" / "derived" / "hard_negatives.json").write_text("{}")
    end = batch_inputs.scan(root, start, writer="02_augmentation.ipynb")
    read = batch_inputs.inputs("02_augmentation.ipynb", start, end, ORDER)
    assert read == {"data/derived/phrases.tsv": start["data/derived/phrases.tsv"]["sha256"]}
    assert batch_inputs.written(start, end) == {"data/derived/hard_negatives.json"}


def test_a_change_is_stale_unless_a_later_notebook_made_it(root):
    start = batch_inputs.scan(root, {}, writer="01_data_building.ipynb")
    read = {"data/derived/phrases.tsv": start["data/derived/phrases.tsv"]["sha256"]}
    assert batch_inputs.changed("02_augmentation.ipynb", read, start, ORDER) == []
    (root / "data" / "derived" / "phrases.tsv").write_text("other\tO\n")
    for writer, stale in ((None, True), ("01_data_building.ipynb", True), ("03_training.ipynb", False)):
        now = batch_inputs.scan(root, start, writer=writer)
        assert bool(batch_inputs.changed("02_augmentation.ipynb", read, now, ORDER)) is stale, writer
    (root / "data" / "derived" / "phrases.tsv").unlink()
    assert batch_inputs.changed("02_augmentation.ipynb", read, batch_inputs.scan(root, start), ORDER) == \
        ["data/derived/phrases.tsv"]


def test_a_dangling_link_is_not_a_file(root):
    (root / "data" / "derived" / "gone.tsv").symlink_to(root / "nowhere.tsv")
    assert list(batch_inputs.files(root)) == ["data/derived/phrases.tsv"]
