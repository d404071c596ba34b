"""The trainer's Adam, with a row-wise update for the word-embedding matrix (issue #68).

A training batch touches a few hundred of the word-embedding matrix's rows (me5-small: 250,002
rows x 384, 96M of its 118M parameters), yet a dense gradient fills the whole matrix once per
length bucket and dense Adam then rewrites every row. :class:`RowAdam` is ``torch.optim.Adam``
(no weight decay, as the recipe uses it) that takes a parameter with a **sparse** gradient
(``nn.Embedding(sparse=True)``: :func:`sparse_embedding_grads`) and updates only its *active*
rows: those that had a gradient in the last :attr:`RowAdam.window` steps. It gives the dense
update's weights up to float rounding, because:

- a row inside the window gets torch's own Adam arithmetic (the same functional, a zero gradient
  on the steps it was not in the batch, as dense Adam gives it);
- a row's moments, frozen while it is outside the window, are brought forward when it returns:
  ``m * beta1**gap`` and ``v * beta2**gap`` are what ``gap`` dense steps with a zero gradient
  leave (up to the rounding of one power against ``gap`` products);
- what dense Adam would still move a row after ``window`` steps without a gradient is bounded:
  the step ``j`` steps later is at most ``lr * r**j * |m|/sqrt(v) * sqrt(1 - beta2**t)/(1 - beta1**t)``
  with ``r = beta1 / sqrt(beta2)``, and ``|m|/sqrt(v) <= (1 - beta1) / (sqrt(1 - beta2) (1 - r))``
  whatever the gradients were, so everything after the window sums to at most
  :func:`neglected_drift` ``x lr``. The window is the shortest one that keeps this below
  ``tolerance`` (1e-6) of the learning rate: 186 steps for betas (0.9, 0.999), 3e-11 at lr 3e-5,
  about a thirtieth of the float32 spacing at a weight of 0.01. Over 186 batches about 5,000 rows
  are active (4,905 for MiniLM, 5,505 for me5-small on notebook 01's phrases: ``perf/train_step_floor.py``),
  not 250,002.

Rows never in a batch keep zero moments, so dense Adam never moves them either. A parameter
with a dense gradient goes through ``torch.optim.Adam`` unchanged (fused, as the trainer asks).
The trainer keeps dense gradients when it compiles the backbone (``compile`` on CUDA): inductor
cannot compile a sparse embedding backward. What it leaves out: weight decay, amsgrad and
maximize on a row-wise parameter (refused: the window's bound assumes plain Adam), and closures.
"""
from __future__ import annotations

import contextlib
import math

import torch
from torch import nn
from torch.optim.adam import adam

#: the row-wise update's allowed drift from dense Adam, as a share of the learning rate
TOLERANCE = 1e-6
#: ``touched`` of a row that never had a gradient: outside every window (exact in float32, which a
#: checkpoint's load casts it to)
NEVER = -(2 ** 40)


def neglected_drift(window: int, beta1: float, beta2: float) -> float:
    """Upper bound, in units of the learning rate, on how far dense Adam moves one weight in all the
    steps more than ``window`` steps after its row's last gradient (the module's docstring derives it)."""
    r = beta1 / math.sqrt(beta2)
    return (1 - beta1) / math.sqrt(1 - beta2) / (1 - r) ** 2 * r ** (window + 1) / (1 - beta1 ** (window + 1))


def window_for(beta1: float, beta2: float, tolerance: float = TOLERANCE) -> int:
    """The fewest steps a row must stay active after its last gradient so that :func:`neglected_drift`
    is at most ``tolerance``; ``ValueError`` when the drift never decays (``beta1 >= sqrt(beta2)``)."""
    if not beta1 < math.sqrt(beta2):
        raise ValueError(f"betas ({beta1}, {beta2}): the row-wise update needs beta1 < sqrt(beta2), or old "
                         "gradients never stop moving a row; train with embedding_update='dense'")
    window = 1
    while neglected_drift(window, beta1, beta2) > tolerance:
        window += 1
    return window


class RowAdam(torch.optim.Adam):
    """``torch.optim.Adam`` whose sparse-gradient parameters are updated row-wise (see the module).

    Extra state of such a parameter: ``touched`` (per row, the last step it had a gradient) and
    ``current`` (per row, the step its moments were last brought to); both travel in
    :meth:`state_dict`. A dense Adam's state (a checkpoint of the dense update) loads too: every
    row counts as touched at its step, so the first ``window`` steps update the whole matrix.
    """

    def __init__(self, params, lr: float = 1e-3, tolerance: float = TOLERANCE, **kwargs):
        super().__init__(params, lr=lr, **kwargs)
        self.tolerance = tolerance

    def window(self, group: dict) -> int:
        """Steps a row stays active after its last gradient, for ``group``'s betas."""
        return window_for(*group["betas"], self.tolerance)

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None:
            raise ValueError("RowAdam takes no closure: compute the loss and call backward() before step()")
        rows = [(p, group) for group in self.param_groups for p in group["params"]
                if p.grad is not None and p.grad.is_sparse]
        grads = [p.grad for p, _ in rows]
        for p, _ in rows:  # torch's Adam refuses sparse gradients: it skips parameters without one
            p.grad = None
        try:
            super().step()
        finally:
            for (p, _), g in zip(rows, grads):
                p.grad = g
        for (p, group), g in zip(rows, grads):
            self._row_step(p, g, group)

    def _row_step(self, p: torch.Tensor, grad: torch.Tensor, group: dict) -> None:
        if group["weight_decay"] or group["amsgrad"] or group["maximize"]:
            raise ValueError("RowAdam updates a sparse-gradient parameter as plain Adam: weight_decay, amsgrad "
                             "and maximize are not supported there; give that parameter a dense gradient")
        state = self._row_state(p, group)
        state["step"] += 1
        t = int(state["step"].item())
        grad = grad.coalesce()
        hit, values = grad.indices()[0], grad.values()
        state["touched"][hit] = t
        active = torch.nonzero(state["touched"] >= t - self.window(group)).squeeze(1)
        beta1, beta2 = group["betas"]
        m, v = state["exp_avg"].index_select(0, active), state["exp_avg_sq"].index_select(0, active)
        gap = (t - 1 - state["current"].index_select(0, active)).to(m.dtype).unsqueeze(1)
        m.mul_(torch.pow(beta1, gap.double()).to(m.dtype))  # the zero-gradient steps it sat out (gap 0: a factor of exactly 1)
        v.mul_(torch.pow(beta2, gap.double()).to(v.dtype))
        g = torch.zeros_like(m).index_copy_(0, torch.searchsorted(active, hit), values.to(m.dtype))
        rows = p.detach().index_select(0, active)
        step = torch.tensor(float(t - 1), dtype=state["step"].dtype, device=state["step"].device)  # adam adds the 1
        adam([rows], [g], [m], [v], [], [step], foreach=group["foreach"], fused=group["fused"],
                              capturable=False, differentiable=False, amsgrad=False, has_complex=False,
                              beta1=beta1, beta2=beta2, lr=group["lr"], weight_decay=0.0, eps=group["eps"],
                              maximize=False)
        p.detach().index_copy_(0, active, rows)
        state["exp_avg"].index_copy_(0, active, m)
        state["exp_avg_sq"].index_copy_(0, active, v)
        state["current"][active] = t

    def _row_state(self, p: torch.Tensor, group: dict) -> dict:
        """``p``'s state, made as torch's Adam makes it on a first step, with the row bookkeeping."""
        state = self.state[p]
        if not state:  # zero moments: no row moves before its first gradient
            on = p.device if group["fused"] or group["capturable"] else None
            state["step"] = torch.tensor(0.0, dtype=torch.float32, device=on)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["touched"] = torch.full((p.shape[0],), NEVER, dtype=torch.long, device=p.device)
            state["current"] = torch.zeros(p.shape[0], dtype=torch.long, device=p.device)
        if "touched" not in state:  # a dense Adam's state: every row may carry moments
            now = int(state["step"].item())
            state["touched"] = torch.full((p.shape[0],), now, dtype=torch.long, device=p.device)
            state["current"] = state["touched"].clone()
        return state

    def load_state_dict(self, state_dict: dict) -> None:
        super().load_state_dict(state_dict)
        for state in self.state.values():  # torch casts every saved tensor to its parameter's dtype
            for key in ("touched", "current"):
                if key in state:
                    state[key] = state[key].long()


@contextlib.contextmanager
def sparse_embedding_grads(backbone: nn.Module, on: bool = True):
    """Within the block, ``backbone``'s word embeddings give sparse gradients (the rows of the
    batch's tokens) when ``on``; restored after. ``TypeError`` naming the fix when they are not an
    ``nn.Embedding``. Off, it touches nothing (yields None): a compiled backbone's wrapper, whose
    embeddings stay dense, need not expose them."""
    if not on:
        yield None
        return
    emb = backbone.get_input_embeddings()
    if not isinstance(emb, nn.Embedding):
        raise TypeError(f"the row-wise update needs an nn.Embedding as the backbone's input embeddings, not "
                        f"{type(emb).__name__}: train with embedding_update='dense'")
    before = emb.sparse
    emb.sparse = True
    try:
        yield emb
    finally:
        emb.sparse = before
