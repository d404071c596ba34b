"""Backbones for Table 4 (the paper §5.4: original encoder vs the same encoder + PEARL).

The paper compares BERT, RoBERTa, ALBERT, SpanBERT, LUKE and E5 (:data:`PAPER_BACKBONES`):
the same code runs them by name on a connected machine (mean pooling over any Hugging Face
encoder). Offline, the backbones are MiniLM, ``me5-small`` (the stand-in for the paper's E5-small,
:mod:`pearl.backbones.me5`), ``mlm-wiki`` (a small masked LM pretrained here, :mod:`pearl.backbones.mlm`: the one
raw language model, the paper's Table-4 population) and two weaker encoders cut from MiniLM
(:data:`OFFLINE_BACKBONES`), so that the gain can be measured on encoders with headroom:

- ``minilm.l2``: MiniLM's first 2 of its 6 transformer layers (a shallower contextual encoder);
- ``minilm.l0``: MiniLM with no transformer layer: its token embeddings (plus position
  embeddings and layer norm), mean-pooled: a static bag-of-words encoder that training can
  still move.

Both are ordinary Hugging Face folders written under ``models/`` (:func:`truncated_minilm`),
so training, export and scoring take them like any other backbone.

A raw language model (:data:`RAW_LMS`) also gets a SimCSE arm (:func:`control_recipes`): any
contrastive fine-tuning fixes much of a raw LM's anisotropy, so PEARL's own share of the lift is
its gain over SimCSE's, not over the original. A backbone standing in for one of the paper's
Table-2 models (me5-small for E5-small) is also scored on the short texts (:func:`short_text_gains`).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .. import models, paths
from ..backbones import weights

PAPER_BACKBONES = ("bert-base-uncased", "roberta-base", "albert-base-v2", "SpanBERT/spanbert-base-cased",
                   "studio-ousia/luke-base", "intfloat/e5-small-v2", "intfloat/e5-base-v2")
#: folder name -> layers of MiniLM kept (None: the whole model, by its alias); ``me5-small`` is
#: multilingual-E5-small with 4-bit weights dequantised, the stand-in for the paper's E5-small (:mod:`pearl.backbones.me5`)
OFFLINE_BACKBONES = {"minilm": None, "minilm.l2": 2, "minilm.l0": 0, "me5-small": None, "mlm-wiki": None}
#: backbones that are raw language models (no contrastive or sentence-level training): the
#: paper's five Table-4 models are; offline only the masked LM pretrained here is
RAW_LMS = ("mlm-wiki", "bert-base-uncased", "roberta-base", "albert-base-v2", "SpanBERT/spanbert-base-cased",
           "studio-ousia/luke-base")


def truncated_minilm(layers: int) -> Path:
    """``models/minilm.l<layers>``: MiniLM's first ``layers`` transformer layers (written once)."""
    if not 0 <= layers < 6:
        raise ValueError(f"MiniLM has 6 layers; keep 0 to 5, not {layers}")
    folder = paths.models_dir(f"minilm.l{layers}")
    if (folder / "config.json").is_file() and weights.covered(folder):
        return folder  # written whole, with the digest of every file (older ones are written again)
    model, tokenizer = models.load_backbone("minilm")  # verified against its package's RECORD
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    tmp = folder.with_name(folder.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    weights.write_manifest(tmp)  # its digests, checked at every load
    shutil.rmtree(folder, ignore_errors=True)
    tmp.rename(folder)  # whole folder or none: a killed run never leaves half a backbone
    return folder


def backbone(name: str) -> str:
    """The name or folder to train from for a Table-4 backbone (offline ones built on first use)."""
    if name in OFFLINE_BACKBONES:
        layers = OFFLINE_BACKBONES[name]
        return name if layers is None else str(truncated_minilm(layers))
    return name  # a hub id: needs a connected machine


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
    """``"raw LM"`` (:data:`RAW_LMS`) or ``"sentence encoder"`` (trained contrastively already, as MiniLM and E5 are).

    >>> kind("mlm-wiki"), kind("minilm")
    ('raw LM', 'sentence encoder')
    """
    return "raw LM" if name in RAW_LMS else "sentence encoder"


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
