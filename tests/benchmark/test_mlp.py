"""The one frozen-vector MLP behind the PPDB probe and the Table 2 classifier.

``data/mlp_reference.json`` holds what the two heads returned on the cases below before they
shared :mod:`pearl.benchmark.mlp` (each had its own copy of the loop, at commit 2357a42; the
classifier's ``valid_accuracy`` is renamed ``val_accuracy``, the one vocabulary now): the shared
loop must give the same seeds the same epochs and the same accuracies.
"""
import json
from pathlib import Path

import numpy as np
import pytest

from pearl.benchmark.classifier import ClassifierConfig, train_classifiers
from pearl.benchmark.mlp import MLPConfig, train_mlps
from pearl.benchmark.probe import ProbeConfig, split_indices, train_probes

REFERENCE = json.loads((Path(__file__).parent / "data" / "mlp_reference.json").read_text())


def cases() -> dict:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(600, 16)).astype(np.float32)
    y = (x @ rng.normal(size=16) + rng.normal(size=600) > 0).astype(int)
    split = split_indices(600)
    out = {"probe": train_probes(x, y, split, (0, 1, 2), ProbeConfig(hidden=8, max_epochs=20)),
           "probe_paper_torchinit": train_probes(x, y, split, (0, 1), ProbeConfig(
               hidden=8, lr=1e-2, init="torch", standardize=False, stop_on="loss", max_epochs=15), history=True)}
    centres = rng.normal(size=(3, 16))
    labels = np.array(["a", "b", "c"])[np.argmax(x @ centres.T + rng.normal(size=(600, 3)), 1)]
    xs = {"train": x[:400], "valid": x[400:500], "test": x[500:]}
    ys = {"train": labels[:400], "valid": labels[400:500].copy(), "test": labels[500:].copy()}
    ys["test"][0] = "zzz"  # a label never seen in training: always an error
    out["classifier"] = train_classifiers(xs, ys, (0, 1, 2), ClassifierConfig(hidden=8, max_epochs=30))
    out["classifier_acc"] = train_classifiers(xs, ys, (3,), ClassifierConfig(hidden=8, max_epochs=30, stop_on="accuracy", lr=1e-2))
    return out


def test_the_shared_mlp_gives_both_heads_what_their_own_loops_gave():
    got = cases()
    assert got.keys() == REFERENCE.keys()
    for case, runs in REFERENCE.items():
        assert len(got[case]) == len(runs)
        for mine, ref in zip(got[case], runs):
            assert mine.keys() == ref.keys(), case
            assert (mine["seed"], mine["best_epoch"], mine["epochs"]) == (ref["seed"], ref["best_epoch"], ref["epochs"]), case
            assert mine["test_accuracy"] == pytest.approx(ref["test_accuracy"], abs=1e-6), case
            assert mine["val_accuracy"] == pytest.approx(ref["val_accuracy"], abs=1e-6), case
            for e_mine, e_ref in zip(mine.get("curve", []), ref.get("curve", [])):
                assert e_mine == pytest.approx(e_ref, abs=1e-5), case


def test_a_binary_and_a_softmax_head_on_a_hand_made_separable_case():
    """Two well-separated clusters: both heads reach 100 % and report the same result keys."""
    import torch

    rng = np.random.default_rng(1)
    x = np.concatenate([rng.normal(-3, 0.1, size=(60, 2)), rng.normal(3, 0.1, size=(60, 2))]).astype(np.float32)
    y = np.repeat([0, 1], 60)
    order = rng.permutation(120)
    parts = {name: (torch.from_numpy(x[idx]), torch.from_numpy(y[idx])) for name, idx in
             (("train", order[:80]), ("val", order[80:100]), ("test", order[100:]))}
    config = MLPConfig(hidden=4, lr=5e-2, batch_size=16, patience=3, max_epochs=30)
    binary = train_mlps({k: (v[0], v[1].float()) for k, v in parts.items()}, 1, (0, 1), config)
    softmax = train_mlps(parts, 2, (0, 1), config)
    for runs in (binary, softmax):
        assert [r["test_accuracy"] for r in runs] == [100.0, 100.0]
        assert set(runs[0]) == {"seed", "test_accuracy", "val_accuracy", "best_epoch", "epochs"}


def test_bad_settings_name_the_choices():
    with pytest.raises(ValueError, match="'glorot' or 'torch'"):
        MLPConfig(init="xavier").check()
    with pytest.raises(ValueError, match="'accuracy' or 'loss'"):
        MLPConfig(stop_on="f1").check()


@pytest.mark.parametrize("init", ["torch", "glorot"])
def test_each_seed_starts_where_a_lone_seeded_linear_pair_starts(init):
    """The oracle: nn.Linear under torch.manual_seed, then (glorot) uniform redraws at sklearn's bound."""
    import torch
    from torch import nn

    from pearl.benchmark.mlp import glorot_bound, initial_weights

    config = MLPConfig(hidden=8, init=init)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(3)
        first, last = nn.Linear(5, 8), nn.Linear(8, 2)
        if init == "glorot":
            with torch.no_grad():
                for layer, gain in ((first, 6.0), (last, 2.0)):
                    bound = glorot_bound(layer.in_features, layer.out_features, gain)
                    layer.weight.uniform_(-bound, bound)
                    layer.bias.uniform_(-bound, bound)
    expected = (first.weight.T, first.bias, last.weight.T, last.bias)
    assert all(torch.equal(a, b.detach()) for a, b in zip(initial_weights(3, 5, 2, config), expected))


def test_threads_drawing_initial_weights_side_by_side_get_their_seeds_numbers():
    """The draws use no global generator, so concurrent scorers cannot interleave them."""
    from concurrent.futures import ThreadPoolExecutor

    import torch

    from pearl.benchmark.mlp import initial_weights

    config = MLPConfig(hidden=64)
    alone = [initial_weights(s, 300, 4, config) for s in range(8)]
    with ThreadPoolExecutor(4) as pool:
        side_by_side = list(pool.map(lambda s: initial_weights(s, 300, 4, config), list(range(8)) * 4))
    assert all(all(torch.equal(a, b) for a, b in zip(alone[i % 8], got)) for i, got in enumerate(side_by_side))
