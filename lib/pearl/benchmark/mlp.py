"""One frozen-vector MLP for every benchmark head: the PPDB probe and the Table 2 classifier.

Linear(d, hidden) -> ReLU -> Linear(hidden, k), trained with Adam on frozen embeddings;
early stopping on the validation part (accuracy or loss, with a patience), and the
best-validation weights are the ones tested. ``k = 1`` is a binary head (sigmoid,
binary cross-entropy, labels 0/1); ``k > 1`` a softmax head (cross-entropy, integer labels,
-1 for a label never seen in training, which can only count as an error).

Several seeds train at once: their weights are stacked and every step is one batched matrix
product for all of them (``torch.matmul`` on (seeds, batch, d)), so the Python loop runs once
for all seeds. Each seed keeps what the one-at-a-time protocol gives it: its own
initialisation (``nn.Linear``'s draws from a generator seeded with the seed, then
:func:`glorot_bound` by default), its own batch order and its own early stopping (a seed that
has stopped keeps its best weights; the others go on). Adam is per-element, so stacking changes nothing but the
floating-point summation order.

The protocols (which data, which split, standardised or not, which hyper-parameters) live with
their callers, :mod:`pearl.benchmark.probe` and :mod:`pearl.benchmark.classifier`, as
:class:`MLPConfig` subclasses. What it leaves out: learning-rate schedules, weight decay,
class weighting, hyper-parameter search.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MLPConfig:
    """Architecture, optimiser and stopping rule of one MLP head."""

    hidden: int = 256
    lr: float = 1e-3
    batch_size: int = 200
    patience: int = 10
    max_epochs: int = 50
    init: str = "glorot"  # "glorot" (scikit-learn's MLP) or "torch" (nn.Linear's default, the PPDB reference code)
    stop_on: str = "accuracy"  # early stopping on validation "accuracy" or "loss"

    def check(self) -> None:
        if self.init not in ("glorot", "torch"):
            raise ValueError(f"unknown MLP init {self.init!r}; choose 'glorot' or 'torch'")
        if self.stop_on not in ("accuracy", "loss"):
            raise ValueError(f"unknown stopping rule {self.stop_on!r}; choose 'accuracy' or 'loss'")


def glorot_bound(fan_in: int, fan_out: int, gain: float) -> float:
    """scikit-learn's MLP initialisation: weights and biases ~ U(-b, b), b = sqrt(gain / (fan_in + fan_out)).

    gain is 6 for a ReLU layer and 2 for the output layer. torch's default bound is
    1/sqrt(fan_in), about half of this for the probe's 768 -> 256 layer; at lr 1e-4 the smaller
    start has not converged by the 100-epoch cap (best epoch 98-100 on PPDB), so the score
    depended on the initialisation scale.

    >>> round(glorot_bound(768, 256, 6), 4)
    0.0765
    """
    return (gain / (fan_in + fan_out)) ** 0.5


def initial_weights(seed: int, d_in: int, d_out: int, config: MLPConfig):
    """(W1, b1, W2, b2) of one seed's MLP, drawn exactly as a lone ``nn.Linear`` pair would be."""
    import math

    import torch
    from torch.nn import init

    # nn.Linear's own draws, from a private generator: with the global one, two threads scoring
    # side by side interleaved their draws (same seed, other numbers)
    g = torch.Generator().manual_seed(seed)
    layers = []
    for fan_in, fan_out in ((d_in, config.hidden), (config.hidden, d_out)):
        w, b = torch.empty(fan_out, fan_in), torch.empty(fan_out)
        init.kaiming_uniform_(w, a=math.sqrt(5), generator=g)
        init.uniform_(b, -1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in), generator=g)
        layers.append((w, b))
    if config.init == "glorot":  # redrawn after torch's draws, as re-initialising built layers does
        for (w, b), gain in zip(layers, (6.0, 2.0)):
            bound = glorot_bound(w.shape[1], w.shape[0], gain)
            w.uniform_(-bound, bound, generator=g)
            b.uniform_(-bound, bound, generator=g)
    (w1, b1), (w2, b2) = layers
    return w1.T, b1, w2.T, b2


def train_mlps(parts: dict, n_out: int, seeds, config: MLPConfig, history: bool = False) -> list[dict]:
    """Train one MLP per seed on ``parts["train"]``, early-stopped on ``parts["val"]``, tested on ``parts["test"]``.

    ``parts`` maps "train" / "val" / "test" to ``(features, labels)`` torch tensors: float 0/1
    labels for ``n_out == 1``, long class codes otherwise. Returns, per seed, ``seed``,
    ``test_accuracy`` and ``val_accuracy`` (percent, of the best-validation weights),
    ``best_epoch`` and ``epochs`` (where it stopped); ``history=True`` adds each epoch's
    validation accuracy and loss and test accuracy as ``curve``.
    """
    import torch
    from torch.nn import functional as F

    config.check()
    seeds = tuple(seeds)
    x_train, y_train = parts["train"]
    n = len(seeds)
    w1, b1, w2, b2 = (torch.stack(p).requires_grad_() for p in
                      zip(*(initial_weights(s, x_train.shape[1], n_out, config) for s in seeds)))
    params = [w1, b1, w2, b2]
    optimiser = torch.optim.Adam(params, lr=config.lr, fused=True)
    generators = [torch.Generator().manual_seed(s) for s in seeds]

    def logits(inputs, w1, b1, w2, b2):  # inputs (n, B, d) per seed, or (B, d) shared -> (n, B[, k])
        z = torch.relu(torch.matmul(inputs, w1) + b1[:, None]) @ w2 + b2[:, None]
        return z.squeeze(-1) if n_out == 1 else z

    def losses(z, target):  # each seed's mean loss, shape (n,); a -1 label adds 0 to the sum
        target = target.expand(z.shape[:2])
        if n_out == 1:
            return F.binary_cross_entropy_with_logits(z, target, reduction="none").mean(1)
        return F.cross_entropy(z.flatten(0, 1), target.flatten(), ignore_index=-1, reduction="none").view(n, -1).mean(1)

    def evaluate(part, weights):
        inputs, target = parts[part]
        with torch.inference_mode():
            z = logits(inputs, *weights)
            predicted = z > 0 if n_out == 1 else z.argmax(-1)  # sigmoid(z) > 0.5  <=>  z > 0
            correct = predicted == (target > 0.5) if n_out == 1 else predicted == target
            return correct.float().mean(1), losses(z, target)

    def rows(idx):  # x_train[idx] for a (n, B) index: index_select on the flat index is ~4x faster
        return x_train.index_select(0, idx.reshape(-1)).view(*idx.shape, x_train.shape[1])

    best = torch.full((n,), -float("inf"))
    best_epoch, waited = torch.zeros(n, dtype=torch.long), torch.zeros(n, dtype=torch.long)
    active, stopped_at = torch.ones(n, dtype=torch.bool), torch.zeros(n, dtype=torch.long)
    best_weights = [p.detach().clone() for p in params]
    curves = [[] for _ in seeds]
    epoch = 0
    for epoch in range(1, config.max_epochs + 1):
        perms = torch.stack([torch.randperm(len(y_train), generator=g) for g in generators])
        for start in range(0, len(y_train), config.batch_size):
            idx = perms[:, start : start + config.batch_size]  # (n, B): each seed's own batch
            optimiser.zero_grad(set_to_none=True)
            # sum over seeds of each seed's mean loss: every seed gets its own mean-loss gradient
            losses(logits(rows(idx), *params), y_train[idx]).sum().backward()
            optimiser.step()
        acc, loss = evaluate("val", params)
        score = acc if config.stop_on == "accuracy" else -loss
        improved = active & (score > best)
        best = torch.where(improved, score, best)
        best_epoch = torch.where(improved, epoch, best_epoch)
        waited = torch.where(improved, 0, waited + 1)
        for saved, p in zip(best_weights, params):
            saved[improved] = p.detach()[improved]
        if history:
            test_acc, _ = evaluate("test", params)
            for i in range(n):
                curves[i].append({"epoch": epoch, "val_accuracy": 100 * float(acc[i]), "val_loss": float(loss[i]),
                                  "test_accuracy": 100 * float(test_acc[i])})
        stopped_now = active & (waited >= config.patience)
        stopped_at = torch.where(stopped_now, epoch, stopped_at)
        active &= ~stopped_now
        if not active.any():
            break
    stopped_at = torch.where(active, epoch, stopped_at)  # seeds that ran to max_epochs
    (test_acc, _), (val_acc, _) = evaluate("test", best_weights), evaluate("val", best_weights)
    out = []
    for i, seed in enumerate(seeds):
        result = {"seed": seed, "test_accuracy": 100 * float(test_acc[i]), "val_accuracy": 100 * float(val_acc[i]),
                  "best_epoch": int(best_epoch[i]), "epochs": int(stopped_at[i])}
        if history:
            result["curve"] = curves[i]
        out.append(result)
    return out


def seed_summary(runs: list[dict]) -> dict:
    """Mean ± sample std (ddof=1; 0 for one seed) of the runs' test accuracy, and the runs.

    >>> seed_summary([{"test_accuracy": 60.0}, {"test_accuracy": 64.0}])["std"]
    2.8284271247461903
    """
    import numpy as np

    accs = np.array([r["test_accuracy"] for r in runs])
    return {"score": float(accs.mean()), "std": float(accs.std(ddof=1)) if len(accs) > 1 else 0.0, "runs": runs}
