"""pearl.training.arrays: batches drawn once into arrays and gathered by index are the Collator's batches,
tensor for tensor (a hash over every step, every batch layout, with and without PAUSE's flags and data
parallel shards); the folder is saved whole, keyed and checksummed; a run fed from them trains to the
same weights as one fed by the Collator, and resumes."""
import hashlib
import json

import numpy as np
import pytest
import torch
from _tiny import CFG, LABELS, swap_augmenter, tiny_backbone, tiny_corpus, tiny_hard_negatives, tiny_train

from pearl.training import arrays
from pearl.training.batches import BatchPlan, Collator


def batch_hash(batch: dict) -> str:
    """sha256 of a batch: its step, size, and every tensor's name, dtype, shape and bytes."""
    h = hashlib.sha256(f"{batch['step']} {batch['n']}".encode())
    tensors = {**batch["inputs"], "labels": batch["labels"], **({"labelled": batch["labelled"]} if "labelled" in batch else {})}
    for name in sorted(tensors):
        t = tensors[name]
        h.update(f"{name} {t.dtype} {tuple(t.shape)}".encode())
        h.update(t.contiguous().numpy().tobytes())
    return h.hexdigest()


def _collator(rank=0, world=1, use_char=True, labelled=None, layout="extra_negatives", rows=None, k=2):
    corpus = tiny_corpus(40)
    _, tok = tiny_backbone()
    phrases = [p for p, _ in corpus]
    return Collator(tok, phrases, [LABELS.index(t) for _, t in corpus], tiny_hard_negatives(corpus), swap_augmenter,
                    k=k, use_char=use_char, seed=3, rank=rank, world=world, labelled=labelled,
                    layout=layout, rows=rows, types={}), corpus


@pytest.mark.parametrize("case", ["default", "no_char", "pause_flags", "two_ranks", "reference", "no_negatives"])
def test_gathered_batches_hash_as_the_collators(case):
    """Every step of two epochs: the same hash from the arrays as from the Collator (the same texts,
    tokens, byte ids, labels and flags), in every setting the trainer uses."""
    kw = {"default": {}, "no_char": {"use_char": False}, "pause_flags": {"labelled": [i % 3 == 0 for i in range(40)]},
          "two_ranks": {"world": 2}, "reference": {"layout": "reference", "rows": 8},
          "no_negatives": {"k": 0}}[case]
    ranks = range(kw.get("world", 1))
    plan = BatchPlan(40, 8 if case != "reference" else 3, seed=3, epochs=2)
    for rank in ranks:
        collator, _ = _collator(rank=rank, **kw)
        drawn = arrays.draw(collator, plan, plan.total_steps)
        steps = arrays.StepArrays(drawn, collator.use_char, rank, kw.get("world", 1))
        for t in range(plan.total_steps):
            assert batch_hash(steps.batch(t)) == batch_hash(collator(t, plan.indices(t))), (case, rank, t)


def test_drawing_in_worker_processes_gives_the_same_arrays(monkeypatch):
    collator, _ = _collator()
    plan = BatchPlan(40, 4, seed=3, epochs=8)  # 80 steps: two chunks of 64
    one = arrays.draw(collator, plan, 80)
    monkeypatch.setattr(arrays, "TOKENISE_CHUNK", 7)  # the distinct texts tokenised in many pieces, joined
    two = arrays.draw(collator, plan, 80, workers=2)
    for name in ("ids", "lengths", "chars", "char_lengths", "rows", "labels"):
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)


def test_a_gpu_width_pads_to_a_multiple_and_masks_the_padding():
    collator, _ = _collator()
    plan = BatchPlan(40, 8, seed=3)
    exact = arrays.StepArrays(arrays.draw(collator, plan, 2), pad_multiple=1).batch(1)["inputs"]
    padded = arrays.StepArrays(arrays.draw(collator, plan, 2), pad_multiple=8).batch(1)["inputs"]
    for name, t in padded.items():
        assert t.shape[1] % 8 == 0, name
        w = exact[name].shape[1]
        assert torch.equal(t[:, :w], exact[name]) and not t[:, w:].any() or name == "input_ids", name


def test_saved_arrays_are_whole_keyed_and_checksummed(tmp_path):
    collator, _ = _collator()
    plan = BatchPlan(40, 8, seed=3)
    folder = tmp_path / "arrays"
    data = arrays.prepare(collator, plan, 5, folder, {"run": 1})
    assert isinstance(data["rows"], np.memmap) and not list(tmp_path.glob(".*tmp"))
    key = json.loads((folder / arrays.MANIFEST).read_text())["key"]
    assert arrays.load(folder, key)["rows"].shape == (5, 32)
    with pytest.raises(arrays.ArraysError, match="drawn for another run.*delete .*arrays"):
        arrays.load(folder, "another key")
    raw = bytearray((folder / "rows.npy").read_bytes())
    raw[-1] ^= 1
    (folder / "rows.npy").write_bytes(bytes(raw))
    with pytest.raises(arrays.ArraysError, match="rows.npy does not match its sha256"):
        arrays.load(folder, key)
    with pytest.warns(UserWarning, match="drawing them again"):  # damaged: drawn again, not misread
        again = arrays.prepare(collator, plan, 5, folder, {"run": 1})
    assert arrays.load(folder, key)["rows"].shape == (5, 32) and again["rows"].shape == (5, 32)
    with pytest.raises(IndexError, match="step 5 was not drawn"):
        arrays.StepArrays(again).batch(5)


def test_a_run_fed_from_arrays_trains_to_the_collators_weights_and_resumes(tmp_path):
    """Same batches, same weights: the arrays feed against the Collator, bit for bit, and a run fed
    from arrays killed after step 4 resumes from its checkpoint and its saved arrays to the same end."""
    collated = tiny_train(tmp_path / "collated", steps=6)
    killed = tiny_train(tmp_path / "killed", steps=6, stop_at=4, feed="arrays", log_every=3)  # read at 3 and 4
    assert (tmp_path / "killed" / "arrays" / arrays.MANIFEST).is_file() and len(killed.log) == 4
    resumed = tiny_train(tmp_path / "killed", steps=6, feed="arrays", log_every=3)
    assert [r["loss"] for r in resumed.log] == [r["loss"] for r in collated.log]
    a, b = collated.model.state_dict(), resumed.model.state_dict()
    for k in a:
        torch.testing.assert_close(a[k], b[k], rtol=0, atol=0, msg=k)


def test_bad_feed_settings_name_the_fix():
    from pearl.training.train import TrainConfig

    with pytest.raises(ValueError, match="feed.*'collate' or 'arrays'"):
        TrainConfig(feed="tensors")
    with pytest.raises(ValueError, match="log_every.*integer >= 1"):
        TrainConfig(log_every=0)


def test_buckets_decided_on_the_host_give_the_models_own_vectors():
    """The length buckets a GPU batch carries (order and widths from the host-side lengths, widths
    rounded to 8) give the vectors the model's own bucketing gives on the exact batch."""
    from pearl.training.model import build_model

    collator, _ = _collator()
    plan = BatchPlan(40, 8, seed=3)
    drawn = arrays.draw(collator, plan, 1)
    exact = arrays.StepArrays(drawn).batch(0)["inputs"]
    hinted = arrays.StepArrays(drawn, pad_multiple=8, buckets=4).batch(0)["inputs"]
    assert len(hinted["bucket_widths"]) == 4 and all(w % 8 == 0 for w in hinted["bucket_widths"])
    backbone, _ = tiny_backbone(dropout=0.0)
    torch.manual_seed(0)
    model = build_model(backbone, char_dim=16, num_labels=len(LABELS)).eval()
    with torch.no_grad():
        torch.testing.assert_close(model(**hinted).embedding, model(**exact, buckets=4).embedding, rtol=1e-5, atol=1e-6)
