"""Figure 2, live: the framework drawn from one real training batch instead of a diagram.

:func:`framework_batch` builds a batch through the trainer's own code path: the
:class:`pearl.training.batches.Collator` the trainer uses (same augmenter factory, hard
negatives, seed and step), with the chosen corpus phrase first and the step's other phrases
after it, and scores it with :func:`pearl.training.train.compute_loss` on a trained model: the
contrastive (InfoNCE, eq. 2) and type (eq. 3-4) terms are the ones a training step computes.
The positives of each augmentation level alone come from the same Collator with one level's
weight on (:data:`pearl.training.methods.PEARL_LEVELS`). :func:`plot_framework` draws it.

Leaves out: the weight averaging (§3.4), which happens once after training, not per batch;
it is named on the figure.
"""
from __future__ import annotations

import numpy as np

LEVEL_NAMES = {"char": "character level", "token": "token level", "phrase": "phrase level"}


def pick_phrase(corpus: list[tuple[str, str]], hard_negatives: dict | None, wanted: str = "The New York Times") -> int:
    """Row of ``wanted`` in the corpus, else of the first phrase with hard negatives (else row 0).

    >>> pick_phrase([("a", "NP"), ("b", "NP")], {"b": ["c"]}, "zzz")
    1
    """
    phrases = [p for p, _ in corpus]
    if wanted in phrases:
        return phrases.index(wanted)
    return next((i for i, p in enumerate(phrases) if (hard_negatives or {}).get(p)), 0)


def framework_batch(cfg, corpus: list[tuple[str, str]], hard_negatives: dict | None, lexicons, folder,
                    phrase: str = "The New York Times", others: int = 3, step: int = 0,
                    augment: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> dict:
    """One batch as the trainer builds and scores it, for the trained folder ``folder``.

    ``cfg``: the run's :class:`pearl.training.train.TrainConfig`; the batch holds the picked
    phrase and ``others`` phrases of step ``step`` (so the InfoNCE has in-batch negatives).
    ``augment``: the run's level weights (char, token, phrase), as the trainer got them.
    Returns the texts, type labels, cosine similarities to the anchor, and the loss terms.
    """
    import torch

    from ..training.batches import BatchPlan, Collator
    from ..training.export import load_pearl
    from ..training.methods import PEARL_LEVELS, augmenter_factory
    from ..training.train import compute_loss

    model, tokenizer, info = load_pearl(folder)
    labels = info.get("labels") or sorted({t for _, t in corpus})
    index = {label: i for i, label in enumerate(labels)}
    phrases = [p for p, _ in corpus]
    row = pick_phrase(corpus, hard_negatives, phrase)
    plan = BatchPlan(len(corpus), min(cfg.batch_size, len(corpus)), cfg.seed)
    rows = [row] + [i for i in plan.indices(step) if i != row][:others]
    k = cfg.hard_negatives if hard_negatives else 0

    def collator(augmenter):
        return Collator(tokenizer, phrases, [index.get(t, 0) for _, t in corpus], hard_negatives if k else None,
                        augmenter, k, cfg.max_length, model.char_encoder is not None, cfg.seed)

    full = collator(augmenter_factory(*augment, lexicons=lexicons))  # what the trainer's batch at this step draws
    originals, augmented, negatives, gold = full.texts(step, rows)
    batch = full(step, rows)
    with torch.no_grad():
        _, parts = compute_loss(model, batch, cfg)
        out = model(**batch["inputs"])
    emb = torch.nn.functional.normalize(out.embedding.float(), dim=-1)
    b = len(rows)
    cos = (emb @ emb[0]).numpy()
    predicted = int(out.type_logits[0].argmax()) if out.type_logits is not None else None

    levels = {}
    for level in LEVEL_NAMES:
        text = collator(augmenter_factory(*PEARL_LEVELS[f"pearl:{level}"], lexicons=lexicons)).texts(step, rows)[1][0]
        with torch.no_grad():
            vec = model.embed(tokenizer, [text])
        levels[level] = (text, float(torch.nn.functional.normalize(vec.float(), dim=-1)[0] @ emb[0]))
    return {
        "phrase": originals[0], "wanted": phrase, "type": labels[gold[0]],
        "predicted_type": labels[predicted] if predicted is not None else None,
        "positive": (augmented[0], float(cos[b])), "levels": levels,
        "hard_negatives": [(t, float(c)) for t, c in zip(negatives[:k], cos[2 * b : 2 * b + k])],
        "in_batch": [(t, float(c), labels[g]) for t, c, g in zip(originals[1:], cos[1:b], gold[1:])],
        "parts": parts, "temperature": cfg.temperature, "batch": b, "k": k, "step": step,
        "model": info.get("train_config", {}).get("backbone", "n/a"),
    }


def _short(text: str, width: int = 18) -> str:
    r"""At most two lines of ``width`` characters (corpus phrases can be long).

    >>> _short("of many social and economic reasons", 18)
    'of many social and\neconomic reasons'
    """
    import textwrap

    return "\n".join(textwrap.wrap(text, width, max_lines=2, placeholder="…")) or text


def _box(ax, x, y, text, color, **kw):
    ax.text(x, y, text, ha="center", va="center", fontsize=8.5,
            bbox=dict(boxstyle="round,pad=0.4", fc=color, ec="0.3", lw=0.8), **kw)


def _arrow(ax, start, end, text=None, color="0.3"):
    ax.annotate("", xy=end, xytext=start, arrowprops=dict(arrowstyle="->", color=color, lw=1.0))
    if text:
        ax.text((start[0] + end[0]) / 2, (start[1] + end[1]) / 2 + 0.015, text, fontsize=8, ha="center", color=color)


def plot_framework(data: dict):
    """The batch of :func:`framework_batch` as the paper's Figure 2 lays it out: the phrase and its
    type in the middle, its positives (each level, and the one this batch drew) above, hard and
    in-batch negatives below, the loss terms on the right."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(13, 6.5))
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    anchor = (0.3, 0.5)
    found = "" if data["phrase"] == data["wanted"] else f' ("{data["wanted"]}" is not in this corpus)'
    typed = f'type: {data["type"]}' + (f'\nhead predicts: {data["predicted_type"]}' if data["predicted_type"] else "")
    _box(ax, *anchor, f'{_short(data["phrase"], 24)}\n{typed}', "#cfe2ff")
    xs = np.linspace(0.08, 0.52, 3)
    for x, (level, (text, c)) in zip(xs, data["levels"].items()):
        note = "nothing applies: the phrase itself" if text == data["phrase"] else LEVEL_NAMES[level]
        _box(ax, x, 0.86, f"{_short(text)}\n({note})", "#d1f0d1")
        _arrow(ax, (anchor[0], anchor[1] + 0.06), (x, 0.81), f"cos {c:.2f}", "darkgreen")
    pos, c = data["positive"]
    _box(ax, 0.62, 0.72, f"this batch's positive\n{_short(pos)}", "#a8e0a8")
    _arrow(ax, (anchor[0] + 0.08, anchor[1] + 0.03), (0.55, 0.70), f"cos {c:.2f}", "darkgreen")
    n = len(data["hard_negatives"]) + len(data["in_batch"])
    xs = np.linspace(0.05, 0.66, max(n, 1))
    items = [(t, c, "hard negative") for t, c in data["hard_negatives"]] + \
            [(t, c, f"in-batch: {lab}") for t, c, lab in data["in_batch"]]
    for x, (text, c, kind) in zip(xs, items):
        _box(ax, x, 0.14, f"{_short(text, 16)}\n({kind})", "#f8d0d0" if kind == "hard negative" else "#eeeeee")
        _arrow(ax, (anchor[0], anchor[1] - 0.06), (x, 0.19), f"{c:.2f}", "darkred")
    p = data["parts"]
    lines = [f'batch: {data["batch"]} phrases, their copies,', f'{data["k"]} hard negatives each (step {data["step"]})',
             "", f'$\\mathcal{{L}}_c$ (InfoNCE, eq. 2, τ = {data["temperature"]}): {p["contrastive"]:.3f}']
    if "type" in p:
        lines.append(f'$\\mathcal{{L}}_t$ (type cross-entropy, eq. 3–4): {p["type"]:.3f}')
    lines += [f'$\\mathcal{{L}}$ = {p["loss"]:.3f}', "", "after training: weight averaging",
              "with the original backbone (§3.4)"]
    ax.text(0.74, 0.5, "\n".join(lines), fontsize=9, va="center", ha="left",
            bbox=dict(boxstyle="round,pad=0.6", fc="#fff8dc", ec="0.3"))
    ax.set_title(f"Figure 2 from one real training batch{found}\npositives above, negatives below (cosine "
                 "to the phrase); loss terms from the trainer's compute_loss", fontsize=10)
    return fig
