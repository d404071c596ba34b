"""sentence-transformers modules that make an exported PEARL folder load *whole* with
``SentenceTransformer(path)`` (``pearl`` installed): the pipeline is

    PearlTransformer -> Pooling(mean) -> CharConcat -> Normalize

- :class:`PearlTransformer` is sentence-transformers' ``Transformer`` whose ``preprocess`` also
  hands the phrases' UTF-8 byte ids (``char_ids``) down the pipeline: the character part needs
  the raw text, which token ids cannot give back (MiniLM lower-cases).
- :class:`CharConcat` runs the character encoder and joins the two parts as
  :meth:`pearl.training.model.PearlModel.forward` does: ``[(p-m)/|p-m| ; w c/|c|]``, the
  phrase part's centre ``m`` kept in its config.

The vectors equal ``pearl.encode.encode(load_model(path), phrases)`` (tested to 1e-5).
What it leaves out: the phrase-type head (not part of the embedding) and training through
sentence-transformers' trainer.
"""
from __future__ import annotations

from typing import Any

import torch
from sentence_transformers.base.modules.module import Module
from sentence_transformers.base.modules.transformer import Transformer

from .char_encoder import CharEncoder, char_ids
from .model import join_parts


class PearlTransformer(Transformer):
    """The phrase encoder; its features also carry ``char_ids`` for :class:`CharConcat`."""

    def preprocess(self, inputs, prompt: str | None = None, **kwargs) -> dict[str, Any]:
        features = super().preprocess(inputs, prompt=prompt, **kwargs)
        texts = [prompt + str(x) if prompt else str(x) for x in inputs]
        features["char_ids"] = char_ids(texts)
        return features

    @classmethod
    def load(cls, model_name_or_path: str, *args, **kwargs):
        """sentence-transformers' loader, after checking the folder's files against the digests
        its ``pearl.json`` records (:func:`pearl.backbones.weights.verify`), as :func:`pearl.models.load_model` does."""
        from pathlib import Path
        from ..backbones import weights

        if Path(model_name_or_path).is_dir():
            weights.verify(model_name_or_path)
        return super().load(model_name_or_path, *args, **kwargs)


class CharConcat(Module):
    """Character encoder + concatenation with the pooled phrase vector."""

    config_keys = ["char_config", "char_scale", "phrase_centre"]

    def __init__(self, char_config: dict, char_scale: float | None = None, phrase_centre: list[float] | None = None,
                 char_weight: float | None = None):
        super().__init__()
        # char_weight: the config key of the folders exported before the applied scale had its own name
        self.char_config, self.char_scale = dict(char_config), float(char_scale if char_scale is not None else char_weight)
        self.phrase_centre = list(phrase_centre) if phrase_centre is not None else None  # the config's copy
        self._centre = torch.tensor(self.phrase_centre) if phrase_centre is not None else None  # made once, not per batch
        self.char_encoder = CharEncoder(**self.char_config)

    @classmethod
    def from_encoder(cls, encoder: CharEncoder, char_scale: float, phrase_centre=None) -> "CharConcat":
        centre = [float(x) for x in phrase_centre] if phrase_centre is not None else None
        module = cls(encoder.config, char_scale, centre)
        module.char_encoder.load_state_dict(encoder.state_dict())
        return module

    def forward(self, features: dict[str, Any], **kwargs) -> dict[str, Any]:
        features["sentence_embedding"] = join_parts(features["sentence_embedding"],
                                                    self.char_encoder(features["char_ids"]), self.char_scale, self._centre)
        return features

    def get_sentence_embedding_dimension(self) -> int:
        return self.char_encoder.out_dim

    def save(self, output_path: str, *args, safe_serialization: bool = True, **kwargs) -> None:
        self.save_config(output_path)
        self.save_torch_weights(output_path, safe_serialization=safe_serialization)

    @classmethod
    def load(cls, model_name_or_path: str, subfolder: str = "", token=None, cache_folder=None, revision=None,
             local_files_only: bool = False, **kwargs) -> "CharConcat":
        hub = dict(subfolder=subfolder, token=token, cache_folder=cache_folder, revision=revision,
                   local_files_only=local_files_only)
        module = cls(**cls.load_config(model_name_or_path, **hub))
        return cls.load_torch_weights(model_name_or_path, model=module, **hub)
