"""Backbones for Table 4 (the paper §5.4: original encoder vs the same encoder + PEARL).

The paper compares BERT, RoBERTa, ALBERT, SpanBERT, LUKE and E5 (:data:`PAPER_BACKBONES`):
the same code runs them by name on a connected machine (mean pooling over any Hugging Face
encoder). Offline, the backbones are those of the backbone registry
(:data:`pearl.backbones.registry.BACKBONES`): MiniLM, ``me5-small`` (the stand-in for the paper's
E5-small, :mod:`pearl.backbones.me5`), ``mlm-wiki`` (a small masked LM pretrained here,
:mod:`pearl.backbones.mlm`: the one raw language model, the paper's Table-4 population) and two
weaker encoders cut from MiniLM (:func:`pearl.backbones.minilm.truncated`), so that the gain can be
measured on encoders with headroom:

- ``minilm.l2``: MiniLM's first 2 of its 6 transformer layers (a shallower contextual encoder);
- ``minilm.l0``: MiniLM with no transformer layer: its token embeddings (plus position
  embeddings and layer norm), mean-pooled: a static bag-of-words encoder that training can
  still move.

Both are ordinary Hugging Face folders written under ``models/``, so training, export and scoring
take them like any other backbone. A backbone registered there is a Table-4 row once notebook 09's
``BACKBONES`` names it; nothing here names one.

A raw language model (an entry of kind ``"raw LM"``, or one of :data:`PAPER_RAW_LMS`) also gets a
SimCSE arm (:func:`control_recipes`): any contrastive fine-tuning fixes much of a raw LM's anisotropy, so PEARL's own share of the lift is
its gain over SimCSE's, not over the original. A backbone standing in for one of the paper's
Table-2 models (me5-small for E5-small) is also scored on the short texts (:func:`short_text_gains`).
"""
from __future__ import annotations

from pathlib import Path

from .. import models
from ..backbones import minilm, registry

PAPER_BACKBONES = ("bert-base-uncased", "roberta-base", "albert-base-v2", "SpanBERT/spanbert-base-cased",
                   "studio-ousia/luke-base", "intfloat/e5-small-v2", "intfloat/e5-base-v2")
#: the paper's Table-4 backbones that are raw language models (hub ids: no registry entry offline)
PAPER_RAW_LMS = ("bert-base-uncased", "roberta-base", "albert-base-v2", "SpanBERT/spanbert-base-cased",
                 "studio-ousia/luke-base")


def truncated_minilm(layers: int) -> Path:
    """``models/minilm.l<layers>``: MiniLM's first ``layers`` transformer layers (written once;
    :func:`pearl.backbones.minilm.truncated`)."""
    return minilm.truncated(layers)


def backbone(name: str) -> str:
    """The name or folder to train from for a Table-4 backbone (a registered one built on first use)."""
    entry = registry.BACKBONES.get(name)
    if entry is not None and entry.by_folder:
        return str(entry.folder())
    return name  # by its name (resolved by the model registry), or a hub id: needs a connected machine


def phrase_share(given: float | None, profile: str) -> float:
    """The share of the training phrases each Table-4 model trains on: ``given``, else the paper's
    0.3 on the gpu profile and every phrase (1.0) on the others (a cpu-profile run sees few phrases)."""
    return given or (0.3 if profile == "gpu" else 1.0)


def recipes(names, share: float) -> tuple[dict, dict]:
    """(``{backbone: what to train from}``, ``{backbone: Recipe}``) for Table-4 backbones ``names``;
    a share below 1 tags the folder name (``share30``), so those models are not taken for full ones."""
    from .runner import Recipe

    sources = {name: backbone(name) for name in names}  # offline backbones are cut from MiniLM on first use
    tag = "" if share == 1 else f"share{round(share * 100)}"
    return sources, {name: Recipe(name=tag, backbone=src, phrase_share=share) for name, src in sources.items()}


def kind(name: str) -> str:
    """``"raw LM"`` or ``"sentence encoder"`` (trained contrastively already, as MiniLM and E5 are): a
    registered backbone's ``kind``, else whether it is one of :data:`PAPER_RAW_LMS`.

    >>> kind("mlm-wiki"), kind("minilm"), kind("bert-base-uncased")
    ('raw LM', 'sentence encoder', 'raw LM')
    """
    entry = registry.BACKBONES.get(name)
    return entry.kind if entry is not None else "raw LM" if name in PAPER_RAW_LMS else "sentence encoder"


def control_recipes(recipes: dict) -> dict:
    """``{backbone: the SimCSE Recipe}`` for each raw LM among ``recipes`` (Table 4's control arm),
    at the same phrase share."""
    import dataclasses

    from .runner import method_recipe

    return {name: dataclasses.replace(method_recipe("simcse", backbone=r.backbone), name=r.name, phrase_share=r.phrase_share)
            for name, r in recipes.items() if kind(name) == "raw LM"}


def with_labels(table):
    """Table 4 (:func:`pearl.experiments.tables.gains`) with each backbone's display label and kind
    (:func:`kind`) as its second and third columns."""
    table.insert(1, "label", [models.backbone_label(b) for b in table["backbone"]])
    table.insert(2, "kind", [kind(b) for b in table["backbone"]])
    return table


def short_text_gains(trained, originals):
    """Per backbone and Table-2 set, plus their mean (``average``): the original's accuracy,
    PEARL's mean and std over seeds, and the gain. ``trained`` and ``originals`` are
    :func:`pearl.benchmark.scoring.run_models`' rows (or their frames) of ``SUITES["table2"]`` grouped by backbone."""
    import pandas as pd

    def with_average(frame):
        frame = pd.DataFrame(frame)[["group", "model", "dataset", "score"]]
        average = frame.groupby(["group", "model"], sort=False)["score"].mean().reset_index()
        return pd.concat([frame, average.assign(dataset="average")], ignore_index=True)

    keys = ["group", "dataset"]
    seeds = with_average(trained).groupby(keys, sort=False)["score"].agg(["mean", "std", "count"])
    original = with_average(originals).groupby(keys, sort=False)["score"].mean().rename("original")
    out = seeds.join(original).reset_index()
    out = out.rename(columns={"group": "backbone", "mean": "pearl", "count": "seeds"})
    out["gain"] = out["pearl"] - out["original"]
    return out[["backbone", "dataset", "original", "pearl", "std", "seeds", "gain"]]
