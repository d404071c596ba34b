"""One ``encode()`` path for every model: Hugging Face encoders, sentence-transformers
folders, our trained PEARL folders, and the non-neural baselines. This is the low layer:
it knows nothing of model names (:mod:`pearl.models`) or of PEARL (whose
:class:`Encoder` brings its own ``forward``).

>>> from pearl.models import load_model
>>> model = load_model("minilm")                  # doctest: +SKIP
>>> encode(model, ["The New York Times", "NYTimes"]).shape  # doctest: +SKIP
(2, 384)

What it does, in order: validate the phrases (clear errors, see :func:`check_phrases`),
encode each distinct phrase once, in batches sorted by token length (almost no padding), with
mask-aware mean pooling and L2 normalisation, under ``torch.inference_mode`` on a device
chosen once at load time. What it leaves out: prompts/instructions (E5 wants "query: ";
pass them in the phrases, or put them in the tokenizer as ``me5-small`` does), multi-process
encoding, and quantisation.

Bad input behaviour (tested):
- ``[]`` -> an empty ``(0, dim)`` array;
- ``None`` in place of the list -> ``ValueError`` saying to pass a list; a model that gives
  similarities, not vectors (the string baseline), or one not loaded -> ``TypeError`` naming
  what to call instead;
- ``None``, a non-string, an empty or whitespace-only string -> ``ValueError`` naming its index;
- a phrase the tokenizer reduces to no token (only characters it deletes, e.g. ``"\u200b"``)
  -> ``ValueError`` naming its index, like an empty phrase (:func:`check_tokens`);
- a NUL or other C0 control character (U+0000-U+001F except tab, newline and carriage
  return, and U+007F DEL) -> ``ValueError`` naming its index, position and the fix: tokenizers
  silently delete them, so ``"New\x00York"`` would be encoded as ``"NewYork"`` and a phrase of
  control characters only as an empty one. C1 controls (U+0080-U+009F) are accepted: they
  occur in real benchmark data (mis-decoded UTF-8 in the AutoFJ titles, e.g. ``"â\x80\x99"``);
- very long strings are truncated to the model's maximum length (256 word pieces for MiniLM);
- emoji and non-Latin scripts are encoded as the tokenizer sees them (often ``[UNK]``).
"""
from __future__ import annotations

import json
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np


def pick_device(device: str | None = None) -> str:
    """The device, chosen once: an explicit one, once this machine has it (else a ``ValueError`` naming it,
    what there is and the fix, not a torch error steps into a run), else CUDA, else MPS, else CPU."""
    import torch

    mps = getattr(torch.backends, "mps", None)
    if device is None:
        return "cuda" if torch.cuda.is_available() else "mps" if mps and mps.is_available() else "cpu"
    kind, _, index = str(device).partition(":")
    gpus = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if kind == "cuda" and (gpus == 0 or (index.isdigit() and int(index) >= gpus)):
        there = f"{gpus} CUDA device{'s' if gpus != 1 else ''} (cuda:0 to cuda:{gpus - 1})" if gpus else "no CUDA device"
        raise ValueError(f"device {device!r}: this machine has {there}; pass one of those, 'cpu', or None to choose")
    if kind == "mps" and not (mps and mps.is_available()):
        raise ValueError(f"device {device!r}: this machine has no MPS device; pass 'cpu', or None to choose")
    return device


@contextmanager
def torch_threads(n: int):
    """Run torch on ``n`` CPU threads inside the block, then restore the count (``n <= 0``: unchanged).

    Small work (a keystroke's query, the PPDB probe) gains nothing from intra-op parallelism,
    and on cores shared with other jobs waiting threads spin, which made an explorer query and a
    probe epoch an order of magnitude slower on 2 threads than on one.
    """
    if n <= 0:
        yield
        return
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


@dataclass
class Encoder:
    """A loaded model: a transformer + tokenizer, or a plain function for the baselines."""

    name: str
    dim: int
    model: Any = None
    tokenizer: Any = None
    device: str = "cpu"
    max_length: int = 256
    fn: Callable[[list[str]], np.ndarray] | None = None  # non-neural models (GloVe, ...)
    # a model's own pooled forward, ``forward(padded_batch, texts) -> (n, dim)``, for models
    # that need more than mean pooling (PEARL adds a character part); None: mean pooling
    forward: Callable[[dict, list[str]], Any] | None = None
    extra: dict = field(default_factory=dict)

    def __repr__(self) -> str:
        return f"Encoder({self.name!r}, dim={self.dim}, device={self.device!r})"


def load_transformer(path: str | os.PathLike, device: str | None = None, name: str | None = None) -> Encoder:
    """A Hugging Face encoder or sentence-transformers folder (or hub id) as a mean-pooling
    :class:`Encoder`. Names and aliases are resolved by :func:`pearl.models.load_model`."""
    import torch
    from transformers import AutoTokenizer

    path, device = str(path), pick_device(device)
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = load_hf_model(path).to(device).eval()
    max_length = min(getattr(tokenizer, "model_max_length", 512) or 512, 512)
    st_cfg = Path(path) / "sentence_bert_config.json"
    if st_cfg.is_file():  # sentence-transformers folders say their own truncation length
        max_length = json.loads(st_cfg.read_text()).get("max_seq_length", max_length)
    if device == "cpu" and next(model.parameters()).dtype != torch.float32:  # fp16 copies: fp32 on CPU
        model = model.float()
    return Encoder(name=name or path, dim=model.config.hidden_size, model=model, tokenizer=tokenizer,
                   device=device, max_length=int(max_length))


def load_hf_model(path: str | os.PathLike, **kwargs):
    """``AutoModel.from_pretrained(path)`` that refuses a checkpoint lacking any of the model's
    tensors (or holding one of the wrong shape): transformers would initialise those at random
    and only print a report, giving vectors that look fine and are not the model's. The pooler
    (the [CLS] head) is exempt: mean pooling never reads it, and folders saved without one
    (``add_pooling_layer=False``) are whole."""
    from transformers import AutoModel

    model, info = AutoModel.from_pretrained(str(path), output_loading_info=True, **kwargs)
    missing = sorted(k for k in info.get("missing_keys") or () if not k.startswith("pooler.")) + [str(k) for k in info.get("mismatched_keys") or ()]
    if missing or info.get("error_msgs"):
        where = Path(path) / "model.safetensors" if Path(path).is_dir() else path
        raise ValueError(f"{where}: the checkpoint lacks tensors the model needs ({', '.join(missing[:5]) or info['error_msgs']}"
                         f"{', ...' if len(missing) > 5 else ''}; unexpected in the file: "
                         f"{', '.join(sorted(map(str, info.get('unexpected_keys') or ()))[:5]) or 'none'}), so "
                         "they would be initialised at random. The file is damaged or from another model: "
                         "copy, download or export it again")
    return model


def quiet_loading() -> None:
    """Turn off, for this process, the progress bars transformers and huggingface_hub draw on their
    own ("Loading weights", "Writing model shards"): in a served page or a build log they are noise
    between the companion's own bars (:func:`encode`'s, the trainer's), which stay as they are."""
    from transformers.utils import logging

    logging.disable_progress_bar()  # huggingface_hub's bars with it


#: C0 controls but tab, newline and carriage return (whitespace to every tokenizer), and DEL
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
#: a UTF-16 surrogate alone in a str: not a character, and no UTF-8 encoder takes it
_SURROGATE = re.compile("[\ud800-\udfff]")


def check_phrases(phrases: Sequence[str]) -> list[str]:
    """Validate input: a list of non-empty strings free of control characters (see the module
    docstring), else a ``ValueError`` naming the phrase's index and the fix."""
    if isinstance(phrases, str):
        raise ValueError("encode() takes a list of phrases, not one string: wrap it as [phrase]")
    if phrases is None or not hasattr(phrases, "__iter__"):
        raise ValueError(f"encode() takes a list of phrases, got {type(phrases).__name__} {phrases!r}: "
                         "pass a list of strings, e.g. encode(model, ['The New York Times'])")
    out = list(phrases)
    for i, p in enumerate(out):
        if not isinstance(p, str):
            raise ValueError(f"phrase {i} is {type(p).__name__}, not str: drop or convert it first")
        if not p.strip():
            raise ValueError(f"phrase {i} is empty or whitespace-only: drop it before encoding")
        lone = _SURROGATE.search(p)
        if lone:
            raise ValueError(f"phrase {i} holds a lone surrogate U+{ord(lone.group()):04X} at position {lone.start()} "
                             f"({p[:40]!r}): no tokenizer can encode it. Decode its source as UTF-8 (a lone surrogate "
                             "comes from errors='surrogateescape' or a cut UTF-16 pair), or drop the phrase")
        bad = _CONTROL.search(p)
        if bad:
            raise ValueError(
                f"phrase {i} holds control character U+{ord(bad.group()):04X} at position {bad.start()} "
                f"({p[:40]!r}): tokenizers would silently drop it. Remove control characters first, e.g. "
                r"re.sub(r'[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]', '', phrase), or fix the file it came from "
                "(a binary or wrongly decoded file)")
    return out


def check_tokens(tokenizer, phrases: Sequence[str], lengths: np.ndarray) -> None:
    """Refuse a phrase the tokenizer reduces to its special tokens alone (characters it deletes:
    zero-width spaces, C1 controls, ...), naming its index: every such phrase would get the same
    vector, as an empty phrase would."""
    try:
        specials = tokenizer.num_special_tokens_to_add(pair=False)
    except (AttributeError, TypeError):
        return
    empty = np.flatnonzero(lengths <= specials)
    if len(empty):
        i = int(empty[0])
        raise ValueError(f"phrase {i} ({phrases[i][:40]!r}) holds no token for this model: its tokenizer deletes every "
                         "character (zero-width or control characters, ...), so it would be encoded as an empty "
                         "phrase. Drop it before encoding, or fix the file it came from")


def mean_pool(hidden, mask):
    """Mask-aware mean over tokens: padding contributes nothing."""
    mask = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)


#: tokens per batch (rows x padded width), so that short phrases come in large batches and the
#: matrix products are not tiny, yet not so large that a layer's activations (8,192 tokens x 1,536
#: feed-forward units is 50 MB) leave the caches, where every step slows down, the products as
#: well as GELU, bias and attention. perf/token_budget.py times the budgets against each
#: other and the FLOP floor; 4,096 had the fastest median for MiniLM and PEARL
#: (results/perf/token_budget.json). The GPU budget is a guess, not measured.
TOKENS_PER_BATCH = {"cpu": 4096, "default": 65536}


def encode(
    model: Encoder,
    phrases: Sequence[str],
    batch_size: int | None = None,
    normalize: bool = True,
    progress: bool | None = None,
) -> np.ndarray:
    """Embed ``phrases`` as a float32 array of shape ``(len(phrases), model.dim)``.

    Each distinct phrase is encoded once; batches are sorted by token length so padding stays
    short, and hold about :data:`TOKENS_PER_BATCH` tokens each (many short phrases, or fewer
    long ones) unless ``batch_size`` fixes the rows; vectors are L2-normalised unless
    ``normalize=False``.
    """
    if not (hasattr(model, "fn") and hasattr(model, "dim")):  # not an Encoder
        kind = type(model).__name__
        if hasattr(model, "matrix"):  # the string baseline (pearl.backbones.baselines.CharJaccard)
            raise TypeError(f"{getattr(model, 'name', kind)} gives similarities, not vectors, so encode() cannot "
                            "embed with it: use its .matrix(queries, keys), .paired(a, b) or .nearest(queries, keys)")
        raise TypeError(f"encode() takes a model loaded by pearl.models.load_model, got {kind}: load it first, "
                        "e.g. encode(load_model('minilm'), phrases)")
    phrases = check_phrases(phrases)
    if not phrases:
        return np.zeros((0, model.dim), dtype=np.float32)
    unique = list(dict.fromkeys(phrases))  # keeps first-seen order
    if model.fn is not None:
        vecs = np.asarray(model.fn(unique), dtype=np.float32)
    else:
        vecs = _encode_transformer(model, unique, batch_size, progress)
    if normalize:
        vecs = vecs / np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
    if len(unique) == len(phrases):
        return vecs
    index = {p: i for i, p in enumerate(unique)}
    return vecs[[index[p] for p in phrases]]


def _encode_transformer(model: Encoder, phrases: list[str], batch_size: int, progress) -> np.ndarray:
    import torch
    from tqdm.auto import tqdm

    # Tokenise everything once (the fast tokenizer's batch call), then batch by *token* length.
    # Sorting by character length, as sentence-transformers does, is a weak proxy: on the
    # YAGO stand-in dictionary it pads batches to 1.53x the real token count, against 1.00x here.
    enc = model.tokenizer(phrases, truncation=True, max_length=model.max_length)
    lengths = np.fromiter(map(len, enc["input_ids"]), dtype=np.int64, count=len(phrases))
    check_tokens(model.tokenizer, phrases, lengths)
    order = np.argsort(-lengths, kind="stable")
    out = np.empty((len(phrases), model.dim), dtype=np.float32)
    show = len(phrases) > 10_000 if progress is None else progress
    budget = TOKENS_PER_BATCH.get(model.device, TOKENS_PER_BATCH["default"])
    batches = token_batches(lengths[order], budget) if batch_size is None else \
        [(s, min(s + batch_size, len(order))) for s in range(0, len(order), batch_size)]
    with torch.inference_mode():
        for start, stop in tqdm(batches, desc=f"encode {model.name}", disable=not show, unit="batch"):
            idx = order[start:stop]
            batch = {k: v.to(model.device) for k, v in pad_batch(model.tokenizer, enc, idx, int(lengths[idx[0]])).items()}
            if model.forward is not None:
                pooled = model.forward(batch, [phrases[i] for i in idx])
            else:
                pooled = mean_pool(model.model(**batch).last_hidden_state, batch["attention_mask"])
            out[idx] = pooled.float().cpu().numpy()
    return out


def token_batches(sorted_lengths: np.ndarray, budget: int, max_rows: int = 1024) -> list[tuple[int, int]]:
    """``(start, stop)`` slices of length-sorted (longest first) phrases, each padding to at most
    ``budget`` tokens (at least one row, at most ``max_rows``).

    >>> token_batches(np.array([8, 8, 4, 4, 4, 2]), budget=16)
    [(0, 2), (2, 6)]
    """
    out, start, n = [], 0, len(sorted_lengths)
    while start < n:
        rows = max(1, min(max_rows, budget // max(int(sorted_lengths[start]), 1)))
        out.append((start, min(start + rows, n)))
        start += rows
    return out


def pad_batch(tokenizer, enc, idx, width: int) -> dict:
    """Rows ``idx`` of an unpadded tokenizer output as padded ``(len(idx), width)`` int64 tensors.

    >>> from types import SimpleNamespace
    >>> tok = SimpleNamespace(pad_token_id=0, padding_side="right")
    >>> enc = {"input_ids": [[101, 7, 102], [101, 102]], "attention_mask": [[1, 1, 1], [1, 1]]}
    >>> pad_batch(tok, enc, [1, 0], 3)["input_ids"].tolist()
    [[101, 102, 0], [101, 7, 102]]

    Padding goes on the tokenizer's own side with its pad id (0 for masks and segment ids),
    which is what ``tokenizer(..., padding=True)`` would give.
    """
    import torch

    left = getattr(tokenizer, "padding_side", "right") == "left"
    out = {}
    for key, rows in enc.items():
        fill = tokenizer.pad_token_id if key == "input_ids" else 0
        arr = np.full((len(idx), width), fill, dtype=np.int64)
        for r, i in enumerate(idx):
            seq = rows[i]
            arr[r, slice(width - len(seq), width) if left else slice(0, len(seq))] = seq
        out[key] = torch.from_numpy(arr)
    return out
