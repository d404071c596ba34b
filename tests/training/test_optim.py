"""The row-wise Adam of the word embeddings (pearl.training.optim) gives dense Adam's weights up to
float rounding: on an embedding whose rows rest past the window, and through train() on the tiny
backbone; a dense Adam's state continues in it; the window's bound holds against dense Adam."""
import pytest
import torch
from _tiny import CFG, LABELS, swap_augmenter, tiny_backbone, tiny_corpus, tiny_hard_negatives
from pearl.training import optim
from pearl.training.optim import RowAdam, neglected_drift, sparse_embedding_grads, window_for
from pearl.training.train import TrainConfig, train

#: betas whose window is short (25 steps), so rows leave it and come back within a quick test
FAST = (0.5, 0.999)


def _ids(step: int, generator) -> torch.Tensor:
    """Six token ids: from all 50 rows for 5 steps in every 40, else from the first 10 only, so
    rows 10-49 rest for 35 steps at a time, past the 25-step window of :data:`FAST`."""
    return torch.randint(0, 50 if step % 40 < 5 else 10, (6,), generator=generator)


def _embedding_run(rowwise: bool, steps: int = 120, state: dict | None = None, start: int = 0, **kw):
    """An embedding and a linear layer trained by Adam (fused, as the trainer asks) on :func:`_ids`;
    returns (weights, the optimiser's state_dict)."""
    torch.manual_seed(0)
    emb, lin = torch.nn.Embedding(50, 8, sparse=rowwise), torch.nn.Linear(8, 1)
    opt = (RowAdam if rowwise else torch.optim.Adam)([*emb.parameters(), *lin.parameters()], lr=1e-2, betas=FAST,
                                                     fused=True, **kw)
    generator = torch.Generator().manual_seed(1)
    for step in range(start + steps):
        ids = _ids(step, generator)
        if step < start:
            continue
        if state is not None and step == start:
            emb.weight.data, lin.weight.data, lin.bias.data = state["weights"]
            opt.load_state_dict(state["optimizer"])
        opt.zero_grad(set_to_none=True)
        lin(emb(ids)).pow(2).sum().backward()
        opt.step()
    weights = [t.detach().clone() for t in (emb.weight, lin.weight, lin.bias)]
    return weights, opt.state_dict()


def _ulps(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest difference in units of float32's spacing at the larger weight."""
    return float((a - b).abs().max() / (torch.finfo(torch.float32).eps * a.abs().max()))


def test_row_wise_adam_gives_dense_adams_weights_when_rows_rest_past_the_window():
    """Tolerance: 4 float32 spacings of the largest weight. The moments a resting row missed are
    caught up by one power instead of ``gap`` products (a rounding each), nothing else differs.
    Without the window (rows updated only when in the batch, as a lazy Adam does) the weights
    depart by thousands of spacings."""
    assert window_for(*FAST) == 25
    dense, _ = _embedding_run(False)
    rows, _ = _embedding_run(True)
    for d, r in zip(dense, rows):
        assert _ulps(d, r) <= 4
    lazy, _ = _embedding_run(True, tolerance=1e9)  # a window of one step
    assert _ulps(dense[0], lazy[0]) > 1000


def test_a_dense_adams_state_continues_row_wise():
    """A checkpoint of the dense update resumes under the row-wise one: every row counts as
    touched at the checkpoint's step, so the moments dense Adam left keep moving the weights."""
    dense, _ = _embedding_run(False)
    half, state = _embedding_run(False, steps=60)
    resumed, after = _embedding_run(True, steps=60, state={"weights": half, "optimizer": state}, start=60)
    for d, r in zip(dense, resumed):
        assert _ulps(d, r) <= 4
    saved = after["state"][0]
    assert saved["touched"].dtype == torch.long and int(saved["touched"].max()) > 60


def test_the_window_bounds_what_dense_adam_still_moves_a_resting_row():
    """float64 dense Adam, lr 1: a row with 30 steps of gradients, then none. What it moves after
    the recipe's window (186 steps for betas 0.9, 0.999) stays under :func:`neglected_drift`, which is
    at most the tolerance; a window one step shorter would exceed the tolerance."""
    beta1, beta2 = 0.9, 0.999
    window = window_for(beta1, beta2)
    assert window == 186 and neglected_drift(window, beta1, beta2) <= optim.TOLERANCE < \
        neglected_drift(window - 1, beta1, beta2)
    torch.manual_seed(0)
    w = torch.zeros(64, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.Adam([w], lr=1.0, betas=(beta1, beta2))
    grads = torch.randn(30, 64, dtype=torch.float64) * torch.logspace(-6, 0, 30, dtype=torch.float64)[:, None]
    for step in range(30 + window + 3000):
        w.grad = grads[step] if step < 30 else torch.zeros_like(w)
        opt.step()
        if step == 30 + window - 1:
            at_window = w.detach().clone()
    assert float((w.detach() - at_window).abs().max()) <= neglected_drift(window, beta1, beta2)


def test_betas_without_a_finite_window_are_refused_with_the_fix():
    with pytest.raises(ValueError, match=r"beta1 < sqrt\(beta2\).*embedding_update='dense'"):
        window_for(0.99, 0.9)


def test_weight_decay_is_refused_on_a_row_wise_parameter():
    emb = torch.nn.Embedding(5, 2, sparse=True)
    opt = RowAdam(emb.parameters(), lr=0.1, weight_decay=0.01)
    emb(torch.tensor([1, 2])).sum().backward()
    with pytest.raises(ValueError, match="weight_decay.*dense gradient"):
        opt.step()


def test_sparse_embedding_grads_are_restored_and_need_an_embedding():
    backbone, _ = tiny_backbone()
    with sparse_embedding_grads(backbone) as emb:
        assert emb.sparse
        backbone(input_ids=torch.tensor([[101, 2047, 102]])).last_hidden_state.sum().backward()
        assert emb.weight.grad.is_sparse
    assert not backbone.get_input_embeddings().sparse
    backbone.set_input_embeddings(torch.nn.Identity())
    with pytest.raises(TypeError, match="nn.Embedding.*embedding_update='dense'"):
        with sparse_embedding_grads(backbone):
            pass


def _train(update: str, backbone) -> dict:
    corpus = tiny_corpus(48)
    cfg = TrainConfig(steps=12, embedding_update=update, **CFG)
    return train(cfg, corpus, tiny_hard_negatives(corpus), swap_augmenter, labels=LABELS, progress=False,
                 backbone=backbone).model.state_dict()


def _gap(a: dict, b: dict) -> float:
    return max(float((a[k] - b[k]).abs().max()) for k in a)


@pytest.mark.slow
def test_train_row_wise_is_dense_up_to_rounding_on_the_tiny_backbone(monkeypatch):
    """12 steps of the recipe (weight averaging and centring included), the word embeddings
    updated row-wise against densely. Float rounding is chaotic here: a weight with no true
    gradient (an attention key's bias) turns rounding noise into lr-sized Adam steps. So the
    tolerance is what rounding does to this run: the dense run started from word embeddings
    nudged by one float32 spacing. The row-wise run departs less; updating rows only while they
    are in the batch departs far more."""
    dense = _train("dense", tiny_backbone())
    backbone, _ = tiny_backbone()
    with torch.no_grad():
        w = backbone.get_input_embeddings().weight
        w.copy_(torch.nextafter(w, torch.tensor(float("inf"))))
    rounding = _gap(dense, _train("dense", (backbone, tiny_backbone()[1])))
    assert 0 < rounding < 1e-3
    assert _gap(dense, _train("rows", tiny_backbone())) <= rounding
    monkeypatch.setattr(RowAdam, "window", lambda self, group: 0)  # only the rows of the batch
    assert _gap(dense, _train("rows", tiny_backbone())) > 10 * rounding


def test_a_fresh_state_updates_only_the_rows_of_the_batch():
    """Rows without a gradient yet have zero moments, which dense Adam leaves where they are: the
    row-wise update must not carry them (a fresh state once made every row active, dense cost)."""
    emb = torch.nn.Embedding(1000, 4, sparse=True)
    opt = RowAdam(emb.parameters(), lr=0.1)
    for ids in ([3, 7, 7], [7, 9]):
        opt.zero_grad(set_to_none=True)
        emb(torch.tensor(ids)).sum().backward()
        opt.step()
    assert torch.nonzero(opt.state[emb.weight]["current"]).flatten().tolist() == [3, 7, 9]
