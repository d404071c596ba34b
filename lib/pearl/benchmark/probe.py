"""The PPDB paraphrase probe (paper appendix A.1): an MLP on frozen phrase embeddings.

Protocol: the pair's two embeddings are concatenated, fed to Linear(2d, 256) -> ReLU ->
Linear(256, 1) -> sigmoid, trained with binary cross-entropy and Adam (lr 1e-4, batch 200)
on a seeded 70/15/15 train/validation/test split; early stopping on validation accuracy
(patience 5, at most 100 epochs) and the best-validation weights are the ones tested.
:func:`probe_scores` repeats it for several probe seeds (the split stays fixed, the
initialisation and batch order change) and reports mean ± std of test accuracy.

Unlike the reference code, every random draw is seeded (split, initialisation, batch order)
and the probe runs on whatever device the tensors are on (CPU by default). Speed on CPU
comes from full in-memory tensors and index slicing, with no DataLoader.

What it leaves out: learning-rate schedules, weight decay, hyper-parameter search.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..encode import torch_threads


@dataclass(frozen=True)
class ProbeConfig:
    hidden: int = 256
    lr: float = 1e-4
    batch_size: int = 200
    patience: int = 5
    max_epochs: int = 100
    split: tuple[float, float, float] = (0.70, 0.15, 0.15)
    init: str = "glorot"  # "glorot" (scikit-learn's MLP) or "torch" (nn.Linear's default, the reference code)


def glorot_init(layer, gain: float) -> None:
    """scikit-learn's MLP initialisation: weights and biases ~ U(-b, b), b = sqrt(gain / (fan_in + fan_out)).

    gain is 6 for a ReLU layer and 2 for the sigmoid output. torch's default bound is
    1/sqrt(fan_in), about half of this for the probe's 768 -> 256 layer; at lr 1e-4 the smaller
    start has not converged by the 100-epoch cap (best epoch 98-100 on PPDB), so the score
    depended on the initialisation scale.

    >>> import torch; layer = torch.nn.Linear(768, 256); glorot_init(layer, 6)
    >>> float(layer.weight.abs().max()) <= (6 / 1024) ** 0.5
    True
    """
    import torch

    bound = (gain / (layer.in_features + layer.out_features)) ** 0.5
    with torch.no_grad():
        layer.weight.uniform_(-bound, bound)
        layer.bias.uniform_(-bound, bound)


def split_indices(n: int, seed: int = 0, fractions=(0.70, 0.15, 0.15)) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Seeded train/validation/test indices; sizes round down, the test part takes the rest.

    >>> [len(part) for part in split_indices(100)]
    [70, 15, 15]
    """
    order = np.random.default_rng(seed).permutation(n)
    n_train, n_val = int(n * fractions[0]), int(n * fractions[1])
    return order[:n_train], order[n_train : n_train + n_val], order[n_train + n_val :]


def pair_features(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """The probe's input: the two phrase embeddings concatenated."""
    if left.shape != right.shape:
        raise ValueError(f"pair embeddings differ in shape: {left.shape} vs {right.shape}")
    return np.concatenate([left, right], axis=1).astype(np.float32)


def train_probe(features: np.ndarray, labels: np.ndarray, split, seed: int = 0,
                config: ProbeConfig = ProbeConfig()) -> dict:
    """Train one probe; returns test accuracy (percent), best epoch and epochs run."""

    # the probe's matrices are tiny: one thread avoids synchronisation costs, which grow to
    # 10-100x the compute when other processes share the cores (measured: 0.1 vs 16 s/epoch)
    with torch_threads(1):
        return _train(features, labels, split, seed, config)


def _train(features, labels, split, seed, config) -> dict:
    import torch
    from torch import nn

    generator = torch.Generator().manual_seed(seed)
    x = torch.from_numpy(np.ascontiguousarray(features, dtype=np.float32))
    y = torch.from_numpy(np.asarray(labels, dtype=np.float32))
    train, val, test = (torch.as_tensor(s, dtype=torch.long) for s in split)
    if len(train) == 0 or len(val) == 0 or len(test) == 0:
        raise ValueError(f"split too small for a probe: {len(train)}/{len(val)}/{len(test)} pairs")
    if config.init not in ("glorot", "torch"):
        raise ValueError(f"unknown probe init {config.init!r}; choose 'glorot' or 'torch'")
    # nn.Linear's initialisation draws from the global generator: seed it inside a fork so the
    # caller's random state is the same after scoring as before
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = nn.Sequential(nn.Linear(x.shape[1], config.hidden), nn.ReLU(), nn.Linear(config.hidden, 1))
        if config.init == "glorot":
            glorot_init(model[0], 6.0)
            glorot_init(model[2], 2.0)
    optimiser = torch.optim.Adam(model.parameters(), lr=config.lr, fused=x.device.type in ("cpu", "cuda"))
    loss_fn = nn.BCEWithLogitsLoss()  # = sigmoid + BCE, numerically stable

    def accuracy(idx) -> float:
        with torch.inference_mode():
            pred = model(x[idx]).squeeze(1) > 0  # sigmoid(z) > 0.5  <=>  z > 0
            return (pred == (y[idx] > 0.5)).float().mean().item()

    best_acc, best_epoch, best_state, waited, epoch = -1.0, 0, None, 0, 0
    for epoch in range(1, config.max_epochs + 1):
        model.train()
        perm = train[torch.randperm(len(train), generator=generator)]
        for start in range(0, len(perm), config.batch_size):
            idx = perm[start : start + config.batch_size]
            optimiser.zero_grad(set_to_none=True)
            loss_fn(model(x[idx]).squeeze(1), y[idx]).backward()
            optimiser.step()
        model.eval()
        val_acc = accuracy(val)
        if val_acc > best_acc:
            best_acc, best_epoch, waited = val_acc, epoch, 0
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
        else:
            waited += 1
            if waited >= config.patience:
                break
    model.load_state_dict(best_state)
    return {"test_accuracy": 100 * accuracy(test), "val_accuracy": 100 * best_acc,
            "best_epoch": best_epoch, "epochs": epoch}


def probe_scores(left: np.ndarray, right: np.ndarray, labels, seeds=(0, 1, 2), split_seed: int = 0,
                 config: ProbeConfig = ProbeConfig()) -> dict:
    """Mean ± sample std (ddof=1) over probe seeds of the test accuracy, in percent."""
    features = pair_features(left, right)
    split = split_indices(len(features), split_seed, config.split)
    runs = [train_probe(features, np.asarray(labels), split, seed, config) for seed in seeds]
    accs = np.array([r["test_accuracy"] for r in runs])
    return {"score": float(accs.mean()), "std": float(accs.std(ddof=1)) if len(accs) > 1 else 0.0, "runs": runs,
            "n": int(len(features)), "n_test": int(len(split[2]))}
