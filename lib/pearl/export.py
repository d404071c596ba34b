"""Save a trained PEARL model as a folder that both ``SentenceTransformer`` and ``encode()`` load.

Layout of ``models/pearl-minilm-seed0/``::

    modules.json, sentence_bert_config.json, 1_Pooling/config.json,
    config.json, model.safetensors, tokenizer files  -> the phrase encoder (after weight
                                                       averaging) as a sentence-transformers
                                                       model: Transformer + mean Pooling
    char_encoder.safetensors                         -> CharEncoder weights (config in pearl.json)
    type_head.safetensors                            -> "weight" (95, dim), "bias" (95,)
    pearl.json                                       -> what the parts are and how they join

``SentenceTransformer(path)`` gives the phrase part only (384-d for MiniLM, mean pooled,
not normalised); :func:`pearl.encode.load_model` sees ``pearl.json`` and returns the full
PEARL encoder whose ``encode()`` vectors are the concatenation (448-d), exactly the
:meth:`pearl.model.PearlModel.forward` embedding. Round trip tested in tests/test_export.py.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from .model import PearlModel

FORMAT = "pearl-companion/1"


def export(model: PearlModel, tokenizer, path: str | os.PathLike, labels: list[str] | None = None,
           max_length: int = 32, extra: dict | None = None) -> Path:
    """Write ``model`` to the folder ``path`` (created; existing files of the same names replaced)."""
    from safetensors.torch import save_file
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Pooling, Transformer

    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    model.backbone.save_pretrained(path)
    tokenizer.save_pretrained(path)
    transformer = Transformer(str(path), max_seq_length=max_length)
    SentenceTransformer(modules=[transformer, Pooling(model.phrase_dim, "mean")], device="cpu").save(str(path))
    info = {
        "format": FORMAT,
        "dim": model.dim,
        "phrase_dim": model.phrase_dim,
        "char_dim": model.char_dim,
        "char_weight": model.char_weight,
        "max_length": max_length,
        "embedding": "concat(normalize(mean_pool(phrase_encoder)), char_weight * normalize(char_encoder))",
        "char_encoder": None,
        "type_head": None,
        "labels": list(labels) if labels is not None else None,
        **(extra or {}),
    }
    if model.char_encoder is not None:
        save_file({k: v.contiguous().cpu() for k, v in model.char_encoder.state_dict().items()},
                  path / "char_encoder.safetensors")
        info["char_encoder"] = {"file": "char_encoder.safetensors", **model.char_encoder.config}
    if model.type_head is not None:
        save_file({k: v.contiguous().cpu() for k, v in model.type_head.state_dict().items()},
                  path / "type_head.safetensors")
        info["type_head"] = {"file": "type_head.safetensors", "num_labels": model.num_labels}
    (path / "pearl.json").write_text(json.dumps(info, indent=2) + "\n")
    return path


def load_pearl(path: str | os.PathLike, device: str = "cpu") -> tuple[PearlModel, object, dict]:
    """(model, tokenizer, pearl.json contents) of a folder written by :func:`export`."""
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    from .char_encoder import CharEncoder

    path = Path(path)
    info_file = path / "pearl.json"
    if not info_file.is_file():
        raise FileNotFoundError(f"{info_file} missing: not a PEARL folder (write one with pearl.export.export)")
    info = json.loads(info_file.read_text())
    if info.get("format") != FORMAT:
        raise ValueError(f"{info_file}: format {info.get('format')!r}, expected {FORMAT!r}; re-export the model")
    char = None
    if info["char_encoder"]:
        cfg = {k: v for k, v in info["char_encoder"].items() if k != "file"}
        char = CharEncoder(**cfg)
        char.load_state_dict(load_file(path / info["char_encoder"]["file"]))
    num_labels = info["type_head"]["num_labels"] if info["type_head"] else 0
    model = PearlModel(AutoModel.from_pretrained(path), char, num_labels, info["char_weight"])
    if num_labels:
        model.type_head.load_state_dict(load_file(path / info["type_head"]["file"]))
    return model.to(device).eval(), AutoTokenizer.from_pretrained(path), info


def load_encoder(path: str | os.PathLike, device: str = "cpu"):
    """The PEARL folder as a :class:`pearl.encode.Encoder` (used by ``load_model``)."""
    model, tokenizer, info = load_pearl(path, device)
    return model.as_encoder(tokenizer, info["max_length"], name=str(path), info=info)
