"""The PEARL model (§3.2-3.4): phrase encoder + character encoder + phrase-type head.

- **Phrase encoder**: any Hugging Face encoder with mask-aware mean pooling
  (all-MiniLM-L6-v2 by default: 384-d; e5-small-v2 384-d, e5-base-v2 768-d).
- **Character encoder**: :class:`pearl.training.char_encoder.CharEncoder`, 64-d by default.
- **Phrase embedding**: the concatenation ``[(p - m) / |p - m| ; a * c / |c|]`` of the two, e.g.
  384 + 64 = 448 dimensions for MiniLM. Each part is L2-normalised before concatenating
  and the character part is scaled by the applied scale ``char_scale`` a, so the cosine of two phrase
  embeddings is ``(cos_phrase + a^2 cos_char) / (1 + a^2)`` (the reference code concatenates
  raw vectors, whose norms drift during training). a is the asked weight
  (``TrainConfig.char_weight`` w) as the rule below caps it.
- **Composition** (m and a, not in the paper): chosen per backbone by a rule read on the
  training vocabulary (:mod:`pearl.training.composition`). Why: a fixed share of the *cosine* is
  not a fixed share of the *variance*, and KMeans follows variance. An anisotropic backbone
  (E5-family vectors share one dominant direction, so their unit vectors vary little) left the
  character part most of what varies, and entity clustering then followed surface form (capitals,
  length). So the phrase part is centred on the backbone's mean over the training vocabulary when
  the backbone is anisotropic, and the character weight is capped so that the character part
  holds at most ``max_char_share`` of the embedding's total variance there. The rule reads the
  model at the start of training (the contrastive loss sees its composition) and again after
  weight averaging (the exported model's own mean and spread), keeping the start's decision to
  centre; without a character part ``m`` stays 0, so a phrase-only embedding is the backbone's
  plain normalised vector. The scale and the centre are buffers: a resumed run keeps them.
- **Phrase-type head** (eq. 1): ``softmax(W e + b)`` over the concatenation, 95 labels
  (:data:`pearl.corpus.phrases.LABELS`); the logits come out of :meth:`PearlModel.forward`.

Switches for the ablations: ``use_char=False`` drops the character encoder (the embedding
is the phrase part alone, 384-d); ``num_labels=0`` drops the type head.

>>> model = PearlModel(backbone, char_encoder=CharEncoder(), num_labels=95)  # doctest: +SKIP
>>> model.dim, model.phrase_dim, model.char_dim                               # doctest: +SKIP
(448, 384, 64)
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..encode import Encoder, encode, mean_pool
from .char_encoder import CharEncoder, char_ids, distill_init


@dataclass
class PearlOutput:
    embedding: torch.Tensor  # (batch, dim), not normalised as a whole
    type_logits: torch.Tensor | None  # (batch, num_labels) or None without the head


def join_parts(phrase: torch.Tensor, chars: torch.Tensor | None, char_scale: float,
               centre: torch.Tensor | None = None) -> torch.Tensor:
    """The PEARL embedding ``[(p-m)/|p-m| ; a c/|c|]`` (``char_scale``: the applied scale a) (the phrase part alone without a character part;
    ``centre`` m: None or zeros for none); :class:`pearl.training.st_modules.CharConcat` builds the
    same vector in sentence-transformers."""
    phrase = phrase if phrase.dtype == torch.float64 else phrase.float()  # float64 kept: views.join's numpy vectors
    if centre is not None:
        phrase = phrase - centre.to(phrase.device, phrase.dtype)
    parts = [F.normalize(phrase, dim=-1)]
    if chars is not None:
        parts.append(char_scale * F.normalize(chars.to(phrase.dtype), dim=-1))
    return torch.cat(parts, dim=-1)


class PearlModel(nn.Module):
    """Backbone + optional character encoder + optional phrase-type head."""

    def __init__(self, backbone: nn.Module, char_encoder: CharEncoder | None = None,
                 num_labels: int = 95, char_scale: float = 0.5):
        super().__init__()
        self.backbone = backbone
        self.char_encoder = char_encoder
        self.phrase_dim = int(backbone.config.hidden_size)
        self.char_dim = char_encoder.out_dim if char_encoder is not None else 0
        self.dim = self.phrase_dim + self.char_dim
        self.type_head = nn.Linear(self.dim, num_labels) if num_labels else None
        # a buffer, not a parameter: estimated from data (estimate_centre), never trained, and
        # saved with the model's state so a resumed run centres as the killed one did
        self.register_buffer("phrase_centre", torch.zeros(self.phrase_dim))
        # the applied character scale a (the rule's, pearl.training.composition; the asked weight w is
        # TrainConfig.char_weight), a buffer for the same reason; a float: float(model.char_scale)
        self.register_buffer("char_scale", torch.tensor(float(char_scale)))
        self.composition = None  # the rule's last reading (compose), recorded in pearl.json
        self._register_load_state_dict_pre_hook(_keep_char_scale, with_module=True)

    @property
    def num_labels(self) -> int:
        return self.type_head.out_features if self.type_head is not None else 0

    def forward(self, input_ids, attention_mask, char_ids=None, token_type_ids=None, buckets: int = 1,
                bucket_order=None, bucket_widths=None) -> PearlOutput:
        """Embeddings (and type logits) of a tokenised batch.

        ``buckets > 1`` runs the backbone on that many length-sorted slices of the batch,
        each trimmed to its own longest phrase: the same vectors with less padding (phrases
        in a training batch range from 1 to ~12 word pieces, so one padded block wastes much).
        ``bucket_order`` and ``bucket_widths`` (:class:`pearl.training.arrays.StepArrays` computes
        them on the host) give the slices and their widths, so a GPU never waits to read the lengths.
        """
        pooled = self._phrase_vectors(input_ids, attention_mask, token_type_ids, buckets, bucket_order, bucket_widths)
        chars = None
        if self.char_encoder is not None:
            if char_ids is None:
                raise ValueError("this PEARL model has a character encoder: pass char_ids (pearl.training.char_encoder.char_ids)")
            chars = self.char_encoder(char_ids)
        embedding = join_parts(pooled, chars, float(self.char_scale), self.phrase_centre if chars is not None else None)
        logits = self.type_head(embedding) if self.type_head is not None else None
        return PearlOutput(embedding, logits)

    def _phrase_vectors(self, input_ids, attention_mask, token_type_ids, buckets: int, order=None, widths=None):
        if widths is None:
            lengths = attention_mask.sum(1)
            order = torch.argsort(lengths, stable=True) if buckets > 1 else None
        slices = torch.tensor_split(order, len(widths) if widths is not None else buckets) if order is not None else [None]
        out = []
        for i, idx in enumerate(slices):
            ids, mask, types = input_ids, attention_mask, token_type_ids
            if idx is not None:
                width = widths[i] if widths is not None else int(lengths[idx].max())
                ids, mask = ids[idx, :width], mask[idx, :width]
                types = types[idx, :width] if types is not None else None
            kwargs = {"token_type_ids": types} if types is not None else {}
            hidden = self.backbone(input_ids=ids, attention_mask=mask, **kwargs).last_hidden_state
            out.append(mean_pool(hidden, mask))
        if order is None:
            return out[0]
        return torch.cat(out)[torch.argsort(order)]  # back to batch order

    @torch.no_grad()
    def phrase_vectors(self, tokenizer, phrases: list[str], max_length: int = 32) -> np.ndarray:
        """The phrase part's raw pooled vectors of ``phrases`` (neither centred nor normalised),
        through :func:`pearl.encode.encode`, in eval mode, restoring the training mode after."""
        was_training = self.training
        device = str(self.phrase_centre.device)
        enc = Encoder(name="phrase part", dim=self.phrase_dim, model=self.eval(), tokenizer=tokenizer, device=device,
                      max_length=max_length,
                      forward=lambda batch, texts: self._phrase_vectors(batch["input_ids"], batch["attention_mask"],
                                                                        batch.get("token_type_ids"), 1))
        try:
            return encode(enc, phrases, normalize=False)
        finally:
            self.train(was_training)

    @torch.no_grad()
    def estimate_centre(self, tokenizer, phrases: list[str], max_length: int = 32,
                        vectors: np.ndarray | None = None) -> torch.Tensor:
        """Set :attr:`phrase_centre` to the backbone's mean pooled vector over ``phrases`` (the
        training vocabulary; ``vectors``: their :meth:`phrase_vectors`, when already computed)
        and return it."""
        if vectors is None:
            vectors = self.phrase_vectors(tokenizer, list(dict.fromkeys(phrases)), max_length)
        self.phrase_centre.copy_(torch.from_numpy(vectors.mean(0, dtype=np.float64).astype(np.float32)))
        return self.phrase_centre

    @torch.no_grad()
    def char_vectors(self, phrases: list[str], batch: int = 512) -> np.ndarray:
        """The character part's raw vectors of ``phrases`` (eval mode: no dropout; the mode restored after)."""
        was_training = self.training
        self.char_encoder.eval()
        try:
            device = self.phrase_centre.device
            return torch.cat([self.char_encoder(char_ids(phrases[i:i + batch]).to(device)).float().cpu()
                              for i in range(0, len(phrases), batch)]).numpy()
        finally:
            self.char_encoder.train(was_training)

    @torch.no_grad()
    def compose(self, tokenizer, vocab: list[str], char_weight: float, max_char_share: float | None,
                centre: bool | None = None, max_length: int = 32, vectors: np.ndarray | None = None):
        """Set the centre and the applied character scale by the rule (:func:`pearl.training.composition.compose`)
        from the asked weight ``char_weight``, read on the training vocabulary ``vocab`` (``vectors``: its :meth:`phrase_vectors`, when
        already computed) and return the :class:`pearl.training.composition.Composition`."""
        from .composition import compose

        if vectors is None:
            vectors = self.phrase_vectors(tokenizer, vocab, max_length)
        comp, centre_vector = compose(vectors, self.char_vectors(vocab), char_weight, max_char_share, centre)
        self.phrase_centre.copy_(torch.from_numpy(centre_vector))
        self.char_scale.fill_(comp.char_scale)
        # the record holds the scale as the float32 buffer keeps it: pearl.json's char_scale, exactly
        self.composition = dataclasses.replace(comp, char_scale=float(self.char_scale))
        return self.composition

    def inputs(self, tokenizer, phrases: list[str], max_length: int = 32) -> dict:
        """The tensors :meth:`forward` takes for ``phrases`` (tokenised outside forward)."""
        batch = dict(tokenizer(phrases, padding=True, truncation=True, max_length=max_length, return_tensors="pt"))
        if self.char_encoder is not None:
            batch["char_ids"] = char_ids(phrases)
        return batch

    def as_encoder(self, tokenizer, max_length: int = 32, name: str = "pearl", info: dict | None = None):
        """This model (in eval mode) as a :class:`pearl.encode.Encoder`: ``encode()`` then returns
        the concatenated phrase + character embedding. ``info`` is the folder's ``pearl.json``."""
        device = str(next(self.parameters()).device)
        return Encoder(name=name, dim=self.dim, model=self.eval(), tokenizer=tokenizer, device=device,
                       max_length=max_length, forward=self.pooled, extra={"pearl": info or {}})

    def pooled(self, batch: dict, texts: list[str]) -> torch.Tensor:
        """The embedding of a padded tokenizer batch whose phrases are ``texts`` (the
        ``Encoder.forward`` hook: the character part needs the raw text)."""
        chars = char_ids(texts).to(batch["input_ids"].device) if self.char_encoder is not None else None
        return self(**batch, char_ids=chars).embedding

    def embed(self, tokenizer, phrases: list[str], batch_size: int | None = None, max_length: int = 32) -> torch.Tensor:
        """Embeddings of ``phrases`` (eval mode, not normalised), float32 on CPU, through
        :func:`pearl.encode.encode`: the one path every model is encoded by."""
        was_training = self.training
        try:
            return torch.from_numpy(encode(self.as_encoder(tokenizer, max_length), phrases, batch_size, normalize=False))
        finally:
            self.train(was_training)


def _keep_char_scale(module: "PearlModel", state_dict: dict, prefix: str, *args) -> None:
    """A checkpoint written before the character scale was a buffer has none: the model keeps the
    scale it was built with (its config's asked ``char_weight``, which that run applied)."""
    state_dict.setdefault(prefix + "char_scale", module.char_scale.clone())


def build_model(backbone: nn.Module, use_char: bool = True, use_type_head: bool = True,
                char_dim: int = 64, num_labels: int = 95, char_scale: float = 0.5) -> PearlModel:
    """A :class:`PearlModel` with the components the switches keep (``char_scale``: the applied
    scale until the rule sets it, :meth:`PearlModel.compose`)."""
    char = CharEncoder(out_dim=char_dim) if use_char else None
    return PearlModel(backbone, char, num_labels if use_type_head else 0, char_scale)


def training_vocab(phrases: list[str], size: int) -> list[str]:
    """The training vocabulary: the corpus's first phrases and their words, ``size`` strings at
    most; the character encoder is distilled on it and the phrase part centred on it.

    >>> training_vocab(["new york", "york", "big apple"], 4)
    ['new york', 'york', 'new', 'big']
    """
    words = [w for p in phrases for w in p.split()]
    return list(dict.fromkeys(phrases[: size // 2] + words))[:size]


def distill_char_encoder(model: PearlModel, vocab: list[str], vectors: np.ndarray, cfg) -> list[float]:
    """LOVE-style start for the character encoder: mimic the backbone on the training vocabulary
    ``vocab``, whose :meth:`PearlModel.phrase_vectors` are ``vectors`` (the teacher is their unit
    vectors; ``cfg``: a :class:`pearl.training.train.TrainConfig`)."""
    teacher = F.normalize(torch.from_numpy(vectors).float(), dim=-1).numpy()
    return distill_init(model.char_encoder, vocab, teacher, steps=cfg.char_distill_steps, seed=cfg.seed)


def average_weights(backbone: nn.Module, original: dict, average: float) -> None:
    """**Weight averaging** (§3.4), in place: ``average * current + (1 - average) * original`` for
    every floating tensor of the backbone (``original``: its state before fine-tuning)."""
    with torch.no_grad():
        for name, tensor in backbone.state_dict().items():
            if tensor.is_floating_point():
                tensor.mul_(average).add_(original[name].to(tensor.device, tensor.dtype), alpha=1 - average)


def average_and_centre(model: PearlModel, tokenizer, original: dict, phrases: list[str], cfg,
                       average: float | None = None) -> None:
    """How training ends: :func:`average_weights` of the backbone (``average``, default
    ``cfg.average``), then, for a model with a character part, the composition read again on the
    training vocabulary of ``phrases`` (:meth:`PearlModel.compose`: the averaged backbone has a mean
    and a spread of its own), keeping the start's decision to centre or not."""
    average_weights(model.backbone, original, cfg.average if average is None else average)
    if model.char_encoder is not None:
        model.compose(tokenizer, training_vocab(phrases, cfg.char_distill_vocab), cfg.char_weight, cfg.max_char_share,
                      centre=bool(model.phrase_centre.any()), max_length=cfg.max_length)
