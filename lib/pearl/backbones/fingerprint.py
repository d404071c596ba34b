"""A model's fingerprint: the sha256 of everything that decides its vectors, and nothing else.

The embedding cache (:mod:`pearl.cache`) keys vectors, and :class:`pearl.cache.ScoreStore`
benchmark rows, by it: the weights, the model's config, the tokenizer's whole pipeline, the
pooling, the truncation and a PEARL folder's settings. Not its name or folder, so retrained weights
or an edited setting never get old vectors, and a copied folder keeps its cached ones.

>>> from pearl.models import load_model
>>> model = load_model("minilm")             # cached by default  # doctest: +SKIP
>>> fingerprint(model.extra["inner"])[:12]                       # doctest: +SKIP
'5f0c2c7d9a51'
"""
from __future__ import annotations

import hashlib
import json

from ..encode import Encoder
from ..provenance import jsonable


def fingerprint(encoder: Encoder) -> str:
    """sha256 of everything that decides the vectors: the weights, the model's config (activation,
    LayerNorm epsilon, ...), the tokenizer (vocabulary and its whole pipeline: normaliser, lower-
    casing, pre-tokeniser, special tokens), the pooling, the truncation and, for a PEARL folder,
    every setting of its ``pearl.json`` (character weight, centring, ...).

    Baselines without a torch model bring their own (``encoder.extra["fingerprint"]``).
    Computed once per loaded model, and again when its applied character weight changed since
    (:func:`_live`: the model's public setter changes the vectors without new weights).
    """
    live = _live(encoder)  # None: no model of its own to read (a baseline, or a wrapper holding the memo it copied)
    if "fingerprint" in encoder.extra and (live is None or encoder.extra.get("fingerprint_of", live) == live):
        return encoder.extra["fingerprint"]
    if encoder.model is None:
        raise ValueError(f"{encoder!r} has no weights to fingerprint: set extra['fingerprint'] when loading it")
    h = hashlib.sha256()
    meta = {"dim": encoder.dim, "max_length": encoder.max_length, "pooling": "custom" if encoder.forward else "mean",
            "pearl": _settings(encoder.extra.get("pearl")), "config": _config(encoder.model)}
    h.update(json.dumps(meta, sort_keys=True, default=jsonable).encode())
    if encoder.tokenizer is not None:
        h.update(_tokenizer(encoder.tokenizer).encode())
    for key, tensor in sorted(encoder.model.state_dict().items()):
        h.update(key.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    encoder.extra["fingerprint"], encoder.extra["fingerprint_of"] = h.hexdigest(), live
    return encoder.extra["fingerprint"]


def _live(encoder: Encoder) -> str | None:
    """What a caller can change on a loaded model, without new weights, that changes its vectors: a
    PEARL model's applied character scale (``PearlModel.char_scale``); "" for any other model, None
    for an encoder without a model."""
    if encoder.model is None:
        return None
    scale = getattr(encoder.model, "char_scale", None)
    return "" if scale is None else repr(float(scale))


#: keys that name where a model or tokenizer was loaded from, or which library wrote it: they
#: change no vector, and keeping them would give a copied folder other keys than its original
_WHERE = {"_name_or_path", "name_or_path", "transformers_version", "tokenizer_file", "vocab_file", "_commit_hash"}


def _settings(info) -> dict | None:
    """A PEARL folder's ``pearl.json`` but its record of file digests (the weights and files those
    cover are hashed themselves)."""
    if not isinstance(info, dict):
        return None
    return {k: v for k, v in info.items() if k not in ("sha256", "settings_sha256")}


def _config(model) -> dict | None:
    config = getattr(model, "config", None)
    if config is None or not hasattr(config, "to_dict"):
        return None
    return {k: v for k, v in config.to_dict().items() if k not in _WHERE}


def _tokenizer(tokenizer) -> str:
    """The tokenizer as text: a fast tokenizer's whole pipeline (``tokenizer.json`` as it runs, less
    its per-call truncation and padding state), its init settings (``do_lower_case``, ...), its
    special tokens and padding side; a slow one's vocabulary and settings."""
    parts = {"init": {k: v for k, v in getattr(tokenizer, "init_kwargs", {}).items() if k not in _WHERE},
             "special": getattr(tokenizer, "special_tokens_map", {}),
             "padding_side": getattr(tokenizer, "padding_side", None)}
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None:
        pipeline = json.loads(backend.to_str())
        pipeline.pop("truncation", None)
        pipeline.pop("padding", None)
        parts["pipeline"] = pipeline
    else:
        parts["vocab"] = sorted(tokenizer.get_vocab().items())
    return json.dumps(parts, sort_keys=True, default=str)
