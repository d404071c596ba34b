"""Figures of the training data and of training: Figure A1 (phrase types), Figure 3 (augmentation), the loss curves.

- :func:`class_shares` / :func:`type_shares`: percentages of lexical classes and entity types
  over a list of labels (``"NP-ORG"``, ...); the paper's class shares are in
  :data:`PAPER_CLASS_SHARES` (§3.1, Appendix Figure A1).
- :func:`plot_figure_a1`: entity-type distribution without OTHER (OTHER's share in the
  title), beside the lexical-class shares, ours next to the paper's; the corpus and its size
  in the title.
- :func:`plot_figure3`: one phrase and one example per augmentation sub-operation, grouped
  by level, as the paper's Figure 3.
"""
from __future__ import annotations

from collections import Counter
from typing import Iterable

from ..corpus.augment import LEVELS
from ..corpus.phrases import CLASSES, ENTITY_TYPES

#: lexical-class shares (%) of the paper's 3.8M training phrases
PAPER_CLASS_SHARES = {"NP": 60.1, "VP": 0.4, "PP": 26.1, "ADVP": 11.0, "ADJP": 2.4}
LEVEL_TITLES = {"char": "character level", "token": "token level", "phrase": "phrase level"}


def class_shares(labels: Iterable[str]) -> dict[str, float]:
    """``{class: percent}`` in the order of :data:`pearl.corpus.phrases.CLASSES`.

    >>> class_shares(["NP-ORG", "NP-OTHER", "PP-DATE", "VP-OTHER"])["NP"]
    50.0
    """
    counts = Counter(label.split("-", 1)[0] for label in labels)
    n = max(sum(counts.values()), 1)
    return {c: round(100 * counts[c] / n, 2) for c in CLASSES}


def type_shares(labels: Iterable[str]) -> tuple[dict[str, float], float]:
    """``({type: percent among typed phrases}, percent OTHER)``, types by decreasing share."""
    counts = Counter(label.split("-", 1)[1] for label in labels)
    n = max(sum(counts.values()), 1)
    typed = max(n - counts["OTHER"], 1)
    shares = {t: round(100 * counts[t] / typed, 2) for t in ENTITY_TYPES if t != "OTHER"}
    return dict(sorted(shares.items(), key=lambda kv: -kv[1])), round(100 * counts["OTHER"] / n, 2)


def plot_figure_a1(labels: list[str], source: str = "WikiText-2"):
    """Entity types (OTHER left out, its share said) beside the lexical classes, ours next to the
    paper's, for the corpus whose labels are ``labels``; ``source`` names that corpus, and the
    figure's title states it with the phrase count, so the figure cannot be read as another corpus."""
    import matplotlib.pyplot as plt

    types, other = type_shares(labels)
    ours = class_shares(labels)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [2.2, 1]},
                                   layout="constrained")
    fig.suptitle(f"Phrases of {source}: {len(labels):,} distinct", fontsize=12)
    ax1.bar(list(types), list(types.values()), color="#4c72b0")
    ax1.set_ylabel("% of phrases with an entity type")
    ax1.set_title(f"Entity types (OTHER, {other:.1f}% of phrases, not shown)")
    ax1.tick_params(axis="x", rotation=60)
    x = range(len(CLASSES))
    ax2.bar([i - 0.2 for i in x], [ours[c] for c in CLASSES], width=0.4, label="ours", color="#4c72b0")
    ax2.bar([i + 0.2 for i in x], [PAPER_CLASS_SHARES[c] for c in CLASSES], width=0.4, label="paper", color="#dd8452")
    for i, c in enumerate(CLASSES):
        ax2.text(i - 0.2, ours[c] + 1, f"{ours[c]:.1f}", ha="center", fontsize=7)
        ax2.text(i + 0.2, PAPER_CLASS_SHARES[c] + 1, f"{PAPER_CLASS_SHARES[c]:.1f}", ha="center", fontsize=7)
    ax2.set_xticks(list(x), CLASSES)
    ax2.set_ylabel("% of phrases")
    ax2.set_title("Lexical classes")
    ax2.legend()
    return fig


def plot_figure3(phrase: str, variants: dict[str, str], paraphrases: list[str] | None = None, source: str = ""):
    """``variants`` as returned by :meth:`pearl.corpus.augment.Augmenter.variants`; ``paraphrases``
    (all of the phrase's table entries) are listed at the phrase level when given; ``source``
    (the corpus whose tables made them) goes under the figure."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(11, 4.2))
    ax.axis("off")
    ax.text(0.02, 0.5, phrase, fontsize=13, weight="bold", va="center",
            bbox=dict(boxstyle="round", fc="#e8eef8", ec="#4c72b0"))
    ys = {"char": 0.83, "token": 0.45, "phrase": 0.12}
    for level, y in ys.items():
        ax.annotate("", xy=(0.34, y), xytext=(0.27, 0.5), arrowprops=dict(arrowstyle="->", color="grey"))
        ax.text(0.35, y + 0.06, LEVEL_TITLES[level], fontsize=11, weight="bold", va="center")
        for j, op in enumerate(LEVELS[level]):  # an operation that cannot apply is shown as "-"
            col, row = divmod(j, 2)
            ax.text(0.35 + 0.33 * col, y - 0.05 * row, f"{op.split('_', 1)[1]}: {variants.get(op, '-')}",
                    fontsize=10, va="center", family="monospace", color="black" if op in variants else "grey")
    if paraphrases:
        ax.text(0.35, ys["phrase"] - 0.05, "all: " + ", ".join(paraphrases[:6]), fontsize=10, va="center",
                family="monospace")
    ax.text(0.02, 0.0, "-: the operation does not apply (names get no synonym replacement)", fontsize=8,
            color="grey")
    if source:
        ax.text(0.02, -0.06, f"tables built over the training corpus: {source}", fontsize=8, color="grey")
    ax.set_title(f"Augmentation levels applied to \"{phrase}\"")
    return fig


def plot_training_loss(log, window: int = 20):
    """Total loss and its parts (contrastive, eq. 2; phrase type, eq. 3-4) per step, one line per
    seed, smoothed over ``window`` steps. ``log`` is a frame with ``step``, ``seed`` and loss columns."""
    import matplotlib.pyplot as plt

    parts = [c for c in ("loss", "contrastive", "type") if c in log]
    fig, axes = plt.subplots(1, len(parts), figsize=(4 * len(parts), 3), squeeze=False)
    for ax, part in zip(axes[0], parts):
        for seed, g in log.groupby("seed"):
            ax.plot(g["step"], g[part].rolling(window, min_periods=1).mean(), label=f"seed {seed}")
        ax.set(title=part, xlabel="step")
    axes[0][0].legend()
    fig.tight_layout()
    return fig
