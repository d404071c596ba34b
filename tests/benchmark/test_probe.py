"""The PPDB probe's stopping rule and its convex cross-check, on cases whose answer is known.

The stopping rule: a data set where validation accuracy is flat for k epochs (the probe
predicts the majority class until it finds a small-scale signal) and then jumps; a patience
below k must stop on the plateau, one above k must get past it, and replaying the rule on the
recorded curve (``stopping_point``) must give what training itself gives.
"""
import numpy as np
import pytest

from pearl.benchmark.probe import (PAPER_PROBE, ProbeConfig, linear_probe, split_indices, stopping_point,
                                   train_probe, train_probes)


def test_stopping_point_on_a_hand_made_curve():
    val = [50, 50, 50, 50, 50, 50, 62, 70, 70, 69]  # flat for 6 epochs, then rises
    test = [48, 49, 50, 51, 52, 53, 60, 71, 72, 73]
    short = stopping_point(val, test, patience=3)
    assert short == {"best_epoch": 1, "epochs": 4, "val_accuracy": 50, "test_accuracy": 48}  # a tie is no progress
    long = stopping_point(val, test, patience=6)
    assert long == {"best_epoch": 8, "epochs": 10, "val_accuracy": 70, "test_accuracy": 71}  # ran out of curve
    assert stopping_point(val, test, patience=6, max_epochs=7)["best_epoch"] == 7
    assert stopping_point(val, test, patience=1)["epochs"] == 2


def plateau_data(n=400, scale=1e-2, seed=0):
    """70 % positives; the label is in one feature at a tiny scale, so the probe first learns the
    majority class (validation accuracy flat) and only later the signal (accuracy jumps to ~100)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.7).astype(int)
    x = (np.where(y == 1, 1.0, -1.0) * scale + rng.normal(size=n) * scale / 100)[:, None].astype(np.float32)
    return x, y


# raw inputs: standardising would blow the small-scale signal up and remove the plateau
CONFIG = ProbeConfig(hidden=8, lr=3e-2, batch_size=50, max_epochs=60, patience=10**6, standardize=False)


def test_patience_below_the_plateau_stops_on_it_and_above_gets_past():
    x, y = plateau_data()
    split = split_indices(len(x))
    curve = train_probes(x, y, split, (0,), CONFIG, history=True)[0]["curve"]
    val = [e["val_accuracy"] for e in curve]
    majority = 100 * max(y[split[1]].mean(), 1 - y[split[1]].mean())
    k = next(i for i, v in enumerate(val) if v > val[0])  # epochs 1..k sit on the plateau
    assert val[0] == pytest.approx(majority) and len(set(val[:k])) == 1 and k >= 10  # the case is what it claims
    test = [e["test_accuracy"] for e in curve]
    for patience in (k // 2, k + 5):
        got = train_probes(x, y, split, (0,), ProbeConfig(**{**CONFIG.__dict__, "patience": patience}))[0]
        replay = stopping_point(val, test, patience)
        assert (got["best_epoch"], got["epochs"]) == (replay["best_epoch"], replay["epochs"])
        assert got["test_accuracy"] == pytest.approx(replay["test_accuracy"])
        if patience < k:  # stopped on the plateau: the majority class, best weights from epoch 1
            assert got["best_epoch"] == 1 and got["epochs"] == 1 + patience
            assert got["test_accuracy"] == pytest.approx(100 * max(y[split[2]].mean(), 1 - y[split[2]].mean()))
        else:
            assert got["best_epoch"] > k and got["test_accuracy"] > 95


def test_linear_probe_separates_what_only_the_product_feature_shows():
    """Label = whether the two phrases' first coordinates agree in sign: an XOR for the plain
    concatenation, one weight on u*v for the convex probe. Each C here separates the validation
    part, so the tie rule picks the strongest regularisation (the smallest C)."""
    rng = np.random.default_rng(0)
    u = rng.normal(size=(600, 4))
    v = rng.normal(size=(600, 4))
    u[:, 0] = np.sign(u[:, 0]) * (0.5 + np.abs(u[:, 0]))  # a margin around zero
    v[:, 0] = np.sign(v[:, 0]) * (0.5 + np.abs(v[:, 0]))
    y = (u[:, 0] * v[:, 0] > 0).astype(int)
    split = split_indices(600)
    out = linear_probe(u, v, y, split, cs=(100.0, 1.0, 10.0))
    assert out["score"] == 100.0 and out["n_test"] == 90 and out["C"] == 1.0
    assert set(out["val_accuracy_by_C"].values()) == {100.0}
    with pytest.raises(ValueError, match="differ in shape"):
        linear_probe(u, v[:, :3], y, split)


def test_the_paper_protocol_is_kept_by_name():
    assert (PAPER_PROBE.lr, PAPER_PROBE.patience, PAPER_PROBE.max_epochs, PAPER_PROBE.standardize) == (1e-4, 5, 100, False)
    assert ProbeConfig() != PAPER_PROBE


def test_seeds_trained_together_match_seeds_trained_alone():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((300, 16)).astype(np.float32)
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(np.float32)
    split = split_indices(len(x))
    config = ProbeConfig(hidden=8, batch_size=32, max_epochs=12, patience=3)
    together = train_probes(x, y, split, (0, 1, 2), config)
    alone = [train_probe(x, y, split, seed, config) for seed in (0, 1, 2)]
    for a, b in zip(together, alone):
        assert (a["best_epoch"], a["epochs"]) == (b["best_epoch"], b["epochs"])
        assert a["test_accuracy"] == pytest.approx(b["test_accuracy"])
    assert len({r["epochs"] for r in together}) > 1 or len({r["test_accuracy"] for r in together}) > 1  # seeds differ
