"""Checkpoints: a digest beside each, verified on resume; a damaged one stops the run with the
choice (delete the folder, or resume from the last good checkpoint); the last two are kept."""
import pytest
import torch
from _tiny import (
    CFG,
    LABELS,
    swap_augmenter,
    tiny_backbone,
    tiny_corpus,
    tiny_hard_negatives,
)
from pearl import checkpoint
from pearl.checkpoint import CheckpointError
from pearl.training.train import TrainConfig, train


def _run(run_dir, steps=6, stop_at=None, **kw):
    corpus = tiny_corpus(32)
    cfg = TrainConfig(steps=steps, checkpoint_every=2, **CFG)
    return train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, run_dir=run_dir,
                 stop_at=stop_at, progress=False, backbone=tiny_backbone(), **kw)


def _tensor_offset(raw: bytes) -> int:
    """An offset inside the stored tensor data (the zip entries under data/), not the pickle."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(raw)) as zf:
        info = max((i for i in zf.infolist() if "/data/" in i.filename), key=lambda i: i.file_size)
    header = 30 + len(info.filename.encode()) + len(info.extra)  # local file header, uncompressed entry
    return info.header_offset + header + info.file_size // 2


@pytest.fixture(scope="module")
def killed(tmp_path_factory):
    """A run killed after its checkpoint of step 4 (two checkpoints written: steps 2 and 4)."""
    run_dir = tmp_path_factory.mktemp("killed")
    _run(run_dir, stop_at=4)
    return run_dir


def _copy(src, dst):
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_two_checkpoints_with_digests_are_kept(killed):
    for name in (checkpoint.LATEST, checkpoint.PREVIOUS):
        assert checkpoint.problem(killed / name) is None, name
    steps = [torch.load(killed / n, weights_only=False)["step"] for n in (checkpoint.LATEST, checkpoint.PREVIOUS)]
    assert steps == [4, 2]


def test_one_flipped_byte_in_the_tensor_data_stops_the_resume(killed, tmp_path):
    run_dir = _copy(killed, tmp_path / "run")
    path = run_dir / "checkpoint.pt"
    raw = bytearray(path.read_bytes())
    raw[_tensor_offset(bytes(raw))] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError) as err:
        _run(run_dir)
    msg = str(err.value)
    assert str(run_dir) in msg and "sha256" in msg
    assert f"delete {run_dir} to start over" in msg
    assert f"resume_from='{run_dir / 'checkpoint.prev.pt'}'" in msg


@pytest.mark.parametrize("damage", ["truncated", "empty", "no digest", "digest only"])
def test_a_truncated_empty_or_unvouched_checkpoint_is_refused(killed, tmp_path, damage):
    run_dir = _copy(killed, tmp_path / "run")
    path = run_dir / "checkpoint.pt"
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:1000])
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "no digest":
        (run_dir / "checkpoint.pt.sha256").unlink()
    else:
        path.unlink()
    with pytest.raises(CheckpointError, match=f"delete {run_dir} to start over"):
        _run(run_dir)


def test_resume_from_the_last_good_checkpoint_finishes_the_run(killed, tmp_path):
    full = _run(tmp_path / "full")
    run_dir = _copy(killed, tmp_path / "run")
    (run_dir / "checkpoint.pt").write_bytes(b"")
    resumed = _run(run_dir, resume_from=run_dir / "checkpoint.prev.pt")
    assert resumed.steps == 4 and [r["step"] for r in resumed.log] == list(range(1, 7))
    for k, v in full.model.state_dict().items():
        torch.testing.assert_close(resumed.model.state_dict()[k], v, rtol=0, atol=0, msg=k)
    assert checkpoint.problem(run_dir / "checkpoint.pt") is None  # a good latest one again


def test_an_exported_run_leaves_no_checkpoints_and_a_failed_export_keeps_them(tmp_path, monkeypatch):
    from pearl.training import profiles

    def tiny_train(cfg, corpus, negs, augmenter, labels, run_dir, progress):
        return _run(run_dir)

    monkeypatch.setattr(profiles, "train", tiny_train)
    monkeypatch.setattr(profiles, "export", lambda *a, **k: None)
    run_dir = tmp_path / "done"
    run_dir.mkdir()
    (run_dir / ".checkpoint.pt.abc.tmp").write_bytes(b"left by a kill mid-write")
    profiles.train_and_export(TrainConfig(), [], None, None, tmp_path / "model", run_dir=run_dir)
    assert sorted(p.name for p in run_dir.iterdir()) == ["log.csv"]  # 6 steps, checkpoints at 2, 4, 6: gone

    def broken_export(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(profiles, "export", broken_export)
    run_dir = tmp_path / "export-failed"
    run_dir.mkdir()
    with pytest.raises(OSError):
        profiles.train_and_export(TrainConfig(), [], None, None, tmp_path / "model2", run_dir=run_dir)
    assert checkpoint.problem(run_dir / checkpoint.LATEST) is None  # still resumable


def _states(run_dir, steps):
    for step in steps:
        checkpoint.save(run_dir, {"step": step})


def test_last_good_passes_over_an_unvouched_latest_and_names_only_the_delete_when_none_verifies(tmp_path):
    """The automatic form (the raw LM's pretraining): the previous checkpoint when the latest does not
    verify, step 0 when the first was cut short, and when neither verifies the one fix that exists
    (no train(..., resume_from=...), which that run's callers cannot pass)."""
    _states(tmp_path, [2, 4])
    assert checkpoint.last_good(tmp_path) == ({"step": 4}, tmp_path / checkpoint.LATEST)
    (tmp_path / checkpoint.LATEST).write_bytes(b"")
    with pytest.warns(UserWarning, match=r"checkpoint.pt is empty: resuming from the last good checkpoint"):
        assert checkpoint.last_good(tmp_path) == ({"step": 2}, tmp_path / checkpoint.PREVIOUS)
    (tmp_path / checkpoint.PREVIOUS).write_bytes(b"x")
    with pytest.raises(CheckpointError) as err:
        checkpoint.last_good(tmp_path)
    assert str(err.value).endswith(f"no checkpoint in {tmp_path} verifies. Delete {tmp_path} to start over.")
    assert "train(" not in str(err.value)
    first = tmp_path / "first"
    _states(first, [2])
    checkpoint.digest_path(first / checkpoint.LATEST).unlink()  # killed before the first digest
    with pytest.warns(UserWarning, match="no checkpoint came before it: the run starts again from step 0"):
        assert checkpoint.last_good(first) == (None, None)
    assert checkpoint.last_good(tmp_path / "fresh") == (None, None)


def test_a_checkpoint_of_another_run_is_refused_as_a_checkpoint_and_a_value_error():
    class Config:
        def record(self):
            return {"lr": 1e-3, "seed": 0}

    run = {"config": {"lr": 1e-4, "seed": 0}, "inputs": "a"}
    with pytest.raises(checkpoint.OtherRunError, match=r"another configuration \(lr differ\): delete r to start afresh"):
        checkpoint.refuse_other_run(run, "r/checkpoint.pt", "r", Config(), "a", "corpus")
    with pytest.raises(ValueError, match="trained on another corpus: delete r"):
        checkpoint.refuse_other_run({**run, "config": Config().record()}, "r/checkpoint.pt", "r", Config(), "b", "corpus")
    checkpoint.refuse_other_run({"config": Config().record()}, "r/checkpoint.pt", "r", Config(), "b", "corpus")
    assert issubclass(checkpoint.OtherRunError, CheckpointError)
