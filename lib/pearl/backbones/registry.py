"""The registry of backbones: one :class:`Backbone` per encoder the companion trains PEARL on by name,
as :data:`pearl.training.objectives.OBJECTIVES` holds one entry per training method.

An entry holds everything that differs between backbones: its ``name`` (what ``load_model``, a
recipe and notebook 09's ``BACKBONES`` take), its loader ``folder`` (the local Hugging Face folder,
converted, pretrained or cut on first use; ``built`` says whether that is done), its ``pooling`` and
the ``prefix`` its tokenizer puts before every text, its ``label`` in tables (Table 4's label column,
"(<label> backbone)" in a trained model's label) and the original's row label (``model_label``),
its part of a trained folder's name (``short``), its ``kind`` (a raw LM gets Table 4's SimCSE
control arm) and the hub id and licence a model card names (``hub``). The model registry
(:mod:`pearl.models`: aliases, folder names, labels, resolving a name), the runner (which backbones
are built first), export (model cards) and Table 4 (:mod:`pearl.experiments.backbones`) read it; none
of them names a backbone. Adding one is :func:`register`
(``tests/backbones/test_registry.py`` adds a tiny one, trains, scores and shows it in Table 4).

The composition of the two views needs nothing from an entry: :mod:`pearl.training.composition`
measures what it reads (the phrase vectors' resultant length, both parts' variances) on the training
vocabulary for whichever backbone it is given. Importing this module loads no weights: a loader
runs when a name is resolved.

What it leaves out: models without a backbone (GloVe, character 3-gram Jaccard:
:mod:`pearl.backbones.baselines`), hub ids on a connected machine (loaded as they are, mean-pooled;
:data:`pearl.experiments.backbones.PAPER_BACKBONES`), and building each folder (:mod:`~pearl.backbones.minilm`,
:mod:`~pearl.backbones.me5`, :mod:`~pearl.backbones.mlm`).
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from . import me5, minilm, mlm

#: what a backbone is, for Table 4: a raw LM (no contrastive or sentence-level training, the paper's
#: Table-4 population) also gets a SimCSE control arm (pearl.experiments.backbones.control_recipes)
KINDS = ("sentence encoder", "raw LM")
#: the poolings the encoder and the trainer run: the mask-aware mean (pearl.encode.mean_pool), the paper's
POOLINGS = ("mean",)
#: a trained folder's backbone part: no hyphen, which separates the name's parts (pearl.models.folder_name)
_SHORT = re.compile(r"^[a-z0-9.]+$")


@dataclass(frozen=True)
class Backbone:
    name: str  # what load_model, recipes and notebook 09's BACKBONES take; Table 4's row
    label: str  # display name: Table 4's label column, "(<label> backbone)" in trained models' labels
    folder: Callable[[], Path]  # the loader: its local Hugging Face folder, built (and verified) on first use
    short: str = ""  # its part of a trained folder's name ("" : the name, which must then fit _SHORT)
    model_label: str = ""  # the original model's label as Table 1 prints it ("": shown by its name)
    aliases: tuple[str, ...] = ()  # other names that load it (like the name, matched case-insensitively)
    built: Callable[[], bool] | None = None  # whether folder() returns at once; None: always (shipped whole)
    kind: str = "sentence encoder"  # one of KINDS
    pooling: str = "mean"  # one of POOLINGS
    prefix: str = ""  # what its tokenizer prepends to every text (the folder's tokenizer does it, so encode(),
    # training and sentence-transformers all see it without knowing of it)
    hub: tuple[str, str] | None = None  # (hub id, licence) a model card names as its base model; None: "other"
    by_folder: bool = False  # recipes train from its folder's path, not its name: the cut MiniLMs' trained
    # folders have always recorded the path, and a recipe's key holds it (so their models are reused)

    def names(self) -> tuple[str, ...]:
        """Every name that loads it, lower-cased."""
        return tuple(n.lower() for n in (self.name, *self.aliases))


BACKBONES: dict[str, Backbone] = {}


def register(backbone: Backbone) -> Backbone:
    """Add ``backbone`` to :data:`BACKBONES`; refused: a name, alias or folder-name part taken, a kind
    or pooling the companion does not run, or a folder-name part with a hyphen."""
    entry = dataclasses.replace(backbone, short=backbone.short or backbone.name)
    if not _SHORT.match(entry.short):
        raise ValueError(f"backbone {entry.name!r}: its folder-name part {entry.short!r} may hold only lower-case "
                         "letters, digits and '.': give it a short=")
    if entry.kind not in KINDS or entry.pooling not in POOLINGS:
        raise ValueError(f"backbone {entry.name!r}: kind must be one of {KINDS} and pooling one of {POOLINGS}")
    taken = {n: b.name for b in BACKBONES.values() for n in (*b.names(), b.short)}
    clash = {n: taken[n] for n in (*entry.names(), entry.short) if n in taken}
    if clash:
        raise ValueError(f"backbone {entry.name!r}: {clash} name registered backbones already")
    BACKBONES[entry.name] = entry
    return entry


def unregister(name: str) -> None:
    """Remove ``name`` (a test's own backbone, when it is done)."""
    BACKBONES.pop(name, None)


def named(name) -> Backbone | None:
    """The entry ``name`` loads by (its name or an alias, any case), else None (a folder or hub id)."""
    key = str(name).lower()
    return next((b for b in BACKBONES.values() if key in b.names()), None)


def find(name_or_path) -> Backbone | None:
    """:func:`named`, or the entry whose built folder ``name_or_path`` is (a path ending in its name:
    ``data/derived/me5-small``, ``models/minilm.l2``), else None."""
    entry = named(name_or_path)
    if entry is None:
        entry = BACKBONES.get(Path(str(name_or_path)).name)
    return entry


def by_short(short: str) -> Backbone | None:
    """The entry whose folder-name part is ``short`` (a parsed trained folder's backbone)."""
    return next((b for b in BACKBONES.values() if b.short == short), None)


def needs_building(name_or_path) -> bool:
    """Whether loading it would build it first (mlm-wiki's pretraining, me5-small's conversion, a cut MiniLM)."""
    entry = named(name_or_path)
    return entry is not None and entry.built is not None and not entry.built()


def _truncated_built(layers: int) -> Callable[[], bool]:
    def built() -> bool:
        from .. import paths
        from . import weights

        target = paths.models_dir(f"{minilm.NAME}.l{layers}")
        return (target / "config.json").is_file() and weights.covered(target)
    return built


# ------------------------------------------------------------------ the five built in
# each loader is looked up on its module when called, not when registered (a test may stand one in)
register(Backbone(minilm.NAME, "MiniLM", lambda: minilm.folder(), model_label="all-MiniLM-L6-v2 (Sentence-BERT family, 22M)",
                  aliases=(minilm.MODEL, f"sentence-transformers/{minilm.MODEL}"),
                  hub=(f"sentence-transformers/{minilm.MODEL}", "apache-2.0")))
register(Backbone("minilm.l2", "MiniLM first 2 of 6 layers", lambda: minilm.truncated(2), built=_truncated_built(2),
                  by_folder=True))
register(Backbone("minilm.l0", "MiniLM token embeddings, 0 layers", lambda: minilm.truncated(0),
                  built=_truncated_built(0), by_folder=True))
register(Backbone(me5.NAME, me5.LABEL, lambda: me5.folder(), short="me5", model_label=me5.LABEL,
                  built=lambda: me5.built(), prefix=me5.PREFIX))
register(Backbone(mlm.NAME, mlm.LABEL, lambda: mlm.folder(), short=mlm.SHORT, model_label=mlm.LABEL,
                  built=lambda: mlm.built(), kind="raw LM"))
